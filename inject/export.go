package inject

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"lore/failures"
	"lore/index"
	"lore/patterns"
	"lore/record"
	"lore/secrets"
)

// Markers around lore's section in a file such as AGENTS.md or CLAUDE.md:
// lore export --out rewrites only what is between them.
const (
	SectionBegin = "<!-- lore:begin (written by lore export; edits between these markers are replaced) -->"
	SectionEnd   = "<!-- lore:end -->"
)

// ExportOptions shape an export.
type ExportOptions struct {
	BudgetTokens int
	Section      bool      // wrap in SectionBegin/SectionEnd, for AGENTS.md
	Now          time.Time // the date of an empty store's export
	Teach        bool      // end with how to record (config [loop] teach)
	From         string    // the store's directory as the reader knows it, such as .lore
}

// ExportMinBudget is the smallest export budget, in tokens: it holds the
// head, lore's markers, the closing line and where the last session left
// off, cut.
const ExportMinBudget = 128

// ExportTitle opens every export (a file that holds one has it), and
// exportedLine follows it (the store's directory, the date of its newest
// version, so that a memory that did not change exports the same text
// every day: a CI check that the committed export is current, or a hook
// that rewrites it, saw a new date each day): ExportForeignLine reads a
// file by them. An older lore wrote "on" the day of the export.
const (
	ExportTitle     = "## Project memory (lore)"
	exportedLine    = "Exported from %s/ as of %s. Run `lore resume` for the live view, `lore show <id>` for a record."
	oldExportedLine = "Exported from %s/ on %s. Run `lore resume` for the live view, `lore show <id>` for a record."
)

// Export renders the memory as Markdown for agents without hooks: where
// the last session left off, then the most valuable records (trusted
// patterns, live decisions, recurring failures), taken in turn while they
// fit the budget. The export goes into a committed file such as AGENTS.md,
// so every record text in it is scrubbed as a capture scrubs it (a secret
// hand-edited into a shard, which doctor reports, is not copied); the
// findings are what was redacted from the text returned.
func Export(snap *index.Snapshot, v *Resume, o ExportOptions) (string, []secrets.Finding) {
	budget := BudgetChars(o.BudgetTokens)
	var found []secrets.Finding
	var head strings.Builder
	head.WriteString(ExportTitle + "\n\n")
	asOf := o.Now
	if recs := snap.Records(); len(recs) > 0 {
		asOf = recs[0].Time
		for _, r := range recs {
			if r.Time.After(asOf) {
				asOf = r.Time
			}
		}
	}
	fmt.Fprintf(&head, exportedLine+"\n", cmp.Or(o.From, ".lore"), asOf.UTC().Format("2006-01-02"))
	head.WriteString(notesNotOrders + "\n") // AGENTS.md reads as instructions: these are not
	// What is always written, counted first: the head, the markers and
	// room for the closing line.
	used := head.Len() + len(fmt.Sprintf(leftOutLine, 999999))
	if o.Section {
		used += len(SectionBegin) + len(SectionEnd) + 2
	}
	if h := v.Handoff; h != nil {
		hb := handoffLines(h, (budget-used)/2) // the rest goes to the records
		head.WriteString(hb.text)
		used += len(hb.text)
		found = append(found, hb.found...)
	}
	// A section's lines are rendered (and scrubbed) only as the budget
	// reaches them: a store of 100k records is not scrubbed whole for the
	// few dozen lines that fit.
	type section struct {
		title string
		n     int
		line  func(i int) line
		taken []line
		next  *line // line(len(taken)), once rendered
	}
	var patRecs, decRecs []*record.Record
	for _, r := range snap.Records() { // newest first
		switch {
		case !r.Active():
		case r.Kind == record.Pattern:
			patRecs = append(patRecs, r)
		case r.Kind == record.Decision:
			decRecs = append(decRecs, r)
		}
	}
	// Most trusted first; ties stay newest first.
	slices.SortStableFunc(patRecs, func(a, b *record.Record) int {
		return cmp.Compare(patterns.Confidence(b), patterns.Confidence(a))
	})
	fails := v.Failures
	sections := []*section{
		{title: "Patterns", n: len(patRecs), line: func(i int) line { return patternLine(patRecs[i]) }},
		{title: "Decisions", n: len(decRecs), line: func(i int) line { return decisionLine(decRecs[i]) }},
		{title: "Recurring failures", n: len(fails), line: func(i int) line { return failureLine(fails[i]) }},
	}
	teach := ""
	if o.Teach {
		teach = "\n### Recording\n\n```\n" + Teach + "\n```\n"
		if len(teach) > budget/3 || used+len(teach) > budget {
			teach = "" // a small budget goes to the records
		}
	}
	used += len(teach)
	for more := true; more; {
		more = false
		for _, s := range sections {
			if len(s.taken) == s.n {
				continue
			}
			if s.next == nil {
				l := s.line(len(s.taken))
				s.next = &l
			}
			cost := len(s.next.text) + 1
			if len(s.taken) == 0 {
				cost += len(sectionTitle(s.title))
			}
			if used+cost <= budget {
				used += cost
				s.taken = append(s.taken, *s.next)
				s.next = nil
				more = true
			}
		}
	}
	var b strings.Builder
	b.WriteString(head.String())
	left := 0
	for _, s := range sections {
		left += s.n - len(s.taken)
		if len(s.taken) == 0 {
			continue
		}
		b.WriteString(sectionTitle(s.title))
		for _, l := range s.taken {
			b.WriteString(l.text + "\n")
			found = append(found, l.found...)
		}
	}
	if left > 0 {
		fmt.Fprintf(&b, leftOutLine, left)
	}
	b.WriteString(teach)
	out := b.String()
	if o.Section {
		out = SectionBegin + "\n" + out + SectionEnd + "\n"
	}
	return out, found
}

