package store

import (
	"strings"
	"testing"
	"time"

	"lore/record"
)

func TestIdenticalVersionsCountOnce(t *testing.T) {
	set := &Set{versions: map[string][]*record.Record{}}
	set.add(sample())
	set.add(sample())
	if n := len(set.History(sample().ID)); n != 1 {
		t.Fatalf("identical version kept %d times", n)
	}
	other := sample()
	other.Text = "conflicting"
	set.add(other)
	if n := len(set.History(sample().ID)); n != 2 {
		t.Fatalf("a same-timestamp version with other content: %d versions kept, want 2", n)
	}
}

func TestResolve(t *testing.T) {
	set := &Set{versions: map[string][]*record.Record{}}
	for _, id := range []string{"dec-abcdefgh012345678", "dec-abcdxxxx012345678", "pat-zzzzzzzz012345678"} {
		r := sample()
		r.ID = id
		set.add(r)
	}
	if id, err := set.Resolve("DEC-ABCDE"); err != nil || id != "dec-abcdefgh012345678" {
		t.Errorf("unique prefix: %q %v", id, err)
	}
	if _, err := set.Resolve("dec-abcd"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if _, err := set.Resolve("dec-q"); err == nil {
		t.Errorf("unknown prefix resolved")
	}
}

func TestSetServesTheLaterVersionInEitherOrder(t *testing.T) {
	a := &record.Record{V: 1, ID: record.NewID(record.Decision, time.Unix(0, 0)), Kind: record.Decision, Time: time.Unix(100, 0).UTC(), Text: "earlier"}
	b := *a
	b.Time = a.Time.Add(time.Millisecond)
	b.Text = "later"
	// Read in either order, the set serves the later version.
	for _, order := range [][]*record.Record{{a, &b}, {&b, a}} {
		set := &Set{versions: map[string][]*record.Record{}}
		for _, r := range order {
			set.add(r)
		}
		set.sortVersions()
		if set.Get(a.ID).Text != "later" {
			t.Errorf("order %v: current is %q", order, set.Get(a.ID).Text)
		}
	}
}

func sample() *record.Record {
	c := 0.9
	now := time.Date(2026, 2, 10, 12, 0, 0, 123456789, time.UTC)
	return &record.Record{V: 1, ID: "pat-abcdefgh012345678", Kind: record.Pattern, Time: now, Created: now,
		Text: "Safe bash arithmetic", Context: "set -e scripts", Solution: "x=$((x+1))", Confidence: &c,
		Tags: []string{"bash"}, Author: "Ada <ada@example.com>", Branch: "main", Commit: strings.Repeat("a", 40)}
}
