package inject

import (
	"testing"
	"time"

	"lore/record"
)

// What a session's own author recorded counts as seen only from when its
// context began: a compaction (Reset) empties the context, and what was
// recorded before it is shown again.
func TestSeenOwnSinceContextBegan(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	asked := 0
	me := func() string { asked++; return "Ada <ada@example.com>" }
	open := func() *Seen { s := OpenSeen(dir, "s"); s.Own(me); return s }
	rec := func(author string, at time.Time) *record.Record {
		return &record.Record{ID: "dec-" + at.Format("150405"), Author: author, Time: at}
	}
	open().Reset(t0)
	s := open()
	before, mine, theirs := rec("Ada <ada@example.com>", t0.Add(-time.Minute)), rec("Ada <ada@example.com>", t0.Add(time.Minute)), rec("Grace <grace@example.com>", t0.Add(time.Minute))
	if s.Has(before) || !s.Has(mine) || s.Has(theirs) {
		t.Errorf("after a start at %v: has before %v, mine %v, theirs %v; want false, true, false", t0, s.Has(before), s.Has(mine), s.Has(theirs))
	}
	if asked != 1 {
		t.Errorf("the author was asked %d times, want once", asked)
	}
	open().Reset(t0.Add(time.Hour)) // a compaction
	if s := open(); s.Has(mine) {
		t.Error("a record recorded before the compaction still counts as in the context")
	}
	if s := OpenSeen(dir, "s"); s.Has(mine) {
		t.Error("without Own, the session's own records count as seen")
	}
}