// leftOutLine closes an export that left records out.
const leftOutLine = "\n%d more records did not fit: `lore list`, `lore search <words>`.\n"

func sectionTitle(title string) string { return "\n### " + title + "\n\n" }

// line is text for an export, made of record texts scrubbed as a capture
// scrubs them, and what was redacted from them.
type line struct {
	text  string
	found []secrets.Finding
}

// clean is record text s made safe for the export (md) with its secrets
// redacted (secrets.Scrub); each redaction is noted on l as "<field> of
// <of>" ("solution of pat-1a2b3c4d"). Each field is scrubbed on its own,
// as a capture scrubs it, so that the words the export puts between
// fields ("When:", "Do:") make no secret of them.
func (l *line) clean(of, field, s string) string {
	s, kinds := secrets.Scrub(md(s))
	for _, k := range kinds {
		l.found = append(l.found, secrets.Finding{Kind: k, Field: field + " of " + of})
	}
	return s
}

// handoffLines says where the last session left off in at most room bytes:
// its text cut at a word, then the next steps and blockers that fit whole.
// `lore show` has the rest.
func handoffLines(h *record.Record, room int) line {
	var l line
	title := sectionTitle("Where the last session left off")
	lead := fmt.Sprintf("%s (%s): ", h.Short(), h.Created.Format("2006-01-02"))
	text := l.clean(h.Short(), "text", h.Text)
	if full := len(title) + len(lead) + len(text) + 1; full > room {
		text = CutWords(text, room-len(title)-len(lead)-1)
		if text == "" {
			return line{}
		}
	}
	var b strings.Builder
	b.WriteString(title + lead + text + "\n")
	for _, step := range handoffSteps(h) {
		if b.Len()+len(step.text) > room {
			break
		}
		b.WriteString(step.text)
		l.found = append(l.found, step.found...)
	}
	l.text = b.String()
	return l
}

func handoffSteps(h *record.Record) []line {
	var ls []line
	for _, n := range h.Next {
		var l line
		l.text = fmt.Sprintf("- Next: %s\n", l.clean(h.Short(), "next", n))
		ls = append(ls, l)
	}
	for _, b := range h.Blocked {
		var l line
		l.text = fmt.Sprintf("- Blocked: %s\n", l.clean(h.Short(), "blocked", b))
		ls = append(ls, l)
	}
	return ls
}

