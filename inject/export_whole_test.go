package inject

import (
	"os"
	"strings"
	"testing"
	"time"

	"lore/failures"
	"lore/index"
	"lore/record"
)

// wholeExport is a markdown export with every part: a handoff with its
// steps, patterns (one to avoid), decisions with and without a rationale,
// recurring failures, the records left out and the recording block.
func wholeExport(t *testing.T, budget int, teach bool) string {
	t.Helper()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	conf := 0.9
	ho := &record.Record{V: 1, ID: "ho-aaaaaaaa", Kind: record.Handoff, Status: record.StatusActive, Time: now, Created: now,
		Text: "Store layout done", Next: []string{"write the ranker"}, Blocked: []string{"a test account"}}
	recs := []*record.Record{ho,
		{V: 1, ID: "pat-bbbbbbbb", Kind: record.Pattern, Status: record.StatusActive, Time: now, Created: now, Confidence: &conf,
			Text: "Safe bash arithmetic", Context: "set -e scripts", Solution: "x=$((x+1))"},
		{V: 1, ID: "pat-cccccccc", Kind: record.Pattern, Status: record.StatusActive, Time: now, Created: now, Confidence: &conf,
			Text: "Parsing dates with regexes", Anti: true, Solution: "time.Parse"},
		{V: 1, ID: "dec-dddddddd", Kind: record.Decision, Status: record.StatusActive, Time: now, Created: now,
			Text: "Use JSONL for storage", Rationale: "append-only, grep-friendly"},
		{V: 1, ID: "dec-eeeeeeee", Kind: record.Decision, Status: record.StatusActive, Time: now, Created: now, Text: "Route with chi"},
	}
	for _, w := range strings.Fields("one two three four five six seven eight nine ten") {
		recs = append(recs, &record.Record{V: 1, ID: "dec-" + strings.Repeat(w[:1], 8), Kind: record.Decision, Status: record.StatusActive,
			Time: now, Created: now, Text: "Decision number " + w, Rationale: "a long reason that takes room in the export " + w})
	}
	v := &Resume{Handoff: ho, Failures: []failures.Trigger{{ErrorType: "NonZeroExit", Count: 3, Last: now, Example: "make migrate exits 2"}}}
	text, _ := Export(index.SnapshotOf(recs, Tokenizer()), v, ExportOptions{BudgetTokens: budget, Now: now, Teach: teach})
	return text
}

// Every markdown export lore writes, at any budget, with or without the
// recording block, in LF or CRLF, is one a new export may replace; so is
// the golden export and an empty file.
func TestExportForeignLineAcceptsExports(t *testing.T) {
	for budget := ExportMinBudget; budget <= 700; budget += 4 {
		for _, teach := range []bool{false, true} {
			text := wholeExport(t, budget, teach)
			for _, doc := range []string{text, strings.ReplaceAll(text, "\n", "\r\n"), text + "\n\n", "\n" + text} {
				if n := ExportForeignLine(doc); n != 0 {
					t.Fatalf("budget %d: line %d of an export is foreign:\n%s", budget, n, doc)
				}
			}
		}
	}
	full := wholeExport(t, DefaultBudget, true)
	for _, part := range []string{"### Where the last session left off", "- Next: ", "- Blocked: ", "### Patterns", "- **Avoid: ",
		"### Decisions", "grep-friendly", "### Recurring failures", "### Recording", "Route with chi** (2026-11-01, `dec-eeeeeeee`)\n"} {
		if !strings.Contains(full, part) {
			t.Errorf("the export lacks %q, so it is not tested:\n%s", part, full)
		}
	}
	if !strings.Contains(wholeExport(t, 300, false), "more records did not fit") {
		t.Error("the left-out line is not tested")
	}
	golden, err := os.ReadFile("../testdata/golden/export.golden")
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := strings.Cut(string(golden), "\n") // after the command line
	teachFirst, _, _ := strings.Cut(Teach, "\n")
	older := strings.Replace(doc, teachFirst, oldTeachFirst, 1) // an older lore's export
	if older == doc {
		t.Fatal("the golden export has no recording block")
	}
	for _, doc := range []string{doc, "", " \n\n", strings.Replace(doc, notesNotOrders+"\n", "", 1), older} {
		if n := ExportForeignLine(doc); n != 0 {
			t.Errorf("line %d of %q is foreign", n, doc)
		}
	}
}

