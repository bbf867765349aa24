package lore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
)

// Warning is a problem found while reading that does not stop the read:
// the line is skipped and every other record is still served.
type Warning struct {
	Pos  Pos
	Kind WarningKind
	Msg  string
}

// WarningKind classifies warnings so doctor can decide what is safe to fix.
type WarningKind int

const (
	WarnMalformed WarningKind = iota // a line or table that does not parse
	WarnTorn                         // a last line cut off mid-write
	WarnConflict                     // a git conflict marker
)

func (w Warning) String() string { return fmt.Sprintf("%s: %s", w.Pos, w.Msg) }

// Set is every version of every record read from a store.
type Set struct {
	versions map[string][]*Record // by ID, oldest first
	Warnings []Warning
	// Ties are versions of one ID with the same timestamp but different
	// content: not lost (the content order decides), but worth reporting.
	Ties [][2]*Record
}

// Load reads the given kinds (all if none). Malformed lines become
// warnings; a record written by a newer format stops the read.
// Commands that need every version (show, the lifecycle verbs) use it; the
// prompt hook and the views of current records go through the cache
// (Snapshot).
func (s *Store) Load(kinds ...Kind) (*Set, error) {
	files, err := s.Files(kinds...)
	if err != nil {
		return nil, err
	}
	set := &Set{versions: map[string][]*Record{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		recs, warns, err := ParseShard(s.Rel(f), data)
		if err != nil {
			return nil, err
		}
		set.Warnings = append(set.Warnings, warns...)
		for _, r := range recs {
			set.add(r)
		}
	}
	set.sortVersions()
	return set, nil
}

// sortVersions orders each record's versions oldest first, by timestamp.
func (set *Set) sortVersions() {
	for _, vs := range set.versions {
		sort.SliceStable(vs, func(i, j int) bool { return Newer(vs[j], vs[i]) })
	}
}

func (set *Set) add(r *Record) {
	vs := set.versions[r.ID]
	for _, v := range vs {
		if v.Time.Equal(r.Time) {
			a, _ := v.MarshalLine()
			b, _ := r.MarshalLine()
			if bytes.Equal(a, b) {
				return // the same version reached the store twice: harmless
			}
			set.Ties = append(set.Ties, [2]*Record{v, r})
		}
	}
	set.versions[r.ID] = append(vs, r)
}

// ParseShard reads a shard of either format, by its extension: TOML for
// patterns, JSONL for the rest. name is used in positions.
func ParseShard(name string, data []byte) ([]*Record, []Warning, error) {
	if strings.HasSuffix(name, ".toml") {
		return ParseTOML(name, data)
	}
	return ParseJSONL(name, data)
}

// ParseJSONL reads one JSONL shard. name is used in positions.
func ParseJSONL(name string, data []byte) ([]*Record, []Warning, error) {
	var recs []*Record
	var warns []Warning
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		line := data
		complete := false
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data, complete = data[:i], data[i+1:], true
		} else {
			data = nil
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		pos := Pos{name, lineNo}
		if isConflictMarker(line) {
			warns = append(warns, Warning{pos, WarnConflict, "git conflict marker; records on both sides are kept, remove the marker lines"})
			continue
		}
		r, err := UnmarshalLine(line)
		if err != nil {
			var nf *ErrNewerFormat
			if errors.As(err, &nf) {
				return nil, nil, fmt.Errorf("%s: record %w", pos, err)
			}
			if !complete {
				warns = append(warns, Warning{pos, WarnTorn, "torn last line (cut off mid-write) skipped; run 'lore doctor --fix'"})
			} else {
				warns = append(warns, Warning{pos, WarnMalformed, "malformed record skipped: " + err.Error()})
			}
			continue
		}
		r.Source = pos
		recs = append(recs, r)
	}
	return recs, warns, nil
}

