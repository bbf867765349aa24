// Package inbox owns observations: raw notes captured without deciding what
// they are, triaged later by promoting them to a decision, pattern or
// failure, or by dismissing them.
package inbox

import (
	"fmt"

	"lore/record"
	"lore/store"
)

// Observe appends a new observation.
func Observe(s *store.Store, text string, tags []string) (*record.Record, error) {
	r, err := s.New(record.Observation, text, tags)
	if err != nil {
		return nil, err
	}
	return r, s.Append(r)
}

// PromoteOptions say what the observation becomes.
type PromoteOptions struct {
	To        record.Kind
	ErrorType string // for a failure; "Observed" if empty
}

// Promote creates a record of kind o.To from the observation ref names and
// appends a version of the observation marked promoted, pointing at it. It
// returns the new record.
func Promote(s *store.Store, ref string, o PromoteOptions) (*record.Record, error) {
	switch o.To {
	case record.Decision, record.Pattern, record.Failure:
	default:
		return nil, fmt.Errorf("cannot promote to %q (want decision, pattern or failure)", o.To)
	}
	var made *record.Record
	err := s.Transact(func(tx *store.Tx) error {
		obs, err := tx.Current(record.Observation, ref)
		if err != nil {
			return err
		}
		if obs.Status == record.StatusPromoted {
			return fmt.Errorf("%s was already promoted to %s", obs.Short(), record.ShortID(obs.PromotedTo))
		}
		if made, err = s.New(o.To, obs.Text, obs.Tags); err != nil {
			return err
		}
		made.From = obs.ID
		if o.To == record.Failure {
			made.ErrorType = o.ErrorType
			if made.ErrorType == "" {
				made.ErrorType = "Observed"
			}
		}
		if o.To == record.Pattern {
			c := 0.5
			made.Confidence = &c
		}
		// The new record first: a crash between the two writes leaves the
		// observation unpromoted, never a promotion pointing nowhere.
		if err := tx.Append(made); err != nil {
			return err
		}
		next := tx.Next(obs)
		next.Status = record.StatusPromoted
		next.PromotedTo = made.ID
		return tx.Append(next)
	})
	if err != nil {
		return nil, err
	}
	return made, nil
}

// Dismiss appends a version of the observation marked dismissed.
func Dismiss(s *store.Store, ref string) (*record.Record, error) {
	return s.Update(record.Observation, ref, func(r *record.Record) error {
		r.Status = record.StatusDismissed
		return nil
	})
}
