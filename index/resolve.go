package index

import (
	"math/bits"
	"slices"

	"lore/record"
)

// A resolution says, for a list of segments, which version of each record
// is current where more than one segment speaks of it. Each segment marks
// the newest version of each ID it holds; a newer segment can hold a newer
// version (a flip: the row's currentness is the opposite of its flag), and
// a shard a newer segment describes again is dead in the older ones.
//
// Finding them means looking up, in every older segment, each ID of the
// newer ones: after a checkout that rewrote 600 shards of a 100k store,
// about 4,000 IDs, which took 37 of the 67 ms of every prompt. The writer
// of a manifest computes the resolution once and stores it there, so
// readers only load two short lists per segment.
type resolution struct {
	flip, dead []bitset // per segment; nil: no row
}

// bitset is a set of rows.
type bitset []uint64

func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

func (b *bitset) set(i, n int) {
	if *b == nil {
		*b = make(bitset, (n+63)/64)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

// each calls fn with the set's members in order.
func (b bitset) each(fn func(int)) {
	for w, word := range b {
		for word != 0 {
			fn(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
}

// resolve finds the current version of every record that more than one of
// segs speaks of. A shard described by a newer segment is dead in the
// older ones; then, for each ID the newer segments hold or a dead shard
// held, the newest live version wins. The work follows the size of the
// newer segments, not of the store.
func resolve(segs []*segment) *resolution {
	res := &resolution{flip: make([]bitset, len(segs)), dead: make([]bitset, len(segs))}
	if len(segs) < 2 {
		return res
	}
	var affected []string
	for j := 1; j < len(segs); j++ {
		newer := segs[j]
		for fi := range newer.nFiles {
			rel := newer.fileRel(fi)
			for i := range j {
				if k, ok := segs[i].findFile(rel); ok {
					for _, row := range segs[i].file(k).rows {
						affected = append(affected, segs[i].rowID(row))
						res.dead[i].set(row, segs[i].nRows)
						if segs[i].newest(row) {
							res.flip[i].set(row, segs[i].nRows)
						}
					}
				}
			}
		}
		for row := range newer.nRows {
			affected = append(affected, newer.rowID(row))
		}
	}
	// Sorted, the IDs are looked up in each segment moving forward from
	// the last one found, over rows that are mostly on pages just read.
	slices.Sort(affected)
	affected = slices.Compact(affected)
	type version struct{ seg, row int }
	var live []version
	cursor := make([]int, len(segs))
	for _, id := range affected {
		live = live[:0]
		for i, seg := range segs {
			cursor[i] = seg.seekRow(id, cursor[i])
			for row := cursor[i]; row < seg.nRows && seg.rowID(row) == id; row++ {
				if !res.dead[i].has(row) {
					live = append(live, version{i, row})
				}
			}
		}
		best := -1
		for k, v := range live {
			if best < 0 || newerVersion(segs, v.seg, v.row, live[best].seg, live[best].row) {
				best = k
			}
		}
		for k, v := range live {
			if segs[v.seg].newest(v.row) != (k == best) {
				res.flip[v.seg].set(v.row, segs[v.seg].nRows)
			}
		}
	}
	return res
}

// newerVersion orders two versions of one record as record.Newer does,
// decoding them only when their timestamps tie.
func newerVersion(segs []*segment, sa, ra, sb, rb int) bool {
	if pa, pb := segs[sa].purged(ra), segs[sb].purged(rb); pa != pb {
		return pa
	}
	ta, tb := segs[sa].rowTime(ra), segs[sb].rowTime(rb)
	if ta != tb {
		return ta > tb
	}
	return record.Newer(segs[sa].record(ra), segs[sb].record(rb))
}

// seekRow is the first row at or after from whose ID is not below id, for
// IDs asked in increasing order: it gallops forward from the last answer,
// then bisects, so close IDs cost a few probes on nearby rows.
func (s *segment) seekRow(id string, from int) int {
	lo, step := from, 1
	for lo+step < s.nRows && s.rowID(lo+step) < id {
		lo += step
		step *= 2
	}
	hi := min(lo+step, s.nRows) // rowID(hi) >= id, or hi is the end
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s.rowID(mid) < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// encode lays out the resolution: per segment, its dead and flipped rows
// as gaps between increasing row numbers.
func (r *resolution) encode() []byte {
	e := &encoder{}
	e.uint(uint64(len(r.flip)))
	for i := range r.flip {
		for _, set := range []bitset{r.dead[i], r.flip[i]} {
			n := 0
			set.each(func(int) { n++ })
			e.uint(uint64(n))
			prev := 0
			set.each(func(row int) {
				e.uint(uint64(row - prev))
				prev = row
			})
		}
	}
	return e.b
}

// decodeResolution reads what encode wrote for segs; nil if it does not
// fit them.
func decodeResolution(b string, segs []*segment) *resolution {
	d := &decoder{b: b}
	n := d.count()
	if d.err != nil || n != len(segs) {
		return nil
	}
	r := &resolution{flip: make([]bitset, n), dead: make([]bitset, n)}
	for i := range n {
		for _, set := range []*bitset{&r.dead[i], &r.flip[i]} {
			row := 0
			for k := d.count(); k > 0 && d.err == nil; k-- {
				gap := d.uint()
				if gap >= uint64(segs[i].nRows-row) {
					return nil // past the segment's rows
				}
				row += int(gap)
				set.set(row, segs[i].nRows)
			}
		}
	}
	if d.err != nil || len(d.b) != 0 {
		return nil
	}
	return r
}
