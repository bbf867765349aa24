package store

import (
	"context"

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
	if len(hist) < 2 {
		return nil
	}
	n := hist[len(hist)-1]
	if n.Purged() || n.Kind != record.Decision && n.Kind != record.Pattern {
		return nil
	}
	two := false
	for _, v := range hist[:len(hist)-1] {
		two = two || v.Author != n.Author || v.Branch != n.Branch
	}
	if !two {
		return nil
	}
	off := max(0, len(hist)-maxApartVersions)
	h := hist[off:]
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