// Text of someone's own, anywhere in the file, is found at its first line:
// added after the export (lore replaced it silently), inserted between its
// parts, or a bullet not in lore's form.
func TestExportForeignLineFindsOwnText(t *testing.T) {
	full := wholeExport(t, DefaultBudget, true)
	lineOf := func(doc, s string) int { return strings.Count(doc[:strings.LastIndex(doc, s)], "\n") + 1 }
	insert := func(before, what string) string { return strings.Replace(full, before, what+before, 1) }
	for _, c := range []struct {
		name, doc, first string // first: the line ExportForeignLine names (its last occurrence)
	}{
		{"appended", full + "\n## My own notes\nNever deploy on Fridays.\n", "## My own notes"},
		{"appended in CRLF", strings.ReplaceAll(full+"\n## My own notes\n", "\n", "\r\n"), "## My own notes"},
		{"appended bullet", full + "- Never deploy on Fridays\n", "- Never deploy on Fridays"},
		{"a paragraph between parts", insert("\n### Decisions", "\nNever deploy on Fridays.\n"), "Never deploy on Fridays."},
		{"a heading of one's own", insert("\n### Recurring failures", "\n### Team rules\n\n- Never deploy on Fridays\n"), "### Team rules"},
		{"a bullet among decisions", insert("- **Route with chi**", "- Never deploy on Fridays\n"), "- Never deploy on Fridays"},
		{"a part twice", full + "\n### Decisions\n\n- **Mine** (2026-11-01, `dec-zzzzzzzz`)\n", "### Decisions"},
		{"a part out of order", insert("\n### Patterns", "\n### Recording\n\n```\n```\n"), "### Patterns"},
		{"in the recording block", insert("Record what you learn", "Never deploy on Fridays.\n"), "Never deploy on Fridays."},
		{"text before the title", "# Mine\n\n" + full, "# Mine"},
		{"lore's section", SectionBegin + "\n" + full + SectionEnd + "\n", SectionBegin},
		{"no head", ExportTitle + "\n\nMine\n", "Mine"},
		{"someone's file", "# Agent instructions\n\nRun make test before committing.\n", "# Agent instructions"},
	} {
		want := lineOf(c.doc, c.first)
		if got := ExportForeignLine(c.doc); got != want {
			t.Errorf("%s: line %d, want %d (%q):\n%s", c.name, got, want, c.first, c.doc)
		}
	}
}

// A memory that did not change exports the same text every day (a CI
// check that the committed export is current failed each new day): it is
// dated by its newest version. An older lore's line, dated "on" the day
// of the export, still reads as an export's.
func TestExportIsDatedByItsNewestVersion(t *testing.T) {
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 9, 0, 0, 0, time.UTC) }
	recs := []*record.Record{
		{V: 1, ID: "dec-aaaaaaaa", Kind: record.Decision, Status: record.StatusActive, Time: day(1, 2), Created: day(1, 2), Text: "Use JSONL"},
		{V: 2, ID: "dec-bbbbbbbb", Kind: record.Decision, Status: record.StatusActive, Time: day(3, 4), Created: day(1, 1), Text: "Route with chi"},
	}
	export := func(now time.Time) string {
		text, _ := Export(index.SnapshotOf(recs, Tokenizer()), &Resume{}, ExportOptions{BudgetTokens: DefaultBudget, Now: now})
		return text
	}
	a, b := export(day(11, 1)), export(day(11, 2))
	if a != b || !strings.Contains(a, "Exported from .lore/ as of 2026-03-04.") {
		t.Fatalf("exports on two days differ or are not dated by the newest version:\n%s\n%s", a, b)
	}
	if old := strings.Replace(a, " as of 2026-03-04.", " on 2026-11-01.", 1); old == a || ExportForeignLine(old) != 0 {
		t.Errorf("an older lore's export is foreign:\n%s", old)
	}
}
