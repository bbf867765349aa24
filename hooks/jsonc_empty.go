package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A container that holds comments and no member, as people leave them
// ("servers": { // add servers here }), takes lore's entry and gives it
// back byte for byte: the entry goes after the comments (amongComments),
// where removing it (remove) takes exactly what was added; and the
// container, which lore's uninstall drops once it has emptied it, stays,
// emptied, with its comments (keepEmptied).

// amongComments is the edit that adds added to container old, which has
// no member left but holds comments: on a line of their own after the
// comments, before the closing bracket's line.
func (s *splicer) amongComments(old *node, added []string, indent string) edit {
	closing := old.end - 1
	text := strings.Join(added, ","+s.nl+indent)
	if s.startsLine(closing) {
		at := s.lineStart(closing)
		return edit{at, at, indent + text + s.nl}
	}
	if at := s.lineEnd(old.start+1, true); at >= 0 {
		// The opening line ends in comments, the closing bracket follows
		// one: between them.
		return edit{at, at, s.nl + indent + text}
	}
	// All on one line ({ /* c */ }): before the bracket, which the space
	// before it, if any, keeps apart.
	if c := s.data[closing-1]; c == ' ' || c == '\t' {
		text += " "
	}
	return edit{closing, closing, text}
}

// commentIndent is the indentation of a comment on a line of its own in
// container old, which has no members, if it is indented further than old.
func (s *splicer) commentIndent(old *node) string {
	if len(old.members) > 0 {
		return ""
	}
	for _, c := range s.comments {
		if c.start > old.start && c.end < old.end && s.startsLine(c.start) && len(s.indentOf(c.start)) > len(s.indentOf(old.start)) {
			return s.indentOf(c.start)
		}
	}
	return ""
}

// keepEmptied empties old, the value at path of a member want drops, and
// keeps it, when it is a collection (an object or array whose members are
// all objects or arrays, as the hooks, an event's groups and the MCP
// servers are) that holds a comment which emptying it keeps. lore drops
// such a collection because it has emptied it; a comment in it is the
// user's, about the collection, and stays with it. lore's own entries,
// which it drops whole, hold strings (its MCP server) or are an array's
// elements (its groups and hooks), which object does not keep: a comment
// in one is still refused.
func (s *splicer) keepEmptied(old *node, path string) bool {
	if old.kind == 0 || !s.hasComment(old.start, old.end) {
		return false
	}
	for _, m := range old.members {
		if m.val.kind == 0 {
			return false
		}
	}
	edits, emptied := len(s.edits), s.emptied
	empty := json.RawMessage("{}")
	if old.kind == '[' {
		empty = json.RawMessage("[]")
	}
	if err := s.value(old, empty, path); err != nil {
		// Emptying it would drop a comment: removing it whole is
		// refused, as it was.
		s.edits, s.emptied = s.edits[:edits], emptied
		return false
	}
	s.emptied++
	return true
}

// sameKeeping reports whether got, the settings a splice wrote, are want
// but for the n members it kept emptied: each, where it was, an empty
// object or array, or an object of such.
func sameKeeping(got, want json.RawMessage, n int) bool {
	if n == 0 {
		return sameText(got, want)
	}
	return sameBut(got, want, &n) && n == 0
}

// sameBut is sameKeeping, counting the emptied members it meets off left.
func sameBut(got, want json.RawMessage, left *int) bool {
	g, w := bytes.TrimSpace(got), bytes.TrimSpace(want)
	if len(g) == 0 || len(w) == 0 || g[0] != w[0] {
		return sameText(g, w)
	}
	switch g[0] {
	case '[':
		var ga, wa []json.RawMessage
		if json.Unmarshal(g, &ga) != nil || json.Unmarshal(w, &wa) != nil || len(ga) != len(wa) {
			return false
		}
		for i := range ga {
			if !sameBut(ga[i], wa[i], left) {
				return false
			}
		}
		return true
	case '{':
		gobj, wobj := newObject(), newObject()
		if json.Unmarshal(g, gobj) != nil || json.Unmarshal(w, wobj) != nil {
			return false
		}
		i := 0 // want's next key
		for _, k := range gobj.keys {
			if i < len(wobj.keys) && wobj.keys[i] == k {
				if !sameBut(gobj.vals[k], wobj.vals[k], left) {
					return false
				}
				i++
			} else if h := hollow(gobj.vals[k]); h > 0 {
				*left -= h
			} else {
				return false
			}
		}
		return i == len(wobj.keys)
	}
	return sameText(g, w)
}

// sameText reports whether a and b are the same JSON, written alike.
func sameText(a, b []byte) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// hollow is how many containers v, an empty object or array or an object
// of such, is made of; 0 if it holds anything else.
func hollow(v json.RawMessage) int {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) > 0 && v[0] == '[':
		var a []json.RawMessage
		if json.Unmarshal(v, &a) == nil && len(a) == 0 {
			return 1
		}
	case len(v) > 0 && v[0] == '{':
		o := newObject()
		if json.Unmarshal(v, o) != nil {
			return 0
		}
		n := 1
		for _, k := range o.keys {
			h := hollow(o.vals[k])
			if h == 0 {
				return 0
			}
			n += h
		}
		return n
	}
	return 0
}
