// Package journal owns decisions: their fields (the rationale and the
// alternatives weighed), what makes one valid, how one reads, and the
// lifecycle verbs that derive a new version: revise (new text, maybe a new
// rationale or alternatives; an abandoned decision comes back) and abandon
// (maybe for the decision that replaces it).
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"lore/record"
)

// Options are a decision's own fields.
type Options struct {
	Rationale    string
	Alternatives string
}

// Make fills a new decision's fields on r, an envelope of kind decision.
func Make(r *record.Record, o Options) error {
	r.Rationale = strings.TrimSpace(o.Rationale)
	r.Alternatives = strings.TrimSpace(o.Alternatives)
	return Check(r)
}

// Check is what every version of a decision must satisfy, written or read.
func Check(r *record.Record) error {
	return record.StatusError(r, record.StatusActive, record.StatusAbandoned)
}

// Revision is what lore journal revise says: new text, and a new
// rationale and alternatives when given.
type Revision struct {
	Text      string
	Rationale string // "": the current one is kept
	// Alternatives: nil keeps the current ones, "" clears them (the
	// options weighed then may no longer be the ones that matter).
	Alternatives *string
}

// Revise is the change to the next version of a decision: v's text, and
// its rationale and alternatives when given; a revised decision is active
// again, and no longer names a successor.
func Revise(v Revision) func(r *record.Record) error {
	return func(r *record.Record) error {
		text, rationale, alternatives := strings.TrimSpace(v.Text), strings.TrimSpace(v.Rationale), r.Alternatives
		if text == "" {
			return record.ErrEmptyText
		}
		if rationale == "" {
			rationale = r.Rationale
		}
		if v.Alternatives != nil {
			alternatives = strings.TrimSpace(*v.Alternatives)
		}
		if r.Text == text && r.Rationale == rationale && r.Alternatives == alternatives && r.Active() {
			return record.ErrUnchanged
		}
		r.Text, r.Rationale, r.Alternatives, r.Status = text, rationale, alternatives, record.StatusActive
		setSupersededBy(r, "")
		return nil
	}
}

// Abandon marks the next version of a decision abandoned.
func Abandon(r *record.Record) error { return AbandonFor("")(r) }

// AbandonFor marks the next version of a decision abandoned for successor
// (a decision's full ID), the decision that replaces it, or for none
// (""). An abandoned decision can be given its successor later; without
// one, it keeps the one it names.
func AbandonFor(successor string) func(r *record.Record) error {
	return func(r *record.Record) error {
		if successor == r.ID {
			return ErrSelfSuccessor
		}
		if r.Status == record.StatusAbandoned && (successor == "" || successor == SupersededBy(r)) {
			return record.ErrUnchanged
		}
		r.Status = record.StatusAbandoned
		if successor != "" {
			setSupersededBy(r, successor)
		}
		return nil
	}
}

// ErrSelfSuccessor refuses a decision abandoned for itself.
var ErrSelfSuccessor = errors.New("a decision cannot be abandoned for itself")

// SupersededByField is the stored field in which an abandoned decision
// names the decision that replaces it. It is kept among the fields the
// record model carries as it finds them (Record.Extra), not as a field of
// its own: every reader, writer and the index already keep those, and
// lores that predate it keep it too, where a new field would have to be
// taught to each. On disk it reads as any field does
// ("superseded_by":"dec-…"), so a later build can make it one with
// nothing to migrate.
const SupersededByField = "superseded_by"

// SupersededBy is the ID of the decision that replaced r, or "". Read
// from a shard the field is raw JSON; from the index, a string. Only an
// abandoned decision has one: older lores revise an abandoned decision
// back to active with the field copied along.
func SupersededBy(r *record.Record) string {
	if r.Status != record.StatusAbandoned {
		return ""
	}
	switch v := r.Extra[SupersededByField].(type) {
	case string:
		return v
	case json.RawMessage:
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return ""
}

// setSupersededBy names id as r's successor ("": none). The map is
// copied first: a version derived from another shares its map.
func setSupersededBy(r *record.Record, id string) {
	if id == "" && r.Extra[SupersededByField] == nil {
		return
	}
	r.Extra = maps.Clone(r.Extra)
	if id == "" {
		delete(r.Extra, SupersededByField)
		return
	}
	if r.Extra == nil {
		r.Extra = map[string]any{}
	}
	r.Extra[SupersededByField] = id
}

// Describe lays a decision out for a context block:
//
//	[decision] dec-a1b2c3d4 (2026-02-10)
//	  Use JSONL for storage -- append-only, simple, grep-friendly
func Describe(r *record.Record) record.Item {
	line := r.Text
	if r.Rationale != "" {
		line += " -- " + r.Rationale
	}
	body := []string{line}
	if r.Alternatives != "" {
		body = append(body, "Alternatives: "+r.Alternatives)
	}
	return record.Item{Heading: fmt.Sprintf("[decision] %s (%s%s)", r.Short(), r.Created.Format("2006-01-02"), statusNote(r)), Body: body}
}

// Detail is the decision's fields, one line each, for lore show.
func Detail(r *record.Record) []string {
	var out []string
	if r.Rationale != "" {
		out = append(out, "Rationale: "+r.Rationale)
	}
	if r.Alternatives != "" {
		out = append(out, "Alternatives: "+r.Alternatives)
	}
	if to := SupersededBy(r); to != "" {
		out = append(out, "Abandoned for: "+record.ShortID(to))
	}
	return out
}

// statusNote ends a decision's heading: its status, and the decision that
// replaced it, which an agent reading the abandoned one should follow.
func statusNote(r *record.Record) string {
	if r.Active() {
		return ""
	}
	if to := SupersededBy(r); to != "" && r.Status == record.StatusAbandoned {
		return ", " + r.Status + " for " + record.ShortID(to)
	}
	return ", " + r.Status
}
