package journal

import (
	"encoding/json"
	"errors"
	"slices"
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
	if err := Revise(Revision{Text: "Use JSONL shards"})(r); err != nil || r.Text != "Use JSONL shards" || r.Rationale != "append-only" || !r.Active() {
		t.Errorf("Revise: %v %+v", err, r)
	}
	if err := Revise(Revision{Text: "Use JSONL shards", Rationale: "append-only"})(r); !errors.Is(err, record.ErrUnchanged) {
		t.Errorf("a revision that changes nothing: %v", err)
	}
	if err := Revise(Revision{Text: "  ", Rationale: "x"})(r); !errors.Is(err, record.ErrEmptyText) {
		t.Errorf("an empty revision: %v", err)
	}
}

// Alternatives are kept unless given; given empty, they are cleared.
func TestReviseAlternatives(t *testing.T) {
	r := &record.Record{Kind: record.Decision, Text: "Use JSONL", Alternatives: "SQLite"}
	if err := Revise(Revision{Text: "Use JSONL shards"})(r); err != nil || r.Alternatives != "SQLite" {
		t.Fatalf("without alternatives: %v %q", err, r.Alternatives)
	}
	none := ""
	if err := Revise(Revision{Text: "Use JSONL shards", Alternatives: &none})(r); err != nil || r.Alternatives != "" {
		t.Fatalf("alternatives cleared: %v %q", err, r.Alternatives)
	}
	if err := Revise(Revision{Text: "Use JSONL shards", Alternatives: &none})(r); !errors.Is(err, record.ErrUnchanged) {
		t.Errorf("cleared again: %v, want ErrUnchanged", err)
	}
}

// A decision abandoned for another names it; the version it was derived
// from (which shares its map) does not change; a revision drops the link.
func TestAbandonFor(t *testing.T) {
	const old, successor = "dec-a1b2c3d4000000000", "dec-z9y8x7w6000000000"
	cur := &record.Record{Kind: record.Decision, Text: "Use JSONL", ID: old, Extra: map[string]any{"team": "infra"}}
	next := *cur
	if err := AbandonFor(successor)(&next); err != nil || SupersededBy(&next) != successor || next.Status != record.StatusAbandoned {
		t.Fatalf("AbandonFor: %v %+v", err, next)
	}
	if SupersededBy(cur) != "" {
		t.Errorf("the current version changed too: %v", cur.Extra)
	}
	if got := Describe(&next).Heading; !strings.Contains(got, ", abandoned for dec-z9y8x7w6)") {
		t.Errorf("heading %q does not name the successor", got)
	}
	if err := AbandonFor(successor)(&next); !errors.Is(err, record.ErrUnchanged) {
		t.Errorf("abandoned for the same again: %v", err)
	}
	if err := Abandon(&next); !errors.Is(err, record.ErrUnchanged) || SupersededBy(&next) != successor {
		t.Errorf("abandoned again without one: %v, link %q", err, SupersededBy(&next))
	}
	if err := AbandonFor(old)(&next); !errors.Is(err, ErrSelfSuccessor) {
		t.Errorf("abandoned for itself: %v", err)
	}
	// As read from a shard: raw JSON.
	next.Extra[SupersededByField] = json.RawMessage(`"` + successor + `"`)
	if SupersededBy(&next) != successor {
		t.Errorf("raw JSON link not read")
	}
	if err := Revise(Revision{Text: "Use JSONL again"})(&next); err != nil || SupersededBy(&next) != "" || next.Extra["team"] != "infra" {
		t.Errorf("a revision keeps the link or loses other fields: %v %v", err, next.Extra)
	}
	// An older lore's revision back to active copied the link along.
	next.Extra[SupersededByField] = successor
	if SupersededBy(&next) != "" || slices.ContainsFunc(Detail(&next), func(l string) bool { return strings.HasPrefix(l, "Abandoned for") }) {
		t.Errorf("an active decision names a successor: %q", Detail(&next))
	}
}

// A status of another kind is refused as such; one no kind has may be a
// newer lore's, and the error says so.
func TestCheckRefusesOtherKindsStatuses(t *testing.T) {
	for _, st := range []string{record.StatusDeprecated, record.StatusPromoted, "superseded"} {
		err := Check(&record.Record{Kind: record.Decision, Status: st})
		if err == nil {
			t.Errorf("status %q accepted on a decision", st)
			continue
		}
		if newer := strings.Contains(err.Error(), "upgrade lore"); newer != (st == "superseded") {
			t.Errorf("status %q: %v", st, err)
		}
	}
}
