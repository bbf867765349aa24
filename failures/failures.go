// Package failures owns failures: an error type, its message and the tool
// that hit it, and the triggers report that surfaces error types that keep
// recurring.
package failures

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"lore/index"
	"lore/record"
	"lore/store"
)

// Options are a failure's optional fields.
type Options struct {
	Tool string
	Tags []string
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

// Fail appends a new failure.
func Fail(s *store.Store, errorType, message string, o Options) (*record.Record, error) {
	errorType = strings.TrimSpace(errorType)
	if err := CheckErrorType(errorType); err != nil {
		return nil, err
	}
	r, err := s.New(record.Failure, message, o.Tags)
	if err != nil {
		return nil, err
	}
	r.ErrorType = errorType
	r.Tool = strings.TrimSpace(o.Tool)
	return r, s.Append(r)
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

// Recurring is Triggers over the snapshot's current records, decoding
// only the active failures.
func Recurring(snap *index.Snapshot, min int) []Trigger {
	docs := func(yield func(int, index.Doc) bool) {
		for i := range snap.Len() {
			if !snap.Current(i) {
				continue
			}
			if kind, status := snap.KindStatus(i); kind == record.Failure && status == record.StatusActive {
				if !yield(i, snap.Doc(i)) {
					return
				}
			}
		}
	}
	return Triggers(docs, min, func(i int) string { return snap.Record(i).Text })
}

// Triggers returns the error types with at least min failures among docs,
// most frequent first. message(i) gives doc i's message, asked only for the
// latest failure of each type reported.
func Triggers(docs iter.Seq2[int, index.Doc], min int, message func(i int) string) []Trigger {
	by := map[string]*Trigger{}
	for i, d := range docs {
		if d.Kind != record.Failure || d.Status != record.StatusActive {
			continue
		}
		t := by[d.ErrorType]
		if t == nil {
			t = &Trigger{ErrorType: d.ErrorType, latest: -1}
			by[d.ErrorType] = t
		}
		t.Count++
		t.IDs = append(t.IDs, d.ID)
		if created := time.Unix(0, d.Created).UTC(); t.latest < 0 || created.After(t.Last) {
			t.Last, t.latest = created, i
		}
		if d.Tool != "" && !slices.Contains(t.Tools, d.Tool) {
			t.Tools = append(t.Tools, d.Tool)
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

// Heading is the failure's detail for its title line: "(tool: Bash)".
func Heading(r *record.Record) string {
	if r.Tool == "" {
		return ""
	}
	return "tool: " + r.Tool
}
