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
		to := record.ShortID(r.PromotedTo)
		retire := "retire that record instead"
		switch k, _ := record.KindOfID(r.PromotedTo); k {
		case record.Decision:
			retire += " (lore journal abandon " + to + ")"
		case record.Pattern:
			retire += " (lore patterns deprecate " + to + ")"
		case record.Failure:
			retire = "a failure stays as history; if it was recorded by mistake, lore forget " + to + " --purge"
		}
		return fmt.Errorf("%s was promoted to %s, which holds it now: %s", r.Short(), to, retire)
	}
	r.Status = record.StatusDismissed
	return nil
}

// Describe lays an observation out for a context block.
func Describe(r *record.Record) record.Item {
	status := ""
	if !r.Active() {
		status = ", " + r.Status
	}
	return record.Item{Heading: fmt.Sprintf("[observation] %s (%s%s)", r.Short(), r.Created.Format("2006-01-02"), status), Body: []string{r.Text}}
}
