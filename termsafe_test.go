package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"lore/record"
)

func TestTermSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"café ☕ 👩‍👩‍👧 kept", "café ☕ 👩‍👩‍👧 kept"}, // the zero-width joiner builds the emoji
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]8;;https://evil.example\x07click\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x07click\x1b]8;;\x1b\`},
		{"ding\x07", `ding\x07`},
		{"safe\rEVIL", `safe\rEVIL`},
		{"nul\x00 del\x7f", `nul\x00 del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"raw \x9b31m byte", `raw \x9b31m byte`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"line\u2028sep", `line\u2028sep`},
	} {
		if got := termSafe(c.in); got != c.want {
			t.Errorf("termSafe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Whatever goes in, nothing a terminal acts on comes out.
func TestTermSafeLeavesNoControls(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		b.WriteRune(r)
	}
	for c := 0x80; c < 0x100; c++ {
		b.WriteByte(byte(c)) // stray bytes, not UTF-8
	}
	out := termSafe(b.String())
	if !utf8.ValidString(out) {
		t.Fatal("output is not UTF-8")
	}
	for _, r := range out {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			t.Errorf("%U reached the output", r)
		}
	}
}

// lore's own colour still works in a listing; the record's escapes do not.
func TestListLineKeepsColourEscapesRecord(t *testing.T) {
	tty := terminalStandIn(t)
	e := &env{stdout: tty, getenv: func(string) string { return "" }}
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &record.Record{V: 1, ID: "fail-aaaaaaaa000000000", Kind: record.Failure, Time: now, Created: now,
		ErrorType: "E", Text: "boom \x1b[2J\x1b]0;owned\x07", Status: record.StatusActive}
	line := e.listLine(r)
	if !strings.Contains(line, "\x1b["+kindColors[record.Failure]+"mfailure    \x1b[0m ") {
		t.Errorf("no colour for the kind: %q", line)
	}
	if got := strings.Count(line, "\x1b"); got != 2 {
		t.Errorf("%d raw escapes, want lore's own 2: %q", got, line)
	}
	if !strings.Contains(line, `boom \x1b[2J\x1b]0;owned\x07`) {
		t.Errorf("the record's escapes are not shown escaped: %q", line)
	}
}

// In colour, the headlines of a listing still start in one column: the
// kind is padded to its width before it is painted.
func TestListLineAlignedInColour(t *testing.T) {
	tty := terminalStandIn(t)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	column := map[bool]int{}
	for _, colour := range []bool{false, true} {
		// Wrapped as run wraps the process's stdout (colour was never
		// shown: the wrapper was no *os.File).
		e := &env{stdout: &outputWriter{w: tty}, getenv: func(k string) string {
			if k == "NO_COLOR" && !colour {
				return "1"
			}
			return ""
		}}
		for i, k := range record.AllKinds() {
			r := &record.Record{V: 1, ID: fmt.Sprintf("%saaaaaaa%d000000000", k.Prefix(), i), Kind: k, Time: now, Created: now,
				Text: "headline", ErrorType: "E", Status: record.StatusActive}
			line := e.listLine(r)
			if colour != strings.Contains(line, "\x1b[") {
				t.Fatalf("colour %v: %q", colour, line)
			}
			visible := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(line, "")
			col := len(visible) - len(r.Title()) // where the headline starts
			if i == 0 && !colour {
				column[false] = col
			}
			if col != column[false] {
				t.Errorf("colour %v: the %s headline starts at column %d, not %d: %q", colour, k, col, column[false], visible)
			}
		}
	}
}

// terminalStandIn is /dev/null opened for writing: a character device, so
// lore takes it for a terminal and paints its output.
func terminalStandIn(t *testing.T) *os.File {
	t.Helper()
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { tty.Close() })
	if fi, err := tty.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no character device to stand in for a terminal")
	}
	return tty
}
