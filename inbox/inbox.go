// Package inbox owns observations: raw notes captured without deciding what
// they are, what makes one valid, how one reads, and their triage: promoted
// to a decision, pattern or failure (made by that kind's own package), or
// dismissed.
package inbox

import (
	"fmt"

	"lore/record"
)

// Check is what every version of an observation must satisfy, written or
// read: a promoted one names the record it became.
func Check(r *record.Record) error {
	if err := record.StatusError(r, record.StatusActive, record.StatusPromoted, record.StatusDismissed); err != nil {
		return err
	}
	if r.Status == record.StatusPromoted {
		if k, ok := record.KindOfID(r.PromotedTo); !ok || k == record.Observation || !record.ValidID(r.PromotedTo) {
			return &record.FieldError{Field: "promoted_to", Value: r.PromotedTo, Want: "a promoted observation names the decision, pattern or failure it became"}
		}
	}
	return nil
}

// CanPromoteTo says whether an observation can become a record of kind k.
func CanPromoteTo(k record.Kind) error {
	switch k {
	case record.Decision, record.Pattern, record.Failure:
		return nil
	}
	return fmt.Errorf("cannot promote to %q (want decision, pattern or failure)", k)
}

// Promoted marks next, the observation's next version, as promoted to the
// record made from it. An observation is promoted once.
func Promoted(next *record.Record, made string) error {
	if next.Status == record.StatusPromoted {
		return fmt.Errorf("%s was already promoted to %s", next.Short(), record.ShortID(next.PromotedTo))
	}
	next.Status, next.PromotedTo = record.StatusPromoted, made
	return nil
}

// Dismiss marks the next version of an observation dismissed. A promoted
// one is the record it became now: that one is what to retire.
func Dismiss(r *record.Record) error {
	switch r.Status {
	case record.StatusDismissed:
		return record.ErrUnchanged
	case record.StatusPromoted:
		return &PromotedError{Obs: r.Short(), To: r.PromotedTo}
	}
	r.Status = record.StatusDismissed
	return nil
}

// PromotedError refuses to dismiss an observation promoted to record To,
// which holds it now; Purged says To was purged since, which leaves the
// observation, with the same text, as the one to forget.
type PromotedError struct {
	Obs, To string
	Purged  bool
}

func (e *PromotedError) Error() string {
	to := record.ShortID(e.To)
	if e.Purged {
		return fmt.Sprintf("%s was promoted to %s, which was purged since; the observation holds the same text: lore forget %s --purge", e.Obs, to, e.Obs)
	}
	retire := "retire that record instead"
	switch k, _ := record.KindOfID(e.To); k {
	case record.Decision:
		retire += " (lore journal abandon " + to + ")"
	case record.Pattern:
		retire += " (lore patterns deprecate " + to + ")"
	case record.Failure:
		retire = "a failure stays as history; if it was recorded by mistake, lore forget " + to + " --purge"
	}
	return fmt.Sprintf("%s was promoted to %s, which holds it now: %s", e.Obs, to, retire)
}

// Describe lays an observation out for a context block.
func Describe(r *record.Record) record.Item {
	status := ""
	if !r.Active() {
		status = ", " + r.Status
	}
	return record.Item{Heading: fmt.Sprintf("[observation] %s (%s%s)", r.Short(), r.Created.Format("2006-01-02"), status), Body: []string{r.Text}}
}
