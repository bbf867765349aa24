package record

import (
	"fmt"
	"strings"
	"testing"
)

// A table that does not decode is cut again at the lines that look like
// headers (splitAtHeaders), so one mistake costs one table. A multi-line
// string is text, headers and all: what a pattern says about patterns
// files must never come out as a record of its own.

const envelope = "v = 1\nid = \"pat-%s000000000\"\nkind = \"pattern\"\nts = 2026-11-20T07:15:48Z\ntext = %q\n"

// goodTable is a whole table with an ID made from c.
func goodTable(c, text string) string {
	return "[[pattern]]\n" + fmt.Sprintf(envelope, strings.Repeat(c, 8), text)
}

func TestStringHoldsNoTable(t *testing.T) {
	inner := goodTable("s", "smuggled") // a whole record, as a string's text
	for name, str := range map[string]string{
		"basic":           `"""` + "\nWrite it as:\n" + inner + `"""`,
		"literal":         "'''\n" + inner + "'''",
		"closed on a key": `"""` + "\n" + strings.TrimSuffix(inner, "\n") + ` # """`,
		"torn header":     `"""` + "\nan append cut off leaves\n[[pat\n" + inner + `"""`,
		"quotes inside":   `"""` + "\n\"\"\n" + inner + `\"""` + "\n" + inner + `"""`,
		"header first":    "'''\n" + inner + "'''",
	} {
		t.Run(name, func(t *testing.T) {
			// The hand-written table lacks its v = 1, so it does not read.
			bad := "[[pattern]]\nid = \"pat-bbbbbbbb000000000\"\nts = 2026-11-20T07:15:48Z\ntext = \"hand\"\nsolution = " + str + "\n"
			if name == "header first" { // the string is the table's first key
				bad = "[[pattern]]\nsolution = " + str + "\nid = \"pat-bbbbbbbb000000000\"\nts = 2026-11-20T07:15:48Z\n"
			}
			data := goodTable("a", "before") + "\n" + bad + "\n" + goodTable("c", "after")
			recs, warns, err := ParseTOML("f.toml", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Text)
			}
			if strings.Join(got, ",") != "before,after" {
				t.Errorf("read %q, want before and after only, from\n%s", got, data)
			}
			if len(warns) != 1 || warns[0].Pos.Line != 8 || !strings.Contains(warns[0].Msg, `missing format version "v"`) {
				t.Errorf("warnings %v, want one at line 8 for the missing v", warns)
			}
		})
	}
}

// A multi-line string that never closes runs to the end of the file: the
// tables after its start are still read, as they were before strings were
// followed when cutting again.
func TestUnclosedStringCostsItsTable(t *testing.T) {
	data := goodTable("a", "before") + "\n[[pattern]]\nv = 1\nid = \"pat-bbbbbbbb000000000\"\nts = 2026-11-20T07:15:48Z\ntext = \"\"\"\nnever closed\n\n" + goodTable("c", "after")
	recs, warns, _ := ParseTOML("f.toml", []byte(data))
	// The library names the line the string runs to.
	if len(recs) != 2 || recs[1].Text != "after" || len(warns) != 1 || warns[0].Pos.Line < 8 || warns[0].Pos.Line > 14 {
		t.Errorf("records %d, warnings %v; want before and after, one warning in lines 8-14", len(recs), warns)
	}
}

