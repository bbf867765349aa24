package record

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Item is how a record reads in context, as its kind package lays it out:
// a heading and detail lines.
//
//	[pattern] Safe bash arithmetic (confidence: 0.9) pat-a1b2c3d4
//	  Context: set -e scripts
//	[decision] dec-a1b2c3d4 (2026-02-10)
//	  Use JSONL for storage -- append-only, simple, grep-friendly
type Item struct {
	Heading string
	Body    []string
}

// String renders an item with two-space indented detail, each field folded
// onto one line.
func (it Item) String() string {
	var b strings.Builder
	b.WriteString(OneLine(it.Heading))
	for _, l := range it.Body {
		b.WriteString("\n  ")
		b.WriteString(OneLine(l))
	}
	return b.String()
}

// Noted adds a short note to the heading: inside its closing parentheses
// when it ends with some ("(2026-03-02; invoice.go changed since)"),
// else in its own.
func (it Item) Noted(note string) Item {
	if note == "" {
		return it
	}
	if h, ok := strings.CutSuffix(it.Heading, ")"); ok {
		it.Heading = h + "; " + note + ")"
	} else {
		it.Heading += " (" + note + ")"
	}
	return it
}

// OneLine folds a field's whitespace, newlines included, so record text
// cannot lay out lines of its own in a block or a listing.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ErrEmptyText is a record with nothing to say.
var ErrEmptyText = errors.New("text is empty")

// ErrUnchanged is a lifecycle verb's answer when the record is already in
// the state it asks for: nothing is written.
var ErrUnchanged = errors.New("already so")

// StatusError is a status the record's kind does not have.
func StatusError(r *Record, allowed ...string) error {
	for _, s := range allowed {
		if r.Status == s {
			return nil
		}
	}
	want := make([]string, 0, len(allowed))
	for _, s := range allowed {
		if s == StatusActive {
			s = "none"
		}
		want = append(want, s)
	}
	msg := "a " + string(r.Kind) + "'s status is " + strings.Join(want, " or ")
	if !slices.Contains(knownStatuses, r.Status) {
		// Not a typo of one kind's status for another's: most likely a
		// status added since, which this lore cannot weigh.
		msg += " (this lore knows no such status: if a newer lore wrote it, upgrade lore)"
	}
	return &FieldError{"status", r.Status, msg}
}

// knownStatuses are the statuses of every kind this lore reads.
var knownStatuses = []string{StatusActive, StatusAbandoned, StatusDeprecated, StatusPromoted, StatusDismissed, StatusPurged}

// FieldError is a field whose value its kind does not accept.
type FieldError struct {
	Field string
	Value any
	Want  string
}

func (e *FieldError) Error() string {
	v := fmt.Sprint(e.Value)
	if s, ok := e.Value.(string); ok {
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		v = strconv.Quote(s)
	}
	return fmt.Sprintf("field %q is %s: %s", e.Field, v, e.Want)
}
