package inject

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Block limits. Claude Code caps additionalContext at 10,000 characters;
// the budget is in tokens of about four characters.
const (
	CharsPerToken = 4
	MaxChars      = 10000
	DefaultBudget = 2000
	footer        = "--- end lore context ---"
)

// Entry is one record's contribution to a block: its whole form and the
// one-line summary used when the budget runs short.
type Entry struct {
	Full    string
	Summary string
	ID      string
}

// Rendered is a block and which entries went into it in full.
type Rendered struct {
	Text     string
	Full     []string // IDs shown whole
	Summary  []string // IDs shown as one-line summaries
	Omitted  int      // entries that did not fit at all
	Overflow bool     // the first entry did not fit even as a summary
}

// Render lays out entries under a header naming what the block is, within
// budget characters (at most MaxChars): whole entries while they fit (and
// while fewer than maxFull are whole), then one-line summaries with a hint
// to run lore show, then nothing. Text is never cut mid-word.
func Render(what string, entries []Entry, budgetChars, maxFull int) Rendered {
	budgetChars = min(budgetChars, MaxChars)
	if maxFull <= 0 {
		maxFull = len(entries)
	}
	// The header's count depends on what fits; reserve room for its widest
	// form, "(what, 999 items)".
	headerRoom := len(header(what, 999)) + 1
	room := budgetChars - headerRoom - len(footer)
	var body strings.Builder
	var out Rendered
	hint := "(more: lore show <id>)"
	summaries := false
	for i, en := range entries {
		full := Sanitize(en.Full)
		if !summaries && len(out.Full) < maxFull && body.Len()+len(full)+2 <= room-len(hint)-1 {
			body.WriteString(full)
			body.WriteString("\n\n")
			out.Full = append(out.Full, en.ID)
			continue
		}
		if !summaries {
			summaries = true
			room -= len(hint) + 1
		}
		sum := Sanitize(en.Summary)
		if body.Len()+len(sum)+1 > room {
			if i == 0 {
				// Not even one summary fits: cut it at a word boundary.
				sum = CutWords(sum, room-body.Len()-1)
				if sum == "" {
					out.Overflow = true
					break
				}
				out.Overflow = true
			} else {
				out.Omitted = len(entries) - i
				break
			}
		}
		body.WriteString(sum)
		body.WriteString("\n")
		out.Summary = append(out.Summary, en.ID)
	}
	n := len(out.Full) + len(out.Summary)
	if n == 0 {
		return out
	}
	text := strings.TrimRight(body.String(), "\n")
	if len(out.Summary) > 0 {
		text += "\n" + hint
	}
	out.Text = header(what, n) + "\n" + text + "\n" + footer
	return out
}

func header(what string, n int) string {
	return fmt.Sprintf("--- Lore Context (%s, %d item%s) ---", what, n, plural(n))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// CutWords shortens s to at most max bytes at a word boundary, marking the
// cut with "…"; it returns "" if no whole word fits.
func CutWords(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ell = "…"
	limit := max - len(ell)
	if limit <= 0 {
		return ""
	}
	cut := strings.LastIndexByte(s[:limit+1], ' ')
	if cut <= 0 {
		return ""
	}
	return strings.TrimRight(s[:cut], " ") + ell
}

// Sanitize makes record text safe to place in an agent's context: control
// and invisible formatting characters (ANSI escapes, bidi overrides,
// zero-width marks) are dropped, and runs of three or more dashes are
// shortened so no record can forge the block's opening or closing marker.
// Newlines are kept (layout uses them) but a line cannot start a marker.
func Sanitize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "�")
	}
	var b strings.Builder
	b.Grow(len(s))
	dashes := 0
	for _, r := range s {
		switch {
		case r == '\n':
			dashes = 0
			b.WriteRune(r)
			continue
		case r == '\t':
			r = ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			continue
		}
		if r == '-' || r == '—' || r == '–' || r == '‐' || r == '‑' || r == '−' {
			dashes++
			if dashes > 2 {
				continue
			}
		} else {
			dashes = 0
		}
		b.WriteRune(r)
	}
	return b.String()
}
