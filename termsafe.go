package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// termSafe makes record text safe to print to a terminal: every character
// a terminal could act on is replaced by its escaped form (`\x1b`, `\r`,
// `\u009b`), so an ESC or CSI sequence, an OSC hyperlink or title, a bell
// or a carriage return that overwrites the line is shown as inert text and
// never interpreted. Its printable payload ("[31m", "]8;;https://…") stays
// visible next to the escape: a reader sees that the record holds a
// sequence and what it would have done, where dropping it would hide that.
// Escaped forms rather than U+FFFD say which byte it was, so it can be found
// in the shard. Newlines and tabs are kept: layout needs them, and callers
// that print one line fold them first.
//
// This is not inject.Sanitize: that one is for an agent's context and
// drops controls silently, keeps the rest of a sequence ("[31m") looking
// like text, and shortens runs of dashes so a record cannot forge the
// block's markers, which would change what a person reading `lore show`
// sees. --json output needs neither: JSON escapes every control.
func termSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// A stray byte such as 0x9b is CSI to a terminal in 8-bit mode.
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether a terminal may act on r rather than show it:
// C0 controls, DEL, C1 controls (U+0080–U+009F: CSI, OSC, ST among them),
// the line and paragraph separators, and the bidirectional formatting
// characters, which reorder what is shown around them (so a record could
// make its text read as something else). Other invisible characters, such
// as the zero-width joiner in emoji, are left alone: they do not drive
// the terminal.
func unsafeRune(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u2028' || r == '\u2029':
		return true
	case r == '\u061c' || r == '\u200e' || r == '\u200f',
		r >= '\u202a' && r <= '\u202e',
		r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// needsEscape is the quick check that lets the common case, plain text,
// through without copying.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			// Any byte of a multi-byte character takes the slow path,
			// which looks at the whole rune.
			return true
		}
	}
	return false
}

// lineSafe is termSafe for text printed within a line of lore's own
// messages (a path, an error): a line break in it is escaped too, so that
// a directory named "x\nlore: error: …" cannot forge a line of its own.
func lineSafe(s string) string {
	return strings.ReplaceAll(termSafe(s), "\n", `\n`)
}