// ParseTOML reads one patterns shard.
func ParseTOML(name string, data []byte) ([]*Record, []Warning, error) {
	var recs []*Record
	var warns []Warning
	chunks, stray := SplitTables(data)
	for _, l := range stray {
		warns = append(warns, Warning{Pos{name, l}, WarnMalformed, "text outside a [[pattern]] table skipped"})
	}
	for _, c := range chunks {
		// Conflict markers inside a table: report them, drop the marker
		// lines, and still read what is on both sides.
		lines := strings.SplitAfter(c.Text, "\n")
		kept := lines[:0]
		for i, l := range lines {
			if isConflictMarker([]byte(l)) {
				warns = append(warns, Warning{Pos{name, c.Line + i}, WarnConflict, "git conflict marker; remove the marker lines"})
				kept = append(kept, "\n") // keep line numbers
				continue
			}
			kept = append(kept, l)
		}
		c.Text = strings.Join(kept, "")
		r, err := UnmarshalTable(c)
		if err != nil {
			var nf *ErrNewerFormat
			if errors.As(err, &nf) {
				return nil, nil, fmt.Errorf("%s: record %w", Pos{name, c.Line}, nf)
			}
			line := c.Line
			var le *LineError
			if errors.As(err, &le) {
				line, err = le.Line, le.Err
			}
			kind := WarnMalformed
			if !strings.HasSuffix(c.Text, "\n") {
				kind = WarnTorn
			}
			warns = append(warns, Warning{Pos{name, line}, kind, "malformed [[pattern]] table skipped: " + err.Error()})
			continue
		}
		r.Source = Pos{name, c.Line}
		recs = append(recs, r)
	}
	return recs, warns, nil
}

func isConflictMarker(line []byte) bool {
	for _, m := range []string{"<<<<<<< ", ">>>>>>> ", "||||||| "} {
		if bytes.HasPrefix(line, []byte(m)) {
			return true
		}
	}
	t := bytes.TrimRight(line, "\r\n")
	return string(t) == "=======" || string(t) == "<<<<<<<" || string(t) == ">>>>>>>"
}

// Current returns the newest version of every record of the given kinds
// (all if none), newest first.
func (set *Set) Current(kinds ...Kind) []*Record {
	var out []*Record
	for _, vs := range set.versions {
		r := vs[len(vs)-1]
		if len(kinds) == 0 || slices.Contains(kinds, r.Kind) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.After(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// History returns every version of id, oldest first.
func (set *Set) History(id string) []*Record { return set.versions[id] }

// Get returns the current version of id.
func (set *Set) Get(id string) *Record {
	vs := set.versions[id]
	if len(vs) == 0 {
		return nil
	}
	return vs[len(vs)-1]
}

// NotFoundError is an ID or prefix that names no record.
type NotFoundError struct{ Ref string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no record matches %q", e.Ref) }

// AmbiguousError is a prefix that names several records.
type AmbiguousError struct {
	Ref        string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q is ambiguous: it matches %s", e.Ref, strings.Join(e.Candidates, ", "))
}

// Resolve turns a full ID or unique prefix into a full ID.
func (set *Set) Resolve(ref string) (string, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if ref == "" {
		return "", &NotFoundError{ref}
	}
	if _, ok := set.versions[ref]; ok {
		return ref, nil
	}
	var cands []string
	for id := range set.versions {
		if strings.HasPrefix(id, ref) {
			cands = append(cands, id)
		}
	}
	switch len(cands) {
	case 0:
		return "", &NotFoundError{ref}
	case 1:
		return cands[0], nil
	}
	sort.Strings(cands)
	for i, c := range cands {
		cands[i] = ShortID(c)
		if len(ref) >= len(cands[i]) {
			cands[i] = c
		}
	}
	if len(cands) > 8 {
		cands = append(cands[:8], fmt.Sprintf("and %d more", len(cands)-8))
	}
	return "", &AmbiguousError{ref, cands}
}
