package record

import (
	"fmt"
	"strings"
	"testing"
)

// tbl is a [[pattern]] table (7 lines) whose ID ends in c.
func tbl(c, solution string) string {
	return "[[pattern]]\nv = 1\nid = \"pat-aaaaaaa" + c + "1m82qf099\"\nkind = \"pattern\"\nts = 2026-11-22T10:00:00Z\ntext = \"pattern " + c + "\"\nsolution = \"" + solution + "\"\n"
}

// got is what ParseTOML read, one line per record (short ID, solution,
// line) and per warning (line, kind, message).
func got(t *testing.T, data string) (recs, warns []string) {
	t.Helper()
	rs, ws, err := ParseTOML("p.toml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		recs = append(recs, fmt.Sprintf("%s %q @%d", r.Short(), r.Solution, r.Source.Line))
	}
	for _, w := range ws {
		if w.Kind == WarnConflict {
			w.Msg = "marker"
		}
		warns = append(warns, fmt.Sprintf("%d %d %s", w.Pos.Line, w.Kind, w.Msg))
	}
	return recs, warns
}

func checkList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// markerAt is the warning at a conflict marker on line n.
func markerAt(n int) string { return fmt.Sprintf("%d %d marker", n, WarnConflict) }

// A merge that changed one key of a table on both sides leaves the markers
// inside the table: both versions read, each at the table's line, the
// tables around it once, and the markers reported in the file's order.
func TestParseTOMLReadsBothSidesOfAConflictInATable(t *testing.T) {
	b := strings.Replace(tbl("b", "X"), "solution = \"X\"\n", "<<<<<<< HEAD\nsolution = \"ours\"\n=======\nsolution = \"theirs\"\n>>>>>>> p1\n", 1)
	data := tbl("a", "first") + "\n" + b + "confidence = 0.7\n\n" + tbl("c", "last")
	recs, warns := got(t, data)
	checkList(t, "records", recs, []string{
		`pat-aaaaaaaa "first" @1`,
		`pat-aaaaaaab "ours" @9`,
		`pat-aaaaaaab "theirs" @9`,
		`pat-aaaaaaac "last" @22`,
	})
	checkList(t, "warnings", warns, []string{markerAt(15), markerAt(17), markerAt(19)})
}

// Tables added on one side or the other, one of them malformed: each
// good one reads, the bad one is reported at its line of the file, a
// table both sides added alike is read once, and the one after the
// conflict once.
func TestParseTOMLReadsTablesAddedOnEachSide(t *testing.T) {
	data := tbl("a", "base") + // 1-7
		"<<<<<<< HEAD\n" + // 8
		tbl("b", "ours") + // 9-15
		tbl("s", "same") + // 16-22
		"=======\n" + // 23
		tbl("s", "same") + // 24-30
		tbl("c", "theirs") + // 31-37
		"confidence = \"high\"\n" + // 38
		">>>>>>> p1\n" + // 39
		tbl("d", "after") // 40-46
	recs, warns := got(t, data)
	checkList(t, "records", recs, []string{
		`pat-aaaaaaaa "base" @1`,
		`pat-aaaaaaab "ours" @9`,
		`pat-aaaaaaas "same" @16`,
		`pat-aaaaaaad "after" @40`,
	})
	checkList(t, "warnings", warns, []string{
		markerAt(8), markerAt(23),
		fmt.Sprintf("%d %d %s", 38, WarnMalformed, "malformed [[pattern]] table skipped: confidence: is a string, where a float is expected"),
		markerAt(39),
	})
}

// diff3 markers: the base section is neither side. A conflict inside a
// multi-line string leaves each side's string as that side wrote it.
// CRLF line ends as Windows checkouts have them.
func TestParseTOMLReadsDiff3Conflicts(t *testing.T) {
	data := tbl("a", "base") + // 1-7
		"[[pattern]]\nv = 1\nid = \"pat-aaaaaaab1m82qf099\"\nts = 2026-11-22T10:00:00Z\ntext = \"b\"\n" + // 8-12
		"solution = \"\"\"\nfirst line\n" + // 13-14
		"<<<<<<< HEAD\n" + // 15
		"ours line\n" + // 16
		"||||||| merged common ancestors\n" + // 17
		"base line\n" + // 18
		"=======\n" + // 19
		"theirs line\n" + // 20
		"also theirs\n" + // 21
		">>>>>>> p1\n" + // 22
		"last line\"\"\"\n" + // 23
		"confidence = 0.5\n" // 24
	for _, eol := range []string{"\n", "\r\n"} {
		rs, ws, err := ParseTOML("p.toml", []byte(strings.ReplaceAll(data, "\n", eol)))
		if err != nil {
			t.Fatal(err)
		}
		var sols []string
		for _, r := range rs {
			sols = append(sols, fmt.Sprintf("%s %q @%d", r.Short(), strings.ReplaceAll(r.Solution, "\r\n", "\n"), r.Source.Line))
		}
		checkList(t, "records", sols, []string{
			`pat-aaaaaaaa "base" @1`,
			`pat-aaaaaaab "first line\nours line\nlast line" @8`,
			`pat-aaaaaaab "first line\ntheirs line\nalso theirs\nlast line" @8`,
		})
		var lines []int
		for _, w := range ws {
			if w.Kind != WarnConflict {
				t.Errorf("warning %v, want only the markers", w)
			}
			lines = append(lines, w.Pos.Line)
		}
		if fmt.Sprint(lines) != "[15 17 19 22]" {
			t.Errorf("markers at %v, want [15 17 19 22]", lines)
		}
	}
}

// An error inside one side's lines names its line in the file, past the
// lines of the other side and of the base.
func TestParseTOMLConflictErrorsNameFileLines(t *testing.T) {
	data := tbl("a", "base") + // 1-7
		"<<<<<<< HEAD\n" + // 8
		"confidence = 0.5\n" + // 9
		"||||||| base\n" + // 10
		"confidence = 0.4\n" + // 11
		"=======\n" + // 12
		"validations = 2\n" + // 13
		"validations = 3\n" + // 14
		">>>>>>> p1\n" // 15
	recs, warns := got(t, data)
	checkList(t, "records", recs, []string{`pat-aaaaaaaa "base" @1`})
	checkList(t, "warnings", warns, []string{
		markerAt(8), markerAt(10), markerAt(12),
		fmt.Sprintf("%d %d %s", 14, WarnMalformed, "malformed [[pattern]] table skipped: validations: Key 'pattern.validations' has already been defined."),
		markerAt(15),
	})
}

// A marker out of place (no conflict around it) reads as an empty line,
// as it always did.
func TestParseTOMLStrayMarker(t *testing.T) {
	recs, warns := got(t, tbl("a", "one")+"=======\n"+tbl("b", "two"))
	checkList(t, "records", recs, []string{`pat-aaaaaaaa "one" @1`, `pat-aaaaaaab "two" @9`})
	checkList(t, "warnings", warns, []string{markerAt(8)})
}
