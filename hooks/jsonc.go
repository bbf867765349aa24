package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Gemini CLI's settings may hold comments: it reads them with
// strip-json-comments and JSON.parse (checked in the 0.61.0 bundle's
// loadSettings), so // and /* */ comments are allowed there and trailing
// commas are not; and /settings and the like write them back through
// comment-json, keeping the user's comments. lore keeps them too: into a
// file that holds comments it splices its change, leaving every other byte
// where it was, and it refuses, naming the line, an edit that would take a
// comment with it (one inside a group of lore's that uninstall removes).

// parseFile reads a settings file's content as a JSON object; with
// comments, // and /* */ comments are allowed, as the host allows them.
func parseFile(data []byte, comments bool) (*object, error) {
	if !comments {
		return parseSettings(data)
	}
	blank, _ := blankComments(data)
	return parseJSON(blank, true)
}

// span is a stretch of a file's bytes, [start, end).
type span struct{ start, end int }

// blankComments is data with each comment's bytes but its line ends turned
// to spaces, so offsets and line numbers stay, and where the comments were.
func blankComments(data []byte) ([]byte, []span) {
	out := slices.Clone(data)
	var comments []span
	eachOutsideStrings(data, func(i int, in bool) int {
		if in || data[i] != '/' || i+1 >= len(data) || (data[i+1] != '/' && data[i+1] != '*') {
			return i + 1
		}
		end := len(data)
		if data[i+1] == '/' {
			// To the line's end, \r\n or \n, as strip-json-comments has it.
			if nl := bytes.IndexByte(data[i:], '\n'); nl >= 0 {
				end = i + nl
			}
			for end > i+2 && data[end-1] == '\r' {
				end--
			}
		} else if e := bytes.Index(data[i+2:], []byte("*/")); e >= 0 {
			end = i + 2 + e + 2
		}
		for j := i; j < end; j++ {
			if out[j] != '\n' {
				out[j] = ' '
			}
		}
		comments = append(comments, span{i, end})
		return end
	})
	return out, comments
}

// node is a JSON value's place in a file: its bytes, and an object's or
// array's members (an array's have no key).
type node struct {
	start, end int
	kind       byte // '{', '[', or 0 for a string, number, true, false or null
	members    []member
}

type member struct {
	key   string
	start int // the key's first byte (an array element's own first byte)
	val   *node
	comma int // the comma after the member, or -1
}

