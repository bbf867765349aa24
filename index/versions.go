package index

// Choosing records by who wrote their versions and when (lore list and
// lore search --author, --since), from the rows alone.

import (
	"math"
	"time"
)

// Versions selects versions by who wrote them and when.
type Versions struct {
	Author func(author string) bool // by "Name <email>" (or ""); nil: anyone's
	From   time.Time                // written at or after; zero: any time
}

// versionMatcher asks Versions about rows. A store holds few authors:
// Author is asked once for each.
type versionMatcher struct {
	s       *Snapshot
	from    int64
	author  func(string) bool
	authors []map[int]bool // per segment, by the author's reference
}

func (s *Snapshot) matcher(v *Versions) *versionMatcher {
	m := &versionMatcher{s: s, author: v.Author, authors: make([]map[int]bool, len(s.segs))}
	if !v.From.IsZero() {
		m.from = v.From.UnixNano()
	} else {
		m.from = math.MinInt64
	}
	return m
}

// version reports whether row's version matches.
func (m *versionMatcher) version(seg, row int) bool {
	sg := m.s.segs[seg]
	if sg.rowTime(row) < m.from {
		return false
	}
	if m.author == nil {
		return true
	}
	if m.authors[seg] == nil {
		m.authors[seg] = map[int]bool{}
	}
	ref := sg.rowAuthor(row)
	ok, asked := m.authors[seg][ref]
	if !asked {
		ok = m.author(sg.str(ref))
		m.authors[seg][ref] = ok
	}
	return ok
}

// record reports whether any version of the record whose current version
// is row matches: the current one, or (for a record revised since it was
// created) another of its versions, in this segment or another.
func (m *versionMatcher) record(seg, row int) bool {
	sg := m.s.segs[seg]
	if m.version(seg, row) {
		return true
	}
	if sg.rowTime(row) <= sg.rowCreated(row) {
		return false // never revised: the one version was refused
	}
	return m.other(sg.rowID(row))
}

// other reports whether any version of id matches.
func (m *versionMatcher) other(id string) bool {
	for k, sg := range m.s.segs {
		for row := sg.firstRow(id); row < sg.nRows && sg.rowID(row) == id; row++ {
			if !m.s.res.dead[k].has(row) && !sg.purged(row) && m.version(k, row) {
				return true
			}
		}
	}
	return false
}

// HasVersion reports whether v selects a version of record id (the
// first, a revision, an abandonment…).
func (s *Snapshot) HasVersion(id string, v *Versions) bool {
	return s.matcher(v).other(id)
}
