// Package journal owns decisions: capturing them with their rationale and
// the alternatives weighed, revising them (a new version of the same ID) and
// abandoning them, and how a decision reads in context.
package journal

import (
	"strings"

	"lore/lore"
)

// Options are a decision's optional fields.
type Options struct {
	Rationale    string
	Alternatives string
	Tags         []string
}

// Remember appends a new decision.
func Remember(s *lore.Store, text string, o Options) (*lore.Record, error) {
	r, err := s.New(lore.Decision, text, o.Tags)
	if err != nil {
		return nil, err
	}
	r.Rationale = strings.TrimSpace(o.Rationale)
	r.Alternatives = strings.TrimSpace(o.Alternatives)
	return r, s.Append(r)
}

// Revise appends a new version of a decision with new text, and a new
// rationale when one is given. Revising brings an abandoned decision back.
func Revise(s *lore.Store, ref, text, rationale string) (*lore.Record, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, lore.ErrEmptyText
	}
	return s.Update(lore.Decision, ref, func(r *lore.Record) error {
		r.Text = text
		if rationale = strings.TrimSpace(rationale); rationale != "" {
			r.Rationale = rationale
		}
		r.Status = lore.StatusActive
		return nil
	})
}

// Abandon appends a version that marks the decision abandoned.
func Abandon(s *lore.Store, ref string) (*lore.Record, error) {
	return s.Update(lore.Decision, ref, func(r *lore.Record) error {
		r.Status = lore.StatusAbandoned
		return nil
	})
}

// Body is the decision's detail, one line each, for display.
func Body(r *lore.Record) []string {
	var out []string
	if r.Rationale != "" {
		out = append(out, "Rationale: "+r.Rationale)
	}
	if r.Alternatives != "" {
		out = append(out, "Alternatives: "+r.Alternatives)
	}
	return out
}
