package record

import (
	"bytes"
	"cmp"
	"reflect"
	"slices"
	"strings"
)

// Patterns files are not merged with merge=union (a union of two edits of
// one table is a table with every key twice, and so is a union of two
// tables appended on two branches: git lines up the lines they share), so
// a merge that both sides changed a table in, or appended to the file in,
// leaves git's conflict markers in it. Until someone
// resolves it, the file is read twice: as "ours" (the lines outside the
// conflicts and those between <<<<<<< and =======, or ||||||| when git
// shows the base too) and as "theirs" (outside, and between ======= and
// >>>>>>>). Each side's versions are kept, those the two share once: two
// differing versions of a record are both kept, as a merge of JSONL
// shards keeps them, and the newer (by timestamp, then content) is served.

// conflictMsg is the warning at each marker line of a patterns file.
const conflictMsg = "git conflict marker; records on both sides are read, resolve the conflict"

// mayHaveMarkers reports whether data may hold a conflict marker line: a
// quick look for the markers' seven characters, so a file without any
// is read as it is at no cost past it.
func mayHaveMarkers(data []byte) bool {
	for _, m := range []string{"=======", "<<<<<<<", ">>>>>>>", "|||||||"} {
		if bytes.Contains(data, []byte(m)) {
			return true
		}
	}
	return false
}

// conflictSide is one side of a conflicted file: its text, and the line of
// the file each of its lines is.
type conflictSide struct {
	text   []byte
	lineOf []int
}

func (s *conflictSide) add(l string, line int) {
	s.text = append(s.text, l...)
	s.lineOf = append(s.lineOf, line)
}

// conflictSides cuts data into its two sides, and returns a warning for
// each marker line, or no warnings (and no sides) when it has none. A
// marker line out of place (a ======= outside a conflict, say) is read
// as an empty line by the side or sides it stands in, as the reader
// always did.
func conflictSides(name string, data []byte) (ours, theirs conflictSide, marks []Warning) {
	const (
		outside = iota
		inOurs
		inBase
		inTheirs
	)
	state := outside
	text := string(data)
	for n := 1; text != ""; n++ {
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i+1], text[i+1:]
		} else {
			text = ""
		}
		if !IsConflictMarker([]byte(l)) {
			if state == outside || state == inOurs {
				ours.add(l, n)
			}
			if state == outside || state == inTheirs {
				theirs.add(l, n)
			}
			continue
		}
		marks = append(marks, Warning{Pos{name, n}, WarnConflict, conflictMsg})
		next := state
		switch {
		case l[0] == '<' && state == outside:
			next = inOurs
		case l[0] == '|' && state == inOurs:
			next = inBase
		case l[0] == '=' && (state == inOurs || state == inBase):
			next = inTheirs
		case l[0] == '>' && state == inTheirs:
			next = outside
		}
		if next == state { // out of place: an empty line where it stands
			if state == outside || state == inOurs {
				ours.add("\n", n)
			}
			if state == outside || state == inTheirs {
				theirs.add("\n", n)
			}
		}
		state = next
	}
	return ours, theirs, marks
}

// parseConflicted reads both sides of a conflicted patterns file. A
// version both sides hold is kept once; every warning is given once, at
// its line of the file, and all of them in the file's order.
func parseConflicted(name string, ours, theirs conflictSide, marks []Warning) ([]*Record, []Warning, error) {
	recs, warns, err := parseTOMLText(name, ours.text, ours.lineOf)
	if err != nil {
		return nil, nil, err
	}
	rt, wt, err := parseTOMLText(name, theirs.text, theirs.lineOf)
	if err != nil {
		return nil, nil, err
	}
	byID := map[string][]int{} // ours, not yet matched with one of theirs
	for i, r := range recs {
		byID[r.ID] = append(byID[r.ID], i)
	}
	n := len(recs)
	for _, r := range rt {
		cands := byID[r.ID]
		// The same version: at the same line first (a table outside the
		// conflicts), else anywhere.
		k := slices.IndexFunc(cands, func(i int) bool { return recs[i].Source == r.Source && sameTable(recs[i], r) })
		if k < 0 {
			k = slices.IndexFunc(cands, func(i int) bool { return sameTable(recs[i], r) })
		}
		if k >= 0 {
			byID[r.ID] = slices.Delete(cands, k, k+1)
			continue
		}
		recs = append(recs, r)
	}
	if len(recs) > n {
		slices.SortStableFunc(recs, func(a, b *Record) int { return cmp.Compare(a.Source.Line, b.Source.Line) })
	}
	seen := map[Warning]bool{}
	all := marks
	for _, w := range append(warns, wt...) {
		if !seen[w] {
			seen[w] = true
			all = append(all, w)
		}
	}
	slices.SortStableFunc(all, func(a, b Warning) int { return cmp.Compare(a.Pos.Line, b.Pos.Line) })
	return recs, all, nil
}

// ResolveAdditions is the text of a patterns file in merge conflict with
// each side's tables kept, when neither side changed a record the other
// has: each only added tables (as two branches that each append a pattern
// to one file do). The file is read as this side, then the other side's
// tables this side lacks are added after it, each whole. Dropping the
// marker lines instead would not do: git lines up the lines two new tables
// share ([[pattern]], v = 1), so the markers fall inside one table, and
// without them it holds every key twice (which is also why patterns files
// are not merged with merge=union). It returns false when a side has a
// table that does not read or text outside a table, or a version of a
// record the other side holds otherwise: that conflict needs a person.
func ResolveAdditions(name string, data []byte) ([]byte, bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	ours, theirs, marks := conflictSides(name, data)
	if marks == nil {
		return nil, false
	}
	ro, wo, err := parseTOMLText(name, ours.text, ours.lineOf)
	if err != nil || len(wo) > 0 {
		return nil, false
	}
	chunks, stray := SplitTables(theirs.text)
	if len(stray) > 0 {
		return nil, false
	}
	out := ours.text
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	for _, c := range chunks {
		r, err := UnmarshalTable(c)
		if err != nil {
			return nil, false
		}
		switch i := slices.IndexFunc(ro, func(o *Record) bool { return o.ID == r.ID }); {
		case i < 0:
			out = append(append(out, '\n'), strings.TrimLeft(c.Text, "\n")...)
			if out[len(out)-1] != '\n' {
				out = append(out, '\n')
			}
		case !slices.ContainsFunc(ro, func(o *Record) bool { return sameTable(o, r) }):
			return nil, false // a record both sides hold, changed on one
		}
	}
	return out, true
}

// sameTable reports whether a and b, read from the two sides, are one
// version: the same fields, wherever each was read.
func sameTable(a, b *Record) bool {
	x, y := *a, *b
	x.Source, y.Source = Pos{}, Pos{}
	return reflect.DeepEqual(x, y)
}
