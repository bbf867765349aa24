package transfer

import (
	"strings"
	"testing"
	"time"

	"lore/record"
)

func TestMakeKeepsNonEmptySteps(t *testing.T) {
	r := &record.Record{Kind: record.Handoff, Text: "Parser half done"}
	if err := Make(r, Options{Next: []string{" port the tests ", ""}, Blocked: []string{"  "}}); err != nil {
		t.Fatal(err)
	}
	if len(r.Next) != 1 || r.Next[0] != "port the tests" || r.Blocked != nil {
		t.Errorf("next %q blocked %q", r.Next, r.Blocked)
	}
	if got := Describe(r).String(); !strings.Contains(got, "Parser half done\n  Next: port the tests") {
		t.Errorf("Describe: %q", got)
	}
}

func TestLatestIsTheNewestActiveHandoff(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	old := &record.Record{Kind: record.Handoff, Created: day(1)}
	newer := &record.Record{Kind: record.Handoff, Created: day(3)}
	dec := &record.Record{Kind: record.Decision, Created: day(9)}
	if got := Latest([]*record.Record{old, dec, newer}); got != newer {
		t.Errorf("Latest = %+v", got)
	}
	if Latest([]*record.Record{dec}) != nil {
		t.Error("a decision taken for a handoff")
	}
	if err := Check(&record.Record{Kind: record.Handoff, Status: record.StatusDismissed}); err == nil {
		t.Error("a dismissed handoff passed the check")
	}
}
