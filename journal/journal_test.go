package journal

import (
	"errors"
	"strings"
	"testing"

	"lore/record"
)

func TestDecisionLifecycle(t *testing.T) {
	r := &record.Record{Kind: record.Decision, Text: "Use JSONL", ID: "dec-a1b2c3d4000000000"}
	if err := Make(r, Options{Rationale: " append-only ", Alternatives: "SQLite"}); err != nil || r.Rationale != "append-only" {
		t.Fatalf("Make: %v %+v", err, r)
	}
	if got := Describe(r).String(); !strings.Contains(got, "Use JSONL -- append-only") || !strings.Contains(got, "Alternatives: SQLite") {
		t.Errorf("Describe: %q", got)
	}
	if err := Abandon(r); err != nil || r.Status != record.StatusAbandoned {
		t.Fatalf("Abandon: %v %q", err, r.Status)
	}
	if err := Abandon(r); !errors.Is(err, record.ErrUnchanged) {
		t.Errorf("a second Abandon: %v, want ErrUnchanged", err)
	}
	if !strings.Contains(Describe(r).Heading, ", abandoned)") {
		t.Errorf("an abandoned decision's heading: %q", Describe(r).Heading)
	}
	// Revising brings it back, keeps the rationale unless given a new one.
	if err := Revise("Use JSONL shards", "")(r); err != nil || r.Text != "Use JSONL shards" || r.Rationale != "append-only" || !r.Active() {
		t.Errorf("Revise: %v %+v", err, r)
	}
	if err := Revise("Use JSONL shards", "append-only")(r); !errors.Is(err, record.ErrUnchanged) {
		t.Errorf("a revision that changes nothing: %v", err)
	}
	if err := Revise("  ", "x")(r); !errors.Is(err, record.ErrEmptyText) {
		t.Errorf("an empty revision: %v", err)
	}
}

func TestCheckRefusesOtherKindsStatuses(t *testing.T) {
	for _, st := range []string{record.StatusDeprecated, record.StatusPromoted, "maybe"} {
		if err := Check(&record.Record{Kind: record.Decision, Status: st}); err == nil {
			t.Errorf("status %q accepted on a decision", st)
		}
	}
}