// scanValue reads the value at b[i:], which is valid JSON with comments
// blanked, and returns it and the offset after it.
func scanValue(b []byte, i int) (*node, int) {
	i = skipBlank(b, i)
	n := &node{start: i}
	switch c := b[i]; c {
	case '{', '[':
		n.kind = c
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = skipBlank(b, i+1)
		for b[i] != closing {
			m := member{start: i, comma: -1}
			if c == '{' {
				end := skipString(b, i)
				_ = json.Unmarshal(b[i:end], &m.key)
				i = skipBlank(b, end) + 1 // the colon
			}
			m.val, i = scanValue(b, i)
			if i = skipBlank(b, i); b[i] == ',' {
				m.comma = i
				i = skipBlank(b, i+1)
			}
			n.members = append(n.members, m)
		}
		i++
	case '"':
		i = skipString(b, i)
	default:
		for i < len(b) && !strings.ContainsRune(" \t\r\n,]}", rune(b[i])) {
			i++
		}
	}
	n.end = i
	return n, i
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && strings.ContainsRune(" \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

// skipString returns the offset after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// errSplice refuses an edit splice cannot make; the edits lore makes to
// the files people write do not come here.
var errSplice = errors.New("lore cannot edit this file and keep its comments; lore has not changed it (edit it by hand)")

// splice is data, a settings file with comments, changed to hold root:
// only what changed is rewritten, in the file's indentation and line
// endings, and every comment stays where it was. An edit that would drop
// a comment is refused, naming the comment's line.
func splice(data []byte, root *object) ([]byte, error) {
	out, emptied, err := spliceEdits(data, root)
	if err != nil {
		return nil, err
	}
	// What it wrote must read back as root, comments and all (and the
	// containers it kept emptied for their comments).
	back, err := parseFile(out, true)
	if err != nil || !sameKeeping(mustJSON(back), mustJSON(root), emptied) || len(commentSpans(out)) != len(commentSpans(data)) {
		return nil, errSplice
	}
	return out, nil
}

func commentSpans(data []byte) []span {
	_, spans := blankComments(data)
	return spans
}

// spliceEdits is splice's edit, and how many members it kept emptied.
func spliceEdits(data []byte, root *object) ([]byte, int, error) {
	blank, comments := blankComments(data)
	s := &splicer{data: data, blank: blank, comments: comments, nl: "\n", unit: "  "}
	if usesCRLF(data) {
		s.nl = "\r\n"
	}
	start := 0
	if bytes.HasPrefix(data, []byte(bom)) {
		start = len(bom)
	}
	if len(bytes.Trim(blank[start:], " \t\r\n")) == 0 {
		// Comments and nothing else: the object goes after them.
		if n := len(comments); n > 0 && s.unended(comments[n-1]) {
			c := comments[n-1]
			line := 1 + bytes.Count(data[:c.start], []byte("\n"))
			return nil, 0, fmt.Errorf("line %d: this comment has no end (*/), and lore's settings would go after it; lore has not changed it (end the comment, or edit the file by hand)", line)
		}
		out, err := render(root)
		if err != nil {
			return nil, 0, err
		}
		data = slices.Clip(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, s.nl...)
		}
		return append(data, s.lines(string(out))...), 0, nil
	}
	top, _ := scanValue(blank, start)
	for _, m := range top.members {
		if s.startsLine(m.start) {
			if ind := s.indentOf(m.start); ind != "" {
				s.unit = ind
			}
			break
		}
	}
	if err := s.value(top, mustJSON(root), ""); err != nil {
		return nil, 0, err
	}
	// Insertions before what starts where they go.
	slices.SortStableFunc(s.edits, func(a, b edit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
	var out []byte
	at := 0
	for _, e := range s.edits {
		if e.start < at {
			return nil, 0, errSplice
		}
		out = append(out, data[at:e.start]...)
		out = append(out, e.text...)
		at = e.end
	}
	return append(out, data[at:]...), s.emptied, nil
}

type splicer struct {
	data, blank []byte // the file, and the file with its comments blanked
	comments    []span
	nl          string // the file's line ending
	unit        string // its indentation step
	edits       []edit
	emptied     int // members kept emptied for their comments (keepEmptied)
}

// edit replaces data[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// value makes old, the value at path, want.
func (s *splicer) value(old *node, want json.RawMessage, path string) error {
	if sameText(s.blank[old.start:old.end], want) {
		return nil
	}
	switch w := bytes.TrimSpace(want); {
	case old.kind == '{' && len(w) > 0 && w[0] == '{' && !duplicateKeys(old):
		return s.object(old, want, path)
	case old.kind == '[' && len(w) > 0 && w[0] == '[':
		return s.array(old, want, path)
	}
	if err := s.keeps(old.start, old.end, path); err != nil {
		return err
	}
	s.edits = append(s.edits, edit{old.start, old.end, s.render(want, s.indentOf(old.start))})
	return nil
}

// object makes the object old at path hold want's members: it changes the
// members both have, drops those want lacks (but keepEmptied) and adds
// want's new ones at the end, where lore's object.set puts them.
func (s *splicer) object(old *node, want json.RawMessage, path string) error {
	o := newObject()
	if err := json.Unmarshal(want, o); err != nil {
		return err
	}
	kept := make([]bool, len(old.members))
	had := map[string]bool{}
	for i, m := range old.members {
		had[m.key] = true
		v, ok := o.get(m.key)
		if !ok {
			kept[i] = s.keepEmptied(m.val, path+"."+m.key)
			continue
		}
		kept[i] = true
		if err := s.value(m.val, v, path+"."+m.key); err != nil {
			return err
		}
	}
	var added []string
	for _, k := range o.keys {
		if !had[k] {
			v, _ := o.get(k)
			added = append(added, string(mustJSON(k))+": "+s.render(v, s.childIndent(old)))
		}
	}
	return s.members(old, kept, added, func(i int) string { return path + "." + old.members[i].key })
}

// array makes the array old at path want: elements it has alike stay, the
// ones want lacks go, one that changed is edited where it is, and want's
// further ones are added at the end (lore adds its groups there).
func (s *splicer) array(old *node, want json.RawMessage, path string) error {
	var elems []json.RawMessage
	if err := json.Unmarshal(want, &elems); err != nil {
		return err
	}
	pathOf := func(i int) string { return fmt.Sprintf("%s[%d]", path, i) }
	kept := make([]bool, len(old.members))
	var added []string
	next := 0 // the first element not yet matched
	for _, e := range elems {
		k := next
		for k < len(old.members) && !sameText(s.blank[old.members[k].val.start:old.members[k].val.end], e) {
			k++
		}
		switch {
		case k < len(old.members): // as it was; the ones before it go
			kept[k], next = true, k+1
		case next < len(old.members): // changed
			kept[next] = true
			if err := s.value(old.members[next].val, e, pathOf(next)); err != nil {
				return err
			}
			next++
		default:
			added = append(added, s.render(e, s.childIndent(old)))
		}
	}
	return s.members(old, kept, added, pathOf)
}

// members removes the members of container old that are not kept, adds
// the added ones after the last kept member (or its comments, if it has
// none: amongComments), and puts the commas right.
func (s *splicer) members(old *node, kept []bool, added []string, pathOf func(int) string) error {
	last := -1 // the last member kept
	for i := range old.members {
		if kept[i] {
			last = i
		}
	}
	open, closing := old.start+1, old.end-1
	if last < 0 && len(added) == 0 && len(old.members) > 0 && !s.hasComment(open, closing) {
		s.edits = append(s.edits, edit{open, closing, ""}) // {} or []
		return nil
	}
	for i := range old.members {
		if !kept[i] {
			if err := s.remove(old, i, pathOf(i)); err != nil {
				return err
			}
		}
	}
	indent := s.childIndent(old)
	switch {
	case len(added) == 0:
		if last >= 0 && old.members[last].comma >= 0 {
			c := old.members[last].comma
			s.edits = append(s.edits, edit{c, c + 1, ""})
		}
	case last >= 0:
		m := old.members[last]
		at := m.val.end
		if m.comma < 0 {
			s.edits = append(s.edits, edit{at, at, ","})
		} else {
			at = m.comma + 1
		}
		if end := s.lineEnd(at, true); end >= 0 {
			// On a line of their own, after a comment that ends the
			// member's line: it is about that member.
			s.edits = append(s.edits, edit{end, end, s.nl + indent + strings.Join(added, ","+s.nl+indent)})
		} else {
			s.edits = append(s.edits, edit{at, at, " " + strings.Join(added, ", ")})
		}
	case s.hasComment(open, closing):
		s.edits = append(s.edits, s.amongComments(old, added, indent))
	default:
		text := s.nl + indent + strings.Join(added, ","+s.nl+indent)
		if !bytes.Contains(s.data[old.start:old.end], []byte("\n")) {
			text += s.nl + s.indentOf(old.start)
		}
		s.edits = append(s.edits, edit{open, open, text})
	}
	return nil
}

// remove removes container old's i-th member and its comma, with its line
// when it has one to itself; the comma before the last member is members'.
func (s *splicer) remove(old *node, i int, path string) error {
	m := old.members[i]
	start, end := m.start, m.val.end
	if m.comma >= 0 {
		end = m.comma + 1
	}
	if e := s.lineEnd(end, false); e >= 0 && s.startsLine(start) {
		start, end = s.lineStart(start), e+1
		if s.data[e] == '\r' && e+1 < len(s.data) && s.data[e+1] == '\n' {
			end++
		}
	} else {
		// The space up to what follows on the line goes too.
		next := old.end - 1
		if i+1 < len(old.members) {
			next = old.members[i+1].start
		}
		end = min(skipBlank(s.data, end), next)
	}
	if err := s.keeps(start, end, path); err != nil {
		return err
	}
	s.edits = append(s.edits, edit{start, end, ""})
	return nil
}

// keeps fails if data[start:end], which lore is about to rewrite, holds a
// comment.
func (s *splicer) keeps(start, end int, path string) error {
	for _, c := range s.comments {
		if c.start < end && c.end > start {
			line := 1 + bytes.Count(s.data[:c.start], []byte("\n"))
			return fmt.Errorf(`line %d: this comment is inside "%s", which lore would rewrite without it; lore has not changed it (move the comment out of it, or edit the file by hand)`, line, strings.TrimPrefix(path, "."))
		}
	}
	return nil
}

// unended reports whether comment c is a /* comment without its */,
// which ends the file (Gemini CLI reads it so).
func (s *splicer) unended(c span) bool {
	text := s.data[c.start:c.end]
	return text[1] == '*' && (len(text) < 4 || !bytes.HasSuffix(text, []byte("*/")))
}

func (s *splicer) hasComment(start, end int) bool {
	return slices.ContainsFunc(s.comments, func(c span) bool { return c.start < end && c.end > start })
}

// render is v in the file's style, its lines after the first indented by
// indent.
func (s *splicer) render(v json.RawMessage, indent string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, v, indent, s.unit); err != nil {
		return string(v)
	}
	return s.lines(b.String())
}

// lines is text with the file's line endings.
func (s *splicer) lines(text string) string {
	return strings.ReplaceAll(text, "\n", s.nl)
}

func (s *splicer) lineStart(i int) int {
	return bytes.LastIndexByte(s.data[:i], '\n') + 1
}

// startsLine reports whether only space is before data[i] on its line.
func (s *splicer) startsLine(i int) bool {
	return len(bytes.Trim(s.data[s.lineStart(i):i], " \t")) == 0
}

// indentOf is the space that starts data[i]'s line.
func (s *splicer) indentOf(i int) string {
	line := s.data[s.lineStart(i):i]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// childIndent is the indentation of container old's members.
func (s *splicer) childIndent(old *node) string {
	for _, m := range old.members {
		if s.startsLine(m.start) {
			return s.indentOf(m.start)
		}
	}
	if ind := s.commentIndent(old); ind != "" {
		return ind
	}
	return s.indentOf(old.start) + s.unit
}

// lineEnd is where the line of data[i] ends (its \r\n or \n) when only
// space follows i there, else -1; overComments, comments count as space
// (a comment over several lines ends the line it ends).
func (s *splicer) lineEnd(i int, overComments bool) int {
	for i < len(s.data) {
		switch c := s.data[i]; {
		case c == '\n' || c == '\r' && i+1 < len(s.data) && s.data[i+1] == '\n':
			return i
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case overComments && c == '/':
			k, found := slices.BinarySearchFunc(s.comments, i, func(c span, i int) int { return c.start - i })
			if !found {
				return -1
			}
			i = s.comments[k].end
		default:
			return -1
		}
	}
	return -1
}

// duplicateKeys reports whether object old names a key twice.
func duplicateKeys(old *node) bool {
	seen := map[string]bool{}
	for _, m := range old.members {
		if seen[m.key] {
			return true
		}
		seen[m.key] = true
	}
	return false
}
