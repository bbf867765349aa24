// Package patterns owns patterns and anti-patterns: lessons learned as a
// context and a solution with a confidence, what makes one valid, how one
// reads, and the lifecycle verbs: validate (it proved right again:
// confidence rises) and deprecate (it no longer applies). Patterns are
// stored as TOML tables because people edit and review them by hand.
package patterns

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"lore/record"
)

// DefaultConfidence is a new pattern's confidence when none is given, and
// the confidence of a pattern whose file gives none.
const DefaultConfidence = 0.7

// ValidateStep is how much one validation raises confidence.
const ValidateStep = 0.1

// Options are a pattern's own fields. A nil Confidence is the default.
type Options struct {
	Context    string
	Solution   string
	Anti       bool
	Confidence *float64
}

// ConfidenceError is a confidence outside 0..1.
type ConfidenceError struct{ Value float64 }

func (e *ConfidenceError) Error() string {
	return fmt.Sprintf("confidence %g is outside 0.0-1.0", e.Value)
}

// CheckConfidence accepts a confidence from 0 to 1.
func CheckConfidence(c float64) error {
	if c < 0 || c > 1 || math.IsNaN(c) {
		return &ConfidenceError{c}
	}
	return nil
}

// Make fills a new pattern's fields on r, an envelope of kind pattern.
func Make(r *record.Record, o Options) error {
	c := DefaultConfidence
	if o.Confidence != nil {
		c = *o.Confidence
	}
	r.Context = strings.TrimSpace(o.Context)
	r.Solution = strings.TrimSpace(o.Solution)
	r.Anti = o.Anti
	r.Confidence = &c
	return Check(r)
}

// Check is what every version of a pattern must satisfy, written or read:
// a hand-edited confidence = nan or 7 is reported, not ranked.
func Check(r *record.Record) error {
	if r.Confidence != nil {
		if err := CheckConfidence(*r.Confidence); err != nil {
			return &record.FieldError{Field: "confidence", Value: *r.Confidence, Want: "a pattern's confidence is 0.0-1.0"}
		}
	}
	if r.Validations < 0 {
		return &record.FieldError{Field: "validations", Value: r.Validations, Want: "a count is not negative"}
	}
	return record.StatusError(r, record.StatusActive, record.StatusDeprecated)
}

// Validate is the next version of a pattern that proved right again:
// confidence raised by ValidateStep, at most 1, and the validation counted.
// A pattern already at full confidence stays as it is.
func Validate(r *record.Record) error {
	if Confidence(r) >= 1 && r.Active() {
		return record.ErrUnchanged
	}
	Count(r, 1)
	r.Status = record.StatusActive
	return nil
}

// Count counts n more validations on r, as n validations one after the
// other would: confidence raised by ValidateStep each, at most 1. lore
// doctor --fix counts so the validations two clones made apart, which a
// merge keeps in two versions of which only the newer is served.
func Count(r *record.Record, n int) {
	c := math.Round(math.Min(Confidence(r)+float64(n)*ValidateStep, 1)*100) / 100
	r.Confidence = &c
	r.Validations += n
}

// Deprecate marks the next version of a pattern deprecated.
func Deprecate(r *record.Record) error {
	if r.Status == record.StatusDeprecated {
		return record.ErrUnchanged
	}
	r.Status = record.StatusDeprecated
	return nil
}

// Confidence is the pattern's confidence, or the default if unset.
func Confidence(r *record.Record) float64 {
	if r.Confidence == nil {
		return DefaultConfidence
	}
	return *r.Confidence
}

// ConfidenceText is how every view writes a confidence: to two places at
// most and without trailing zeros (0.95, 0.9), so a block, an export and
// lore show give the same figure.
func ConfidenceText(r *record.Record) string {
	return strconv.FormatFloat(math.Round(Confidence(r)*100)/100, 'f', -1, 64)
}

// Describe lays a pattern out for a context block:
//
//	[pattern] Safe bash arithmetic (confidence: 0.9) pat-a1b2c3d4
//	  Context: set -e scripts
//	  Solution: x=$((x+1))
func Describe(r *record.Record) record.Item {
	h := fmt.Sprintf("[pattern] %s (confidence: %s)", r.Text, ConfidenceText(r))
	if r.Anti {
		h = fmt.Sprintf("[pattern] %s (anti-pattern, confidence: %s)", r.Text, ConfidenceText(r))
	}
	if !r.Active() {
		h += " [" + r.Status + "]"
	}
	return record.Item{Heading: h + " " + r.Short(), Body: body(r)}
}

// Detail is the pattern's fields, one line each, for lore show.
func Detail(r *record.Record) []string {
	return append([]string{"Confidence: " + ConfidenceText(r)}, body(r)...)
}

func body(r *record.Record) []string {
	var out []string
	if r.Context != "" {
		out = append(out, "Context: "+r.Context)
	}
	if r.Solution != "" {
		label := "Solution: "
		if r.Anti {
			label = "Instead: "
		}
		out = append(out, label+r.Solution)
	}
	return out
}