func patternLine(r *record.Record) line {
	var l line
	title := l.clean(r.Short(), "text", r.Text)
	if r.Anti {
		title = "Avoid: " + title
	}
	l.text = fmt.Sprintf("- **%s** (confidence %s, `%s`)", title, patterns.ConfidenceText(r), r.Short())
	if r.Context != "" {
		l.text += " When: " + l.clean(r.Short(), "context", r.Context) + "."
	}
	if r.Solution != "" {
		label := " Do: "
		if r.Anti {
			label = " Instead: "
		}
		l.text += label + l.clean(r.Short(), "solution", r.Solution)
	}
	return l
}

func decisionLine(r *record.Record) line {
	var l line
	l.text = fmt.Sprintf("- **%s** (%s, `%s`)", l.clean(r.Short(), "text", r.Text), r.Created.Format("2006-01-02"), r.Short())
	if r.Rationale != "" {
		l.text += ": " + l.clean(r.Short(), "rationale", r.Rationale)
	}
	return l
}

func failureLine(t failures.Trigger) line {
	var l line
	const of = "a recurring failure"
	l.text = fmt.Sprintf("- %d× %s, last %s: %s", t.Count, l.clean(of, "error_type", t.ErrorType), t.Last.Format("2006-01-02"), l.clean(of, "text", t.Example))
	return l
}

// md makes record text safe inside the Markdown: one line, no control
// characters, and nothing that could close lore's section markers.
func md(s string) string {
	s = record.OneLine(Sanitize(s))
	return strings.NewReplacer("<!--", "<! --", "-->", "-- >").Replace(s)
}

// MarkerError is a marker of lore's section that makes no single section,
// or a code fence that would swallow the section, by line; Hint, if set,
// says how to fix it.
type MarkerError struct {
	Line int
	Msg  string
	Hint string
}

func (e *MarkerError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func markerError(line int, format string, args ...any) error {
	return &MarkerError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// MergeSection puts section into doc: replacing lore's marked section if
// doc has one, appended after the rest otherwise. Markers count only as
// whole lines outside fenced code blocks (scanMarkers), so prose or an
// example that quotes one is text; markers that do not make exactly one
// section (a begin without its end, an end above its begin, two sections)
// are an error naming the line, as replacing between them could delete
// the user's own text. So is a code fence left open at the end of a doc
// with no section: the section appended would be inside the code block,
// and found by no later export. A doc whose lines end in CRLF gets the
// section with CRLF too, rather than a file of mixed line endings.
func MergeSection(doc, section string) (string, error) {
	m := scanMarkers(doc)
	begins, ends, beginLines, endLines := m.begins, m.ends, m.beginLines, m.endLines
	switch {
	case len(begins) == 0 && len(ends) == 0 && m.openFence > 0:
		return "", &MarkerError{Line: m.openFence, Msg: "a code fence that is never closed: lore's section appended after it would be inside the code block",
			Hint: "nothing was written: close the code block (a line of the same fence) by hand, then export again"}
	case len(begins) == 0 && len(ends) == 0:
		nl := newline(doc)
		section = strings.ReplaceAll(section, "\n", nl)
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += nl
		}
		if doc != "" {
			doc += nl
		}
		return doc + section, nil
	case len(begins) > 1:
		return "", markerError(beginLines[1], "a second lore:begin marker (the first is on line %d)", beginLines[0])
	case len(ends) > 1:
		return "", markerError(endLines[1], "a second lore:end marker (the first is on line %d)", endLines[0])
	case len(ends) == 0:
		return "", markerError(beginLines[0], "a lore:begin marker without a lore:end marker below it")
	case len(begins) == 0:
		return "", markerError(endLines[0], "a lore:end marker without a lore:begin marker above it")
	case ends[0] < begins[0]:
		return "", markerError(endLines[0], "the lore:end marker is above the lore:begin marker (line %d)", beginLines[0])
	}
	rest := doc[ends[0]:]
	_, after, _ := strings.Cut(rest, "\n")
	section = strings.ReplaceAll(section, "\n", newline(doc[:begins[0]]+after))
	return doc[:begins[0]] + section + after, nil
}

// newline is text's line ending: CRLF if every line of it ends so (and it
// has lines), else LF.
func newline(text string) string {
	if n := strings.Count(text, "\n"); n > 0 && n == strings.Count(text, "\r\n") {
		return "\r\n"
	}
	return "\n"
}
