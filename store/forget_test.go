package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/record"
)

// add appends a new record of kind k, with change applied first.
func add(t *testing.T, s *Store, k record.Kind, text string, change func(r *record.Record)) *record.Record {
	t.Helper()
	r, err := s.New(k, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(r)
	}
	if err := s.Append(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// update appends the next version of r.
func update(t *testing.T, s *Store, r *record.Record, change func(r *record.Record)) {
	t.Helper()
	if _, err := s.Update(r.Kind, r.ID, func(n *record.Record) error { change(n); return nil }); err != nil {
		t.Fatal(err)
	}
}

// allVersions is every version of every record in the store but those in
// skip, as lines, in ID order.
func allVersions(t *testing.T, s *Store, skip []string) []string {
	t.Helper()
	set, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range set.Current() {
		if slices.Contains(skip, r.ID) {
			continue
		}
		for _, v := range set.History(r.ID) {
			line, _ := v.MarshalLine()
			out = append(out, string(line))
		}
	}
	slices.Sort(out)
	return out
}

func TestPurgeTakesThePromotedRecordsWithIt(t *testing.T) {
	s := newTestStore(t)
	const secret = "the staging db lives at 10.0.0.5 behind the vpn"
	keep := add(t, s, record.Decision, "keep this decision", nil)
	update(t, s, keep, func(r *record.Record) { r.Rationale = "it works" })
	add(t, s, record.Observation, "an unrelated note", nil)
	add(t, s, record.Pattern, "an unrelated pattern", nil)
	quote := add(t, s, record.Decision, "move staging", func(r *record.Record) { r.Rationale = "because " + secret + ", says the inbox" })

	// Promotion as inbox.Promote does it: the new record carries the
	// observation's text and names it in from; the observation's next
	// version is marked promoted to it.
	obs := add(t, s, record.Observation, secret, nil)
	pat := add(t, s, record.Pattern, secret, func(r *record.Record) { r.From = obs.ID })
	update(t, s, obs, func(r *record.Record) { r.Status, r.PromotedTo = record.StatusPromoted, pat.ID })
	update(t, s, pat, func(r *record.Record) { r.Solution = "ask for " + secret })
	// and one further step, to show the lineage is followed all the way
	fail := add(t, s, record.Failure, "could not reach "+secret, func(r *record.Record) { r.ErrorType, r.From = "Observed", pat.ID })

	set, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	ids := set.Lineage(obs.ID)
	if want := []string{obs.ID, pat.ID, fail.ID}; !slices.Equal(ids, want) {
		t.Fatalf("lineage %v, want %v", ids, want)
	}
	if got := set.Lineage(pat.ID); !slices.Equal(got, []string{pat.ID, fail.ID}) {
		t.Errorf("lineage of the pattern %v: the observation it came from is not derived from it", got)
	}
	// The observation the pattern came from quotes the pattern; the
	// decision quotes the observation.
	if got := set.Quoting([]string{pat.ID, fail.ID}); !slices.Equal(got, sorted(obs.ID, quote.ID)) {
		t.Errorf("quoting the pattern: %v", got)
	}
	if got := set.Quoting(ids); !slices.Equal(got, []string{quote.ID}) {
		t.Errorf("quoting the lineage: %v, want %v", got, []string{quote.ID})
	}
	others := allVersions(t, s, ids)

	// A list that leaves out a derived record purges nothing.
	before := readShards(t, s)
	if _, err := s.Purge(obs.ID); err == nil || !strings.Contains(err.Error(), "nothing purged") {
		t.Errorf("purging without the derived records: %v", err)
	}
	if after := readShards(t, s); after != before {
		t.Errorf("a refused purge changed the shards")
	}

	purged, err := s.Purge(ids...)
	if err != nil {
		t.Fatal(err)
	}
	if len(purged) != 3 || purged[0].Versions != 2 || purged[1].Versions != 2 || purged[2].Versions != 1 {
		t.Errorf("purged %+v", purged)
	}
	all := readShards(t, s)
	if strings.Contains(strings.ReplaceAll(all, quote.Rationale, ""), "10.0.0.5") {
		t.Errorf("the text is still in a shard outside the quoting decision:\n%s", all)
	}
	after, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if h := after.History(id); len(h) != 1 || !h[0].Purged() {
			t.Errorf("%s: %d versions left, want its tombstone alone: %+v", id, len(h), h)
		}
	}
	if got := allVersions(t, s, nil); !slices.Equal(got, others) {
		t.Errorf("other records changed:\n got %q\nwant %q", got, others)
	}
}

// A revision made on another branch before the purge lives in that
// branch's own shard: the tombstone must keep it purged once merged, and
// purging again removes it.
func TestPurgeHoldsAgainstAVersionAMergeBringsBack(t *testing.T) {
	s := newTestStore(t)
	r := add(t, s, record.Decision, "the host is db-prod-7.corp", nil)
	elsewhere := r.Derive(r.Time.Add(time.Hour), record.Origin{Author: "B", Branch: "other"})
	elsewhere.Text = "internal host (renamed)"
	if _, err := s.Purge(r.ID); err != nil {
		t.Fatal(err)
	}
	// What the merge brings: the other branch's shard.
	line, _ := elsewhere.MarshalLine()
	other := filepath.Join(s.Dir, "journal", "2026-01", "other-0000000-merged.jsonl")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if cur := set.Current(); len(cur) != 0 {
		t.Errorf("the purged record is back: %+v", cur[0])
	}
	if got := set.Get(r.ID); got == nil || !got.Purged() {
		t.Errorf("newest version %+v, want the tombstone", got)
	}
	purged, err := s.Purge(r.ID)
	if err != nil || len(purged) != 1 || purged[0].Versions != 1 {
		t.Fatalf("purging again: %+v, %v", purged, err)
	}
	if data, _ := os.ReadFile(other); strings.Contains(string(data), "renamed") {
		t.Errorf("the version the merge brought back is still there: %s", data)
	}
}

func sorted(ids ...string) []string { slices.Sort(ids); return ids }

// readShards is every shard's content.
func readShards(t *testing.T, s *Store) string {
	t.Helper()
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, files)
}
