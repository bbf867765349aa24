package store

import (
	"bytes"
	"fmt"
	"strings"

	"lore/record"
)

// Shards in a shape other than lore's lines: a record a formatter spread
// over several lines, and a Git LFS pointer in place of the records.

// spread is a record a formatter spread over lines first to last
// (1-based), and the record on one line (record.Spread).
type spread struct {
	first, last int
	line        string
	id          string
}

// spreadAt is the spread record the reader's warning w is about.
func spreadAt(lines []string, w record.Warning) (spread, bool) {
	n := w.Pos.Line
	if w.Kind != record.WarnSpread || n < 1 || n > len(lines) {
		return spread{}, false
	}
	first := strings.TrimRight(lines[n-1], "\r\n")
	if n == 1 { // the reader reads after a byte-order mark
		first = strings.TrimPrefix(first, "\xef\xbb\xbf")
	}
	k, _, joined := record.Spread([]byte(first), []byte(strings.Join(lines[n:], "")))
	if k == 0 {
		return spread{}, false
	}
	j := spread{first: n, last: n + k, line: string(joined)}
	if r, err := record.UnmarshalLine(joined); err == nil {
		j.id = record.ShortID(r.ID)
	}
	return j, true
}

func (j spread) problem(name string) Problem {
	return Problem{File: name, Line: j.first, Kind: "spread", Fixable: true,
		Message: fmt.Sprintf("lines %d-%d hold one record (%s) spread over several lines, as a formatter leaves it: lore skips it until it is one line again",
			j.first, j.last, j.id)}
}

// tornCut is a JSONL line holding a torn fragment and, after it, a record
// (record.TornBefore): the fragment is the line's bytes from from to at.
type tornCut struct {
	from, at int
	id       string
}

// tornBeforeAt is the line the reader's warning w says holds a torn
// fragment before a record.
func tornBeforeAt(lines []string, w record.Warning) (tornCut, bool) {
	n := w.Pos.Line
	if w.Kind != record.WarnTornBefore || n < 1 || n > len(lines) {
		return tornCut{}, false
	}
	line := strings.TrimRight(strings.TrimSuffix(lines[n-1], "\n"), "\r")
	from := 0
	if n == 1 && strings.HasPrefix(line, "\xef\xbb\xbf") { // the reader reads after a byte-order mark
		from = 3
	}
	at, r := record.TornBefore([]byte(line[from:]))
	if r == nil {
		return tornCut{}, false
	}
	return tornCut{from, from + at, record.ShortID(r.ID)}, true
}

func (c tornCut) problem(name string, line int) Problem {
	return Problem{File: name, Line: line, Kind: "torn", Fixable: true,
		Message: fmt.Sprintf("torn line (an interrupted write: JSON cut short) with a record (%s) appended after it on the same line: lore reads the record and skips the fragment", c.id)}
}

// lineEnding is the line ending l ends with: "\r\n", "\n" or none.
func lineEnding(l string) string {
	switch {
	case strings.HasSuffix(l, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(l, "\n"):
		return "\n"
	}
	return ""
}

// rewriteJoined is rewriteShard for a repair that may also join spread
// records into one line each: every record version the old content holds
// must still be in the new, and the new may hold nothing else than those
// and the joined records. Call with the store locked.
func (s *Store) rewriteJoined(path string, old, new []byte, joins map[int]spread) error {
	if len(joins) == 0 {
		return s.rewriteShard(path, old, new, nil)
	}
	keys := func(data []byte) (map[string]bool, error) { return shardVersions(path, data) }
	var added strings.Builder
	for _, j := range joins {
		added.WriteString(j.line + "\n")
	}
	before, err := keys(old)
	if err != nil {
		return err
	}
	after, err := keys(new)
	if err != nil {
		return err
	}
	joined, err := keys([]byte(added.String()))
	if err != nil {
		return err
	}
	for k := range before {
		if !after[k] {
			return fmt.Errorf("%s: refusing to rewrite: a record version would be lost", s.Rel(path))
		}
	}
	for k := range after {
		if !before[k] && !joined[k] {
			return fmt.Errorf("%s: refusing to rewrite: the new content has a record the old did not", s.Rel(path))
		}
	}
	return WriteAtomic(path, new)
}

// lfsPointer reports a shard that holds a Git LFS pointer instead of its
// records (record.IsLFSPointer): one problem for the file, not one per
// line of the pointer.
func lfsPointer(name string, data []byte) Problem {
	msg := record.LFSPointerMsg
	if bytes.Count(data, []byte("\noid ")) > 1 {
		// A union merge of two pointers: no object has this content.
		msg = "two Git LFS pointers a merge joined line by line, not records (git lfs pull cannot fetch it): each side's records are in the commits the merge joined (git log -- " +
			name + "; git show COMMIT:" + name + " | git lfs smudge); keep .lore out of LFS (lore doctor --fix writes the attributes), then put both sides' lines in this file"
	}
	return Problem{File: name, Kind: "lfs-pointer", Message: msg}
}
