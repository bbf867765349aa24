package inject

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// ExportForeignLine is the line (from 1) where text lore did not write
// starts in doc, or 0 if doc may be replaced whole by a markdown export
// (--format markdown --out): empty, or an export and nothing else.
//
// lore writes no mark of its own into such a file (it is the printed
// export, byte for byte, and exports written by earlier versions are the
// same), so doc must parse as an export: the title, the line saying where
// it was exported from, then the parts in the order Export writes them,
// each at most once and each line in the form lore writes it (a record's
// bullet, a handoff's next step, the lines of the recording block). Blank
// lines are allowed anywhere. A heading, a paragraph or a bullet of
// someone's own, anywhere in the file, is refused; what is not caught is
// an edit inside one of lore's lines, which, as between lore's markers,
// the next export replaces.
func ExportForeignLine(doc string) int {
	type numbered struct {
		n    int
		text string
	}
	var lines []numbered // the lines that are not blank
	for i, l := range strings.Split(doc, "\n") {
		if l = strings.TrimSuffix(l, "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, numbered{i + 1, l})
		}
	}
	i := 0
	take := func(ok func(string) bool) bool {
		if i < len(lines) && ok(lines[i].text) {
			i++
			return true
		}
		return false
	}
	if take(lineIs(ExportTitle)) && take(exportedRE().MatchString) {
		take(lineIs(notesNotOrders)) // exports before it was added lack it
		for _, p := range exportParts() {
			if take(p.open) {
				for take(p.line) {
				}
			}
		}
	}
	if i < len(lines) {
		return lines[i].n
	}
	return 0
}

// exportParts are the parts of an export after its head, in the order
// Export writes them: the line that opens each, and its lines. Compiled
// when first asked for, not in every process (the prompt hook included):
// at package init these took a fifth of a millisecond.
var exportParts = sync.OnceValue(func() []exportPart {
	// An older lore's first line of Teach is still lore's.
	teachLines := append(strings.Split(Teach, "\n"), oldTeachFirst)
	return []exportPart{
		{lineIs(exportHeading("Where the last session left off")), lineMatches(`^[a-z]+-\S+ \(\d{4}-\d\d-\d\d\):( .*)?$|^- (Next|Blocked):( .*)?$`)},
		{lineIs(exportHeading("Patterns")), lineMatches("^- \\*\\*.*\\*\\* \\(confidence \\d+(\\.\\d{1,2})?, `[^`]*`\\)( .*)?$")},
		{lineIs(exportHeading("Decisions")), lineMatches("^- \\*\\*.*\\*\\* \\(\\d{4}-\\d\\d-\\d\\d, `[^`]*`\\)(:( .*)?)?$")},
		{lineIs(exportHeading("Recurring failures")), lineMatches(`^- \d+× .*, last \d{4}-\d\d-\d\d:( .*)?$`)},
		{lineMatches("^" + strings.ReplaceAll(regexp.QuoteMeta(strings.TrimSpace(leftOutLine)), "%d", `\d+`) + "$"), func(string) bool { return false }},
		{lineIs(exportHeading("Recording")), func(l string) bool { return l == "```" || slices.Contains(teachLines, l) }},
	}
})

// oldTeachFirst is Teach's first line as lore wrote it before it said to
// commit .lore/.
const oldTeachFirst = "Record what you learn (lore keeps it in the repository, committed with the code):"

// exportPart is the line that opens a part of an export, and its lines.
type exportPart struct{ open, line func(string) bool }

// exportedRE matches exportedLine or an older lore's, whatever the store
// and the date.
var exportedRE = sync.OnceValue(func() *regexp.Regexp {
	expr := func(l string) string { return strings.ReplaceAll(regexp.QuoteMeta(l), "%s", ".*") }
	return regexp.MustCompile("^(?:" + expr(exportedLine) + "|" + expr(oldExportedLine) + ")$")
})

// exportHeading is sectionTitle's line.
func exportHeading(title string) string { return strings.TrimSpace(sectionTitle(title)) }

func lineIs(s string) func(string) bool { return func(l string) bool { return l == s } }

func lineMatches(expr string) func(string) bool { return regexp.MustCompile(expr).MatchString }
