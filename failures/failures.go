// Package failures owns failures: an error type, its message and the tool
// that hit it, what makes one valid, how one reads, and the triggers report
// that surfaces error types that keep recurring.
package failures

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"lore/record"
)

// PromotedErrorType is the error type of a failure promoted from an
// observation when the promotion names none.
const PromotedErrorType = "Observed"

// Options are a failure's own fields.
type Options struct {
	ErrorType string
	Tool      string
}

// ErrorTypeError is an error type that is empty or not one word.
type ErrorTypeError struct{ Value string }

func (e *ErrorTypeError) Error() string {
	if strings.TrimSpace(e.Value) == "" {
		return "error type is empty"
	}
	return fmt.Sprintf("error type %q must be one word, such as NonZeroExit or TypeError", e.Value)
}

// CheckErrorType accepts one word of letters, digits, '_', '-', '.', ':'.
func CheckErrorType(t string) error {
	if t == "" || strings.IndexFunc(t, func(c rune) bool {
		return !(unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune("_-.:", c))
	}) >= 0 {
		return &ErrorTypeError{t}
	}
	return nil
}

// CheckNewErrorType is CheckErrorType for a type given now, which also
// needs a letter or a digit: "-" or ":" names no error (lore fail - "msg"
// recorded the type "-"). What was written before is read as it is.
func CheckNewErrorType(t string) error {
	if err := CheckErrorType(t); err != nil {
		return err
	}
	if strings.IndexFunc(t, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) < 0 {
		return &ErrorTypeError{t}
	}
	return nil
}

// Make fills a new failure's fields on r, an envelope of kind failure.
func Make(r *record.Record, o Options) error {
	r.ErrorType = strings.TrimSpace(o.ErrorType)
	r.Tool = strings.TrimSpace(o.Tool)
	return Check(r)
}

// Check is what every version of a failure must satisfy, written or read.
func Check(r *record.Record) error {
	if err := CheckErrorType(r.ErrorType); err != nil {
		return &record.FieldError{Field: "error_type", Value: r.ErrorType, Want: err.Error()}
	}
	return record.StatusError(r, record.StatusActive)
}

// Describe lays a failure out for a context block:
//
//	[failure] fail-d5hfrswv (2026-08-11, tool: Bash)
//	  NonZeroExit: deploy.sh fails when DEPLOY_ENV is unset
func Describe(r *record.Record) record.Item {
	extra := ""
	if r.Tool != "" {
		extra = ", tool: " + r.Tool
	}
	if !r.Active() {
		extra += ", " + r.Status
	}
	return record.Item{Heading: fmt.Sprintf("[failure] %s (%s%s)", r.Short(), r.Created.Format("2006-01-02"), extra), Body: []string{r.ErrorType + ": " + r.Text}}
}

// Detail is the failure's fields, one line each, for lore show.
func Detail(r *record.Record) []string {
	out := []string{"Error type: " + r.ErrorType}
	if r.Tool != "" {
		out = append(out, "Tool: "+r.Tool)
	}
	return out
}

// Occurrence is one active failure, as the triggers report counts it.
type Occurrence struct {
	ID        string // "" leaves it out of Trigger.IDs
	ErrorType string
	Tool      string
	Created   time.Time
}

// Trigger is an error type seen repeatedly.
type Trigger struct {
	ErrorType string    `json:"error_type"`
	Count     int       `json:"count"`
	Last      time.Time `json:"last"`
	Tools     []string  `json:"tools,omitempty"`
	IDs       []string  `json:"ids"`
	Example   string    `json:"example"` // the latest message
	latest    int
}

// Triggers returns the error types with at least min of the failures seen,
// most frequent first. message(i) gives failure i's message, asked only for
// the latest failure of each type reported.
func Triggers(seen iter.Seq2[int, Occurrence], min int, message func(i int) string) []Trigger {
	// Error types are named by whoever records the failure: Timeout and
	// timeout are one type, shown as most recently spelled. The failures
	// are grouped by spelling first, which costs no new string per failure
	// (a store holds tens of thousands), and the spellings then merged.
	spelled := map[string]*Trigger{}
	for i, f := range seen {
		t := spelled[f.ErrorType]
		if t == nil {
			t = &Trigger{latest: -1}
			spelled[f.ErrorType] = t
		}
		t.Count++
		if f.ID != "" {
			t.IDs = append(t.IDs, f.ID)
		}
		if t.latest < 0 || f.Created.After(t.Last) {
			t.Last, t.latest, t.ErrorType = f.Created, i, f.ErrorType
		}
		if f.Tool != "" && !slices.Contains(t.Tools, f.Tool) {
			t.Tools = append(t.Tools, f.Tool)
		}
	}
	by := map[string]*Trigger{}
	for _, t := range spelled {
		key := strings.ToLower(t.ErrorType)
		g := by[key]
		if g == nil {
			by[key] = t
			continue
		}
		// The latest failure names the type; of two at the same time, the
		// one seen first, as when each failure is offered in turn.
		if t.Last.After(g.Last) || t.Last.Equal(g.Last) && t.latest < g.latest {
			g.Last, g.latest, g.ErrorType = t.Last, t.latest, t.ErrorType
		}
		g.Count += t.Count
		g.IDs = append(g.IDs, t.IDs...)
		for _, tool := range t.Tools {
			if !slices.Contains(g.Tools, tool) {
				g.Tools = append(g.Tools, tool)
			}
		}
	}
	var out []Trigger
	for _, t := range by {
		if t.Count >= min {
			sort.Strings(t.Tools)
			sort.Strings(t.IDs)
			t.Example = message(t.latest)
			out = append(out, *t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Last.After(out[j].Last)
	})
	return out
}
