// Package journal owns decisions: capturing them with their rationale and
// the alternatives weighed, revising them (a new version of the same ID) and
// abandoning them, and how a decision reads in context.
package journal

import (
	"strings"

	"lore/record"
	"lore/store"
)

// Options are a decision's optional fields.
type Options struct {
	Rationale    string
	Alternatives string
	Tags         []string
}

// Remember appends a new decision.
func Remember(s *store.Store, text string, o Options) (*record.Record, error) {
	r, err := s.New(record.Decision, text, o.Tags)
	if err != nil {
		return nil, err
	}
	r.Rationale = strings.TrimSpace(o.Rationale)
	r.Alternatives = strings.TrimSpace(o.Alternatives)
	return r, s.Append(r)
}

// Revise appends a new version of a decision with new text, and a new
// rationale when one is given. Revising brings an abandoned decision back.
func Revise(s *store.Store, ref, text, rationale string) (*record.Record, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, store.ErrEmptyText
	}
	return s.Update(record.Decision, ref, func(r *record.Record) error {
		r.Text = text
		if rationale = strings.TrimSpace(rationale); rationale != "" {
			r.Rationale = rationale
		}
		r.Status = record.StatusActive
		return nil
	})
}

// Abandon appends a version that marks the decision abandoned.
func Abandon(s *store.Store, ref string) (*record.Record, error) {
	return s.Update(record.Decision, ref, func(r *record.Record) error {
		r.Status = record.StatusAbandoned
		return nil
	})
}

// Body is the decision's detail, one line each, for display.
func Body(r *record.Record) []string {
	var out []string
	if r.Rationale != "" {
		out = append(out, "Rationale: "+r.Rationale)
	}
	if r.Alternatives != "" {
		out = append(out, "Alternatives: "+r.Alternatives)
	}
	return out
}
