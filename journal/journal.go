// Package journal owns decisions: their fields (the rationale and the
// alternatives weighed), what makes one valid, how one reads, and the
// lifecycle verbs that derive a new version: revise (new text, maybe a new
// rationale; an abandoned decision comes back) and abandon.
package journal

import (
	"fmt"
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

// Revise is the change to the next version of a decision: new text, and a
// new rationale when one is given; a revised decision is active again.
func Revise(text, rationale string) func(r *record.Record) error {
	return func(r *record.Record) error {
		text, rationale = strings.TrimSpace(text), strings.TrimSpace(rationale)
		if text == "" {
			return record.ErrEmptyText
		}
		if rationale == "" {
			rationale = r.Rationale
		}
		if r.Text == text && r.Rationale == rationale && r.Active() {
			return record.ErrUnchanged
		}
		r.Text, r.Rationale, r.Status = text, rationale, record.StatusActive
		return nil
	}
}

// Abandon marks the next version of a decision abandoned.
func Abandon(r *record.Record) error {
	if r.Status == record.StatusAbandoned {
		return record.ErrUnchanged
	}
	r.Status = record.StatusAbandoned
	return nil
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
	return out
}

func statusNote(r *record.Record) string {
	if r.Active() {
		return ""
	}
	return ", " + r.Status
}
