package inject

import (
	"fmt"
	"strings"

	"lore/failures"
	"lore/journal"
	"lore/patterns"
	"lore/record"
	"lore/transfer"
)

// Item is how a record reads in context: a heading and detail lines.
//
//	[pattern] Safe bash arithmetic (confidence: 0.9)
//	  Context: set -e scripts
//	[decision] dec-a1b2c3d4 (2026-02-10)
//	  Use JSONL for storage -- append-only, simple, grep-friendly
type Item struct {
	Heading string
	Body    []string
}

// Describe lays a record out the way the spec's context block shows it.
func Describe(r *record.Record) Item {
	date := r.Created.Format("2006-01-02")
	status := ""
	if r.Status != record.StatusActive {
		status = ", " + r.Status
	}
	switch r.Kind {
	case record.Pattern:
		h := fmt.Sprintf("[pattern] %s %s", r.Text, patterns.Heading(r))
		if status != "" {
			h += " [" + r.Status + "]"
		}
		return Item{h + " " + r.Short(), patterns.Body(r)}
	case record.Decision:
		line := r.Text
		if r.Rationale != "" {
			line += " -- " + r.Rationale
		}
		body := []string{line}
		if r.Alternatives != "" {
			body = append(body, "Alternatives: "+r.Alternatives)
		}
		return Item{fmt.Sprintf("[decision] %s (%s%s)", r.Short(), date, status), body}
	case record.Failure:
		extra := ""
		if t := failures.Heading(r); t != "" {
			extra = ", " + t
		}
		return Item{fmt.Sprintf("[failure] %s (%s%s%s)", r.Short(), date, extra, status), []string{r.ErrorType + ": " + r.Text}}
	case record.Handoff:
		return Item{fmt.Sprintf("[handoff] %s (%s%s)", r.Short(), date, status), append([]string{r.Text}, transfer.Body(r)...)}
	default:
		return Item{fmt.Sprintf("[observation] %s (%s%s)", r.Short(), date, status), []string{r.Text}}
	}
}

// Summary is the one-line form used when the budget runs short:
// "[decision] dec-a1b2c3d4 Use JSONL for storage".
func Summary(r *record.Record) string {
	return OneLine(fmt.Sprintf("[%s] %s %s", r.Kind, r.Short(), r.Title()))
}

// DetailLines is the record's full detail for lore show.
func DetailLines(r *record.Record) []string {
	switch r.Kind {
	case record.Decision:
		return journal.Body(r)
	case record.Pattern:
		return append([]string{fmt.Sprintf("Confidence: %.2f", patterns.Confidence(r))}, patterns.Body(r)...)
	case record.Failure:
		if r.Tool != "" {
			return []string{"Error type: " + r.ErrorType, "Tool: " + r.Tool}
		}
		return []string{"Error type: " + r.ErrorType}
	case record.Handoff:
		return transfer.Body(r)
	}
	return nil
}

// String renders an item with two-space indented detail.
func (it Item) String() string {
	var b strings.Builder
	b.WriteString(OneLine(it.Heading))
	for _, l := range it.Body {
		b.WriteString("\n  ")
		b.WriteString(OneLine(l))
	}
	return b.String()
}

// OneLine folds a field's whitespace, newlines included, so record text
// cannot lay out lines of its own in a block or a listing.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
