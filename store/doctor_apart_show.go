package store

import (
	"context"

	"lore/patterns"
	"lore/record"
)

// Apart is what lore show tells of a record's versions made apart from
// the version in force (see doctor_apart.go), each slice by history index.
type Apart struct {
	// Overridden: made apart from the version in force, which overrides
	// what its line changed.
	Overridden []bool
	// Uncounted: made apart, with validations the version in force does
	// not count.
	Uncounted []bool
	// Counts: counts validations made apart (what doctor --fix writes),
	// none of its own.
	Counts []bool
	// Made is the validations made in all, when the version in force
	// counts fewer; else 0.
	Made int
}

// Any reports whether there is anything to tell.
func (a *Apart) Any() bool {
	if a == nil {
		return false
	}
	for i := range a.Overridden {
		if a.Overridden[i] || a.Uncounted[i] || a.Counts[i] {
			return true
		}
	}
	return a.Made > 0
}

// MadeApart tells, of one record's history (oldest first, as lore show
// lists it), the versions made apart from the one in force. It asks git
// only of a decision or pattern changed by two people or on two
// branches, in one process; nil when there is nothing to tell or no way
// to tell it.
func (s *Store) MadeApart(ctx context.Context, hist []*record.Record) *Apart {
	h, off := apartHistory(hist)
	if h == nil {
		return nil
	}
	o := s.newSawOracle()
	o.needAll(h)
	o.ask(ctx)
	a := analyse(h, o.sawOrUnknown)
	a.findOverridden()
	out := &Apart{Overridden: make([]bool, len(hist)), Uncounted: make([]bool, len(hist)), Counts: make([]bool, len(hist))}
	for j := range h {
		out.Overridden[off+j] = a.overridden[j]
		out.Uncounted[off+j] = a.unseen[j] && a.own[j] > 0 && a.lost() > 0
		out.Counts[off+j] = a.joins[j]
	}
	if a.lost() > 0 {
		out.Made = a.made
	}
	if !out.Any() {
		return nil
	}
	return out
}

// apartHistory is the part of hist (oldest first) whose versions may have
// been made apart, and its offset in hist: nil unless hist is a decision
// or pattern, not purged, changed by two people or on two branches.
func apartHistory(hist []*record.Record) ([]*record.Record, int) {
	if len(hist) < 2 {
		return nil, 0
	}
	n := hist[len(hist)-1]
	if n.Purged() || n.Kind != record.Decision && n.Kind != record.Pattern {
		return nil, 0
	}
	two := false
	for _, v := range hist[:len(hist)-1] {
		two = two || v.Author != n.Author || v.Branch != n.Branch
	}
	if !two {
		return nil, 0
	}
	off := max(0, len(hist)-maxApartVersions)
	return hist[off:], off
}

// countApart counts in next, a pattern's version derived from the one in
// force (the last of hist), the validations made apart that the one in
// force does not count, as doctor --fix does; it reports whether there
// were any. A verb run after a merge is committed and before doctor
// writes a version whose writer saw every version the merge brought:
// without this, doctor would take their validations as counted in it, and
// they would be lost for good. Before the merge is committed (HEAD lacks
// a version), nothing is counted here, or it would be counted twice; and
// if HEAD lacks the version in force itself, the verb is refused
// (MergePendingError): doctor would read the new version as not having
// seen it, and count its validations again. git is asked, in one process,
// only of a pattern changed in two places.
func (s *Store) countApart(ctx context.Context, next *record.Record, hist []*record.Record) (bool, error) {
	if next.Kind != record.Pattern {
		return false, nil
	}
	h, _ := apartHistory(hist)
	if h == nil {
		return false, nil
	}
	here := s.writtenHere()
	o := s.newSawOracle()
	o.needAll(h)
	o.needSeenBy(h, here)
	o.ask(ctx)
	if cur := h[len(h)-1]; !o.sawSure(cur, here) {
		return false, &MergePendingError{ID: cur.ID}
	}
	a := analyse(h, o.sawOrUnknown)
	if a.lost() == 0 || !o.sawAll(h, here) {
		return false, nil
	}
	patterns.Count(next, a.lost())
	return true, nil
}

// MergePendingError refuses a new version of a pattern whose version in
// force HEAD does not hold: a merge not yet committed brought it, most
// often (see countApart).
type MergePendingError struct{ ID string }

func (e *MergePendingError) Error() string {
	return record.ShortID(e.ID) + "'s version in force is not in this checkout's commit (a merge not yet committed brought it?): a version made now would have its validations counted twice by lore doctor; commit the merge, then run this again"
}
