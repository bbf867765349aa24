package inject

import "strings"

// sectionMarkers are the lines of lore's section markers in a document,
// found by scanMarkers.
type sectionMarkers struct {
	begins, ends         []int // byte offsets of the marker lines
	beginLines, endLines []int // and their line numbers, from 1
	openFence            int   // the line of a code fence still open at the end, or 0
}

// scanMarkers finds the lines of doc that are lore's markers. A marker
// counts only as a whole line outside fenced code blocks: a Markdown file
// that shows lore's markers in a ``` or ~~~ example (CONTRIBUTING.md,
// lore's own docs) holds text, not lore's section. Fences follow
// CommonMark: a run of 3 or more backticks or tildes after at most 3
// spaces opens one (a backtick fence's info string holds no backtick),
// and a run of the same character at least as long, with nothing after
// it but spaces, closes it; one left open runs to the end of the
// document. Fences inside block quotes or indented 4 columns or more are
// not tracked.
func scanMarkers(doc string) sectionMarkers {
	var m sectionMarkers
	var fence struct {
		ch      byte
		n, line int
	}
	for off, n := 0, 1; off < len(doc); n++ {
		line, _, _ := strings.Cut(doc[off:], "\n")
		at := off
		off += len(line) + 1
		ch, run, rest := codeFence(line)
		switch {
		case fence.line > 0: // inside a code block: text, until its fence closes
			if ch == fence.ch && run >= fence.n && strings.Trim(rest, " \t\r") == "" {
				fence.line = 0
			}
		case run > 0 && (ch == '~' || !strings.Contains(rest, "`")):
			fence.ch, fence.n, fence.line = ch, run, n
		default:
			switch t := strings.TrimSpace(line); {
			case strings.HasPrefix(t, "<!-- lore:begin") && strings.HasSuffix(t, "-->"):
				m.begins, m.beginLines = append(m.begins, at), append(m.beginLines, n)
			case t == SectionEnd:
				m.ends, m.endLines = append(m.ends, at), append(m.endLines, n)
			}
		}
	}
	m.openFence = fence.line
	return m
}

// codeFence reads line as a code fence: at most 3 spaces, then a run of 3
// or more backticks or tildes. It returns the run's character and length
// and what follows it; run is 0 if line is no fence.
func codeFence(line string) (ch byte, run int, rest string) {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	if i == len(line) || line[i] != '`' && line[i] != '~' {
		return 0, 0, ""
	}
	j := i
	for j < len(line) && line[j] == line[i] {
		j++
	}
	if j-i < 3 {
		return 0, 0, ""
	}
	return line[i], j - i, line[j:]
}