// An append cut off in its header ([[pat), with or without a capture
// after it, in a file with a table before it or as its first append: one
// warning at its line, and every whole table read.
func TestTornHeaderCostsNoTable(t *testing.T) {
	for cut := 1; cut <= len("\n[[pattern]]\n"); cut++ {
		frag := "\n[[pattern]]\n"[:cut]
		for _, before := range []string{goodTable("a", "before"), ""} {
			for _, after := range []string{"", "\n\n" + goodTable("c", "after")} {
				data := before + frag
				if after != "" && !strings.HasSuffix(data, "\n") {
					data += "\n" // as lore's append starts a new line
				}
				data += strings.TrimPrefix(after, "\n")
				recs, warns, _ := ParseTOML("f.toml", []byte(data))
				if want := strings.Count(before+after, "[[pattern]]"); len(recs) != want {
					t.Errorf("%q: %d records, want %d", data, len(recs), want)
				}
				if strings.TrimSpace(frag) == "" {
					continue
				}
				line := strings.Count(before, "\n") + 2
				if len(warns) != 1 || warns[0].Kind != WarnTorn || warns[0].Pos.Line != line || !strings.Contains(warns[0].Msg, "header with no table after it") {
					t.Errorf("%q: warnings %v, want one torn header at line %d", data, warns, line)
				}
			}
		}
	}
}

// obsLine is a whole observation line with an ID made from c.
func obsLine(c, text string) string {
	return `{"v":1,"id":"obs-` + strings.Repeat(c, 8) + `000000000","kind":"observation","ts":"2020-01-01T00:00:00Z","text":"` + text + `"}`
}

// A record appended after a torn line without a newline between: the
// record is read, the fragment is one warning at that line.
func TestRecordAfterTornFragment(t *testing.T) {
	whole := obsLine("b", `a {\"v\":1} {brace}`) // {" only escaped in a string
	nested := strings.TrimSuffix(obsLine("b", "x"), "}") + `,"extra":{"v":1,"id":"obs-cccccccc000000000"}}`
	for name, c := range map[string]struct {
		line string
		at   int // where the record starts; 0: no record is read
	}{
		"cut in a string":       {obsLine("a", "one")[:40] + whole, 40},
		"cut after a key":       {`{"v":1,"id":` + whole, 12},
		"cut in a nested value": {`{"v":1,"x":{"y":[1,` + nested, 19},
		"only a brace":          {"{" + whole, 1},
		"whole object before":   {obsLine("a", "one") + whole, 0}, // two records by hand: not a fragment
		"text before":           {"note " + whole, 0},
		"record cut too":        {obsLine("a", "one")[:40] + whole[:50], 0},
		"many braces":           {strings.Repeat(`{"`, 200) + whole, 0},
	} {
		t.Run(name, func(t *testing.T) {
			at, r := TornBefore([]byte(c.line))
			if at != c.at || (r != nil) != (c.at > 0) {
				t.Fatalf("TornBefore = %d, %v; want %d", at, r != nil, c.at)
			}
			for _, end := range []string{"\n", "\r\n", ""} {
				data := obsLine("z", "first") + "\n" + c.line + end + obsLine("y", "last") + "\n"
				if end == "" {
					data = obsLine("z", "first") + "\n" + c.line
				}
				recs, warns, err := ParseJSONL("f.jsonl", []byte(data))
				if err != nil {
					t.Fatal(err)
				}
				read := 0
				for _, r := range recs {
					if r.ID == "obs-bbbbbbbb000000000" {
						read++
						if r.Source.Line != 2 {
							t.Errorf("read at line %d, want 2", r.Source.Line)
						}
					}
				}
				if want := min(c.at, 1); read != want {
					t.Errorf("%q: the record read %d times, want %d", end, read, want)
				}
				if len(warns) != 1 || warns[0].Pos.Line != 2 || (warns[0].Kind == WarnTornBefore) != (c.at > 0) {
					t.Errorf("%q: warnings %v, want one at line 2", end, warns)
				}
			}
		})
	}
}

// The record after a fragment is the rest of the line, exactly.
func TestRecordAfterTornFragmentIsTheRest(t *testing.T) {
	line := obsLine("a", "one")[:33] + obsLine("b", "two")
	at, r := TornBefore([]byte(line))
	if at != 33 || r == nil || r.ID != "obs-bbbbbbbb000000000" || r.Text != "two" {
		t.Fatalf("at %d: %+v", at, r)
	}
}
