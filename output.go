package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"lore/record"
)

// recordJSON is a record as read commands print it with --json: every
// stored field (unknown ones too) plus the short ID.
func recordJSON(r *record.Record) json.RawMessage {
	line, err := r.MarshalLine()
	if err != nil {
		return json.RawMessage(`null`)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return json.RawMessage(line)
	}
	m["short"], _ = json.Marshal(r.Short())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	return bytes.TrimSpace(buf.Bytes())
}

func recordsJSON(rs []*record.Record) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(rs))
	for _, r := range rs {
		out = append(out, recordJSON(r))
	}
	return out
}

// printJSON writes v as indented JSON to stdout.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// color reports whether stdout takes ANSI colour: a terminal, NO_COLOR unset.
func (e *env) color() bool {
	if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	w := e.stdout
	if o, ok := w.(*outputWriter); ok {
		w = o.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

var kindColors = map[record.Kind]string{
	record.Pattern: "32", record.Decision: "34", record.Failure: "31", record.Handoff: "35", record.Observation: "33",
}

// paint colours s for kind k when colour is on.
func (e *env) paint(k record.Kind, s string) string {
	if !e.color() {
		return s
	}
	return fmt.Sprintf("\x1b[%sm%s\x1b[0m", kindColors[k], s)
}

// listLine is a record on one line: short ID, date, kind, headline, status.
// What comes from the record goes through termSafe; the kind is one lore
// knows (a record's kind must match its ID) and keeps lore's own colour.
func (e *env) listLine(r *record.Record) string {
	status := ""
	if r.Anti {
		// Listed bare, an anti-pattern reads as advice to follow.
		status = " [anti-pattern]"
	}
	if r.Status != record.StatusActive {
		status += " [" + termSafe(record.OneLine(r.Status)) + "]"
	}
	// The kind is padded before it is painted: the escape codes take no
	// room on the screen.
	return fmt.Sprintf("%-13s %s  %s %s%s", termSafe(r.Short()), r.Created.Format("2006-01-02"),
		e.paint(r.Kind, fmt.Sprintf("%-11s", r.Kind)), termSafe(record.CutText(r.Title(), maxListTitle)), status)
}

// maxListTitle bounds a headline in a one-line listing (list, search): a
// record can hold a pasted log; lore show prints it whole.
const maxListTitle = 200
