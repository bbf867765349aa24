// Package inbox owns observations: raw notes captured without deciding what
// they are, triaged later by promoting them to a decision, pattern or
// failure, or by dismissing them.
package inbox

import (
	"fmt"

	"lore/lore"
)

// Observe appends a new observation.
func Observe(s *lore.Store, text string, tags []string) (*lore.Record, error) {
	r, err := s.New(lore.Observation, text, tags)
	if err != nil {
		return nil, err
	}
	return r, s.Append(r)
}

// PromoteOptions say what the observation becomes.
type PromoteOptions struct {
	To        lore.Kind
	ErrorType string // for a failure; "Observed" if empty
}

// Promote creates a record of kind o.To from the observation ref names and
// appends a version of the observation marked promoted, pointing at it. It
// returns the new record.
func Promote(s *lore.Store, ref string, o PromoteOptions) (*lore.Record, error) {
	switch o.To {
	case lore.Decision, lore.Pattern, lore.Failure:
	default:
		return nil, fmt.Errorf("cannot promote to %q (want decision, pattern or failure)", o.To)
	}
	set, err := s.Load(lore.Observation)
	if err != nil {
		return nil, err
	}
	id, err := set.Resolve(ref)
	if err != nil {
		return nil, err
	}
	obs := set.Get(id)
	if obs.Status == lore.StatusPromoted {
		return nil, fmt.Errorf("%s was already promoted to %s", obs.Short(), lore.ShortID(obs.PromotedTo))
	}
	made, err := s.New(o.To, obs.Text, obs.Tags)
	if err != nil {
		return nil, err
	}
	made.From = obs.ID
	if o.To == lore.Failure {
		made.ErrorType = o.ErrorType
		if made.ErrorType == "" {
			made.ErrorType = "Observed"
		}
	}
	if o.To == lore.Pattern {
		c := 0.5
		made.Confidence = &c
	}
	if err := s.Append(made); err != nil {
		return nil, err
	}
	_, err = s.Update(lore.Observation, id, func(r *lore.Record) error {
		r.Status = lore.StatusPromoted
		r.PromotedTo = made.ID
		return nil
	})
	return made, err
}

// Dismiss appends a version of the observation marked dismissed.
func Dismiss(s *lore.Store, ref string) (*lore.Record, error) {
	return s.Update(lore.Observation, ref, func(r *lore.Record) error {
		r.Status = lore.StatusDismissed
		return nil
	})
}
