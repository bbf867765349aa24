package index

// Finding a record by its ID: the current doc, the shards that hold its
// versions, whether they changed, and its whole history.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/record"
	"lore/store"
)

// Resolve turns a full ID or unique prefix into the ID of a current
// record, as store.Set.Resolve does.
func (s *Snapshot) Resolve(ref string) (string, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if ref == "" {
		return "", &store.NotFoundError{Ref: ref}
	}
	var cands []string
	purged := false
	for k, seg := range s.segs {
		for row := seg.firstRow(ref); row < seg.nRows; row++ {
			id := seg.rowID(row)
			if !strings.HasPrefix(id, ref) {
				break
			}
			if s.current(k, row) {
				if id == ref {
					return id, nil
				}
				cands = append(cands, id)
			}
			purged = purged || s.live(k, row) && seg.purged(row)
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	switch len(cands) {
	case 0:
		return "", &store.NotFoundError{Ref: ref, Purged: purged}
	case 1:
		return cands[0], nil
	}
	return "", store.Ambiguous(ref, cands)
}

// Lookup is the doc holding id's current version.
func (s *Snapshot) Lookup(id string) (int, bool) {
	for k, seg := range s.segs {
		for row := seg.firstRow(id); row < seg.nRows && seg.rowID(row) == id; row++ {
			if s.current(k, row) {
				return s.first[k] + row, true
			}
		}
	}
	return 0, false
}

// Shards names the shards (relative to the store) that hold a version of
// id, as the index last saw them.
func (s *Snapshot) Shards(id string) []string {
	var out []string
	for k, seg := range s.segs {
		for row := seg.firstRow(id); row < seg.nRows && seg.rowID(row) == id; row++ {
			if !s.res.dead[k].has(row) {
				out = append(out, seg.fileRel(seg.rowFile(row)))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Files calls fn for each shard the index describes (relative to the
// store), with the size, mtime (Unix nanoseconds) and inode it had when
// last read: after Open, unless Partial, every shard as it is on disk.
func (s *Snapshot) Files(fn func(rel string, size, mtime int64, ino uint64)) {
	for k, seg := range s.segs {
		for i := range seg.nFiles {
			f, _ := seg.fileStat(i)
			if f.rel != "" && !f.gone && !s.describedAfter(k, f.rel) {
				fn(f.rel, f.size, f.mtime, f.ino)
			}
		}
	}
}

// Unchanged reports whether every shard holding a version of one of ids
// is on disk as the index last read it (size, mtime and inode; content too
// when modified near the index's writing). A hook opens the index trusting
// patterns' directories by their mtime (SnapshotOptions.Prompt), which does
// not show a patterns file edited in place; a stat per shard of the
// records it is about to show keeps those from being older than their
// files. A snapshot of records in memory is always unchanged.
func (s *Snapshot) Unchanged(ids []string) bool {
	if s.dir == "" {
		return true
	}
	for _, id := range ids {
		for _, rel := range s.Shards(id) {
			kf, ok := s.described(rel)
			if !ok {
				return false
			}
			fi, err := os.Stat(filepath.Join(s.dir, rel))
			if err != nil {
				return false
			}
			if held, _ := kf.holds(s.dir, rel, stateOf(fi), false); !held {
				return false
			}
		}
	}
	return true
}

// described is the index's newest description of shard rel.
func (s *Snapshot) described(rel string) (knownFile, bool) {
	for k := len(s.segs) - 1; k >= 0; k-- {
		if i, ok := s.segs[k].findFile(rel); ok {
			e, _ := s.segs[k].fileStat(i)
			return knownFile{e, s.segs[k].written}, true
		}
	}
	return knownFile{}, false
}

// describedAfter reports whether a segment newer than segment k describes
// shard rel (a tombstone included): its description is the current one.
func (s *Snapshot) describedAfter(k int, rel string) bool {
	for _, seg := range s.segs[k+1:] {
		if _, ok := seg.findFile(rel); ok {
			return true
		}
	}
	return false
}

// History returns every version of id the index holds, oldest first; a
// version that reached the store twice (the same content in two shards)
// is listed once.
func (s *Snapshot) History(id string) []*record.Record {
	var out []*record.Record
	for k, seg := range s.segs {
		for row := seg.firstRow(id); row < seg.nRows && seg.rowID(row) == id; row++ {
			if !s.res.dead[k].has(row) {
				out = append(out, seg.record(row))
			}
		}
	}
	record.SortOldestFirst(out)
	return slices.CompactFunc(out, func(a, b *record.Record) bool {
		if !a.Time.Equal(b.Time) {
			return false
		}
		la, _ := a.MarshalLine()
		lb, _ := b.MarshalLine()
		return string(la) == string(lb)
	})
}

// Finder is a store.Finder that opens the index to find a record's shards.
func Finder(ctx context.Context, s *store.Store, o SnapshotOptions) store.Finder {
	return func(ref string) (string, []string, error) {
		snap, err := Open(ctx, s, o)
		if err != nil {
			return "", nil, err
		}
		id, err := snap.Resolve(ref)
		if err != nil {
			return "", nil, err
		}
		return id, snap.Shards(id), nil
	}
}
