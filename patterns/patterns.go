// Package patterns owns patterns and anti-patterns: lessons learned as
// context and solution with a confidence, validated as they prove out and
// deprecated when they stop applying. They are stored as TOML tables
// because people edit and review them by hand.
package patterns

import (
	"fmt"
	"math"
	"strings"

	"lore/record"
	"lore/store"
)

// DefaultConfidence is a new pattern's confidence when none is given.
const DefaultConfidence = 0.7

// ValidateStep is how much one validation raises confidence.
const ValidateStep = 0.1

// Options are a pattern's optional fields.
type Options struct {
	Context    string
	Solution   string
	Anti       bool
	Confidence *float64
	Tags       []string
}

// ConfidenceError is a confidence outside 0..1.
type ConfidenceError struct{ Value float64 }

func (e *ConfidenceError) Error() string {
	return fmt.Sprintf("confidence %g is outside 0.0-1.0", e.Value)
}

// Learn appends a new pattern.
func Learn(s *store.Store, text string, o Options) (*record.Record, error) {
	c := DefaultConfidence
	if o.Confidence != nil {
		c = *o.Confidence
	}
	if c < 0 || c > 1 || math.IsNaN(c) {
		return nil, &ConfidenceError{c}
	}
	r, err := s.New(record.Pattern, text, o.Tags)
	if err != nil {
		return nil, err
	}
	r.Context = strings.TrimSpace(o.Context)
	r.Solution = strings.TrimSpace(o.Solution)
	r.Anti = o.Anti
	r.Confidence = &c
	return r, s.Append(r)
}

// Validate appends a version with confidence raised by ValidateStep (at
// most 1) and the validation counted.
func Validate(s *store.Store, ref string) (*record.Record, error) {
	return s.Update(record.Pattern, ref, func(r *record.Record) error {
		c := Confidence(r) + ValidateStep
		c = math.Round(math.Min(c, 1)*100) / 100
		r.Confidence = &c
		r.Validations++
		r.Status = record.StatusActive
		return nil
	})
}

// Deprecate appends a version that marks the pattern deprecated.
func Deprecate(s *store.Store, ref string) (*record.Record, error) {
	return s.Update(record.Pattern, ref, func(r *record.Record) error {
		r.Status = record.StatusDeprecated
		return nil
	})
}

// Confidence is the pattern's confidence, or the default if unset.
func Confidence(r *record.Record) float64 {
	if r.Confidence == nil {
		return DefaultConfidence
	}
	return *r.Confidence
}

// Heading is the pattern's title line detail: "(confidence: 0.9)", and
// "anti-pattern" when it says what not to do.
func Heading(r *record.Record) string {
	h := fmt.Sprintf("(confidence: %.1f)", Confidence(r))
	if r.Anti {
		h = "(anti-pattern, confidence: " + fmt.Sprintf("%.1f", Confidence(r)) + ")"
	}
	return h
}

// Body is the pattern's detail, one line each, for display.
func Body(r *record.Record) []string {
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
