package store

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"lore/kinds"
	"lore/record"
)

// Set is every version of every record read from a store.
type Set struct {
	versions map[string][]*record.Record // by ID, oldest first
	Warnings []record.Warning
}

// Load reads every shard of the given kinds (all if none). Malformed lines
// become warnings; a record written by a newer format stops the read.
// Commands read through the index instead; Load is for what must see every
// shard itself (purge) and for stores without an index (tests, tools).
func (s *Store) Load(only ...record.Kind) (*Set, error) {
	files, err := s.Files(only...)
	if err != nil {
		return nil, err
	}
	set := &Set{versions: map[string][]*record.Record{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		recs, warns, err := kinds.ParseShard(s.Rel(f), data)
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
		sort.SliceStable(vs, func(i, j int) bool { return record.Newer(vs[j], vs[i]) })
	}
}

func (set *Set) add(r *record.Record) {
	vs := set.versions[r.ID]
	for _, v := range vs {
		if sameVersion(v, r) {
			return // the same version reached the store twice: harmless
		}
	}
	set.versions[r.ID] = append(vs, r)
}

// sameVersion reports whether a and b are one version of a record: same
// timestamp and same content, as a merge of two branches that both
// carried it leaves it twice.
func sameVersion(a, b *record.Record) bool {
	if !a.Time.Equal(b.Time) {
		return false
	}
	la, _ := a.MarshalLine()
	lb, _ := b.MarshalLine()
	return bytes.Equal(la, lb)
}

// Current returns the newest version of every record of the given kinds
// (all if none), newest first; a purged record has none.
func (set *Set) Current(kinds ...record.Kind) []*record.Record {
	var out []*record.Record
	for _, vs := range set.versions {
		r := vs[len(vs)-1]
		if !r.Purged() && (len(kinds) == 0 || slices.Contains(kinds, r.Kind)) {
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
func (set *Set) History(id string) []*record.Record { return set.versions[id] }

// Content returns the versions of id that say something, oldest first:
// all but a purge's tombstones. A purged record has some again when a
// merge brought them back.
func (set *Set) Content(id string) []*record.Record {
	var out []*record.Record
	for _, v := range set.versions[id] {
		if !v.Purged() {
			out = append(out, v)
		}
	}
	return out
}

// Get returns the newest version of id (a purged record's tombstone).
func (set *Set) Get(id string) *record.Record {
	vs := set.versions[id]
	if len(vs) == 0 {
		return nil
	}
	return vs[len(vs)-1]
}

// NotFoundError is an ID or prefix that names no record.
type NotFoundError struct {
	Ref    string
	Purged bool // the record it named was purged
}

func (e *NotFoundError) Error() string {
	if e.Purged {
		return fmt.Sprintf("%s was purged (lore forget --purge)", e.Ref)
	}
	return fmt.Sprintf("no record matches %q", e.Ref)
}

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
		return "", &NotFoundError{Ref: ref}
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
		return "", &NotFoundError{Ref: ref}
	case 1:
		return cands[0], nil
	}
	return "", Ambiguous(ref, cands)
}

// Ambiguous is the error for a prefix that matches the IDs cands: the
// candidates are named short where that is unambiguous, at most eight.
func Ambiguous(ref string, cands []string) *AmbiguousError {
	cands = slices.Clone(cands)
	sort.Strings(cands)
	for i, c := range cands {
		cands[i] = record.ShortID(c)
		if len(ref) >= len(cands[i]) {
			cands[i] = c
		}
	}
	if len(cands) > 8 {
		cands = append(cands[:8], fmt.Sprintf("and %d more", len(cands)-8))
	}
	return &AmbiguousError{ref, cands}
}
