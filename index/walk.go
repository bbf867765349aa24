package index

import (
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lore/record"
	"lore/store"
)

// walk compares the store with what the index holds: every kind's
// directory tree, a level at a time (the kinds' directories, then their
// months), then the shards this checkout appends to. What changed is
// queued for parsing (see update.go); what is gone, marked.
func (sc *scan) walk() error {
	var level []kindDir
	for _, k := range record.AllKinds() {
		level = append(level, kindDir{k, k.Dir()})
	}
	for len(level) > 0 {
		var next []kindDir
		for i, d := range sc.readDirs(level) {
			if err := sc.record(d); err != nil {
				return err
			}
			if d.missing {
				continue
			}
			for _, sub := range d.entry.subdirs {
				next = append(next, kindDir{level[i].kind, filepath.Join(d.rel, sub)})
			}
		}
		level = next
	}
	// The shards this checkout appends to: an append changes the file,
	// not its directory.
	for _, k := range record.AllKinds() {
		rel := store.CurrentShard(sc.store, k)
		if rel == "" || sc.seen[rel] {
			continue
		}
		// Not a regular file (a FIFO in its place would hang the read):
		// left out, as listDir leaves it out, for doctor to report.
		if fi, err := os.Stat(filepath.Join(sc.store.Dir, rel)); err == nil && fi.Mode().IsRegular() {
			sc.check(rel, fi)
		}
	}
	// The shards an earlier scan left unparsed: their directories are
	// trusted now, so they are queued by name, and stat'ed only when
	// their turn to be parsed comes (see parse). A fresh clone of 100k
	// records leaves about 10k of them after its first prompt: a stat of
	// each on every prompt took the whole budget, so each prompt parsed
	// two shards and the index took thousands of prompts to heal.
	if sc.old != nil {
		for _, rel := range sc.old.pending {
			if !sc.seen[rel] {
				sc.seen[rel] = true
				sc.jobs = append(sc.jobs, parseJob{rel: rel, size: unstated})
			}
		}
	}
	return nil
}

// dirRead is one shard directory as the walk found it: what the scan
// must record of it, worked out without changing the scan, so that
// sibling directories are read in parallel (every file of a changed
// directory, and of patterns directories, is a stat).
type dirRead struct {
	rel       string
	missing   bool // gone, or no longer a directory
	err       error
	entry     *dirEntry
	moved     bool       // the directory changed since the index described it
	unchecked bool       // changed, but left unread for want of time
	prev      *dirEntry  // the directory as the index described it, if it did
	seen      []string   // shards listed
	jobs      []parseJob // shards the index does not hold as they are
	gone      []string   // shards and subdirectories the index holds that are gone
	drifted   []string   // shards whose content changed with their stat kept (a thorough scan's)
}

// statDir stats directory rel and compares it with the index; done is
// true when that is all there is to read of it: gone, in error, or
// unchanged (but for patterns outside prompts, and every kind in a
// thorough scan, whose shards are stat'ed).
func (sc *scan) statDir(k record.Kind, rel string) (d *dirRead, done bool) {
	d = &dirRead{rel: rel}
	abs := filepath.Join(sc.store.Dir, rel)
	isDir, mtime, ctime, err := statDirectory(abs)
	if err == nil && !isDir && rel == k.Dir() {
		// A file where the kind's directory belongs: its records cannot
		// be read, which a reader must say rather than serve none.
		d.err = &store.NotDirError{Path: sc.store.Rel(abs), Kind: k}
		return d, true
	}
	if errors.Is(err, fs.ErrNotExist) || err == nil && !isDir {
		d.missing = true
		return d, true
	}
	if err != nil {
		d.err = err
		return d, true
	}
	if sc.old != nil {
		d.prev = sc.old.dirs[rel]
	}
	d.entry = &dirEntry{mtime: mtime, ctime: ctime}
	changed := changedAt(mtime, ctime)
	// A directory a LOREIDX4 manifest described (no ctime known) is read
	// once: the manifest written next records its ctime, and a shard
	// added under a restored mtime before then stayed hidden for good
	// (run 29).
	d.moved = d.prev == nil || d.prev.mtime != mtime || changed >= sc.old.written-racyWindow ||
		d.prev.ctime != ctime && ctime != 0
	if !d.moved {
		d.entry.subdirs = d.prev.subdirs
		if !sc.thorough && (k != record.Pattern || sc.prompt) {
			return d, true
		}
	}
	return d, false
}

// readEntries finds what changed among the shards and subdirectories of
// d, a directory statDir found changed (or a patterns directory).
func (sc *scan) readEntries(k record.Kind, d *dirRead) {
	rel, prev := d.rel, d.prev
	abs := filepath.Join(sc.store.Dir, rel)
	known := sc.known(rel, false)
	var items []dirItem
	var err error
	if d.moved {
		items, err = listDir(abs, k.Ext())
	} else {
		// A directory that did not change holds the names it held, so
		// only the shards the index knows are stat'ed, by name, without
		// reading the directory: people edit patterns files in place,
		// which changes the file and not its directory.
		rels := make([]string, 0, len(known))
		for frel := range known {
			rels = append(rels, frel)
		}
		items, err = statNames(abs, rels, len(rel)+1)
	}
	if err != nil {
		d.err = err
		return
	}
	for _, it := range items {
		if it.isDir {
			if !strings.HasPrefix(it.name, ".") {
				d.entry.subdirs = append(d.entry.subdirs, it.name)
			}
			continue
		}
		frel := it.rel
		if frel == "" {
			frel = filepath.Join(rel, it.name)
		}
		kf, ok := known[frel]
		delete(known, frel)
		d.seen = append(d.seen, frel)
		held, drifted := false, false
		if ok {
			held, drifted = kf.holds(sc.store.Dir, frel, it.st, sc.thorough)
		}
		if !held {
			d.jobs = append(d.jobs, parseJob{frel, it.st.size, it.st.mtime, it.st.ino})
		}
		if drifted {
			d.drifted = append(d.drifted, frel)
		}
	}
	for frel := range known {
		d.gone = append(d.gone, frel)
	}
	if prev != nil {
		for _, sub := range prev.subdirs {
			if !slices.Contains(d.entry.subdirs, sub) {
				for frel := range sc.known(filepath.Join(rel, sub), true) {
					d.gone = append(d.gone, frel)
				}
			}
		}
	}
}

// kindDir is a directory of a kind's tree, by its path in the store.
type kindDir struct {
	kind record.Kind
	rel  string
}

// readDirs reads the directories dirs: each is stat'ed in turn, and those
// to list (changed, after a pull or a checkout) or whose shards to stat
// (patterns) are read on every core, newest month first. A directory
// that did not change is one stat, which costs less than starting a
// goroutine. In a prompt, once the time for it is spent, the changed
// directories not yet read are left unchecked (see unchecked).
func (sc *scan) readDirs(dirs []kindDir) []*dirRead {
	out := make([]*dirRead, len(dirs))
	var rest []int
	for i, kd := range dirs {
		d, done := sc.statDir(kd.kind, kd.rel)
		out[i] = d
		if !done {
			rest = append(rest, i)
		}
	}
	// A shard's directory is its month (2026-11) in every kind: after a
	// pull into many months, a cut prompt has read the newest, as a cut
	// parse has parsed them (see parseAll).
	slices.SortStableFunc(rest, func(a, b int) int {
		return strings.Compare(filepath.Base(dirs[b].rel), filepath.Base(dirs[a].rel))
	})
	// While lore index works in the background, a prompt leaves the
	// reading to it.
	busy := len(rest) > 1 && sc.leavesToCatchUp()
	read := func(j int) {
		// The newest directory of each level is read whatever the time,
		// so that prompts alone make progress where nothing runs in the
		// background.
		i := rest[j]
		if j > 0 && (busy || sc.pastListing()) {
			out[i].leaveUnchecked()
			return
		}
		sc.readEntries(dirs[i].kind, out[i])
	}
	if len(rest) < 2 {
		for j := range rest {
			read(j)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(rest)) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(rest); j = int(next.Add(1) - 1) {
				read(j)
			}
		})
	}
	wg.Wait()
	return out
}

// leavesToCatchUp reports whether this scan is a prompt's while lore
// index works in the background (CatchingUp): the prompt then reads only
// what it must and writes nothing, which would make the catch-up's work
// lost (it tries again from the new index). After a checkout at 300k
// records, prompts that each read their share and wrote it made the
// catch-up start over each time: 44 to 100 ms a prompt, a new file each
// time.
// Asked once a scan, and only of a prompt that found changes.
func (sc *scan) leavesToCatchUp() bool {
	if sc.listDeadline.IsZero() {
		return false
	}
	sc.catchUpOnce.Do(func() { sc.catchingUp = CatchingUp(sc.store.Dir, sc.tok) })
	return sc.catchingUp
}

// pastListing reports whether a prompt's time for reading changed
// directories is spent (SnapshotOptions.Budget).
func (sc *scan) pastListing() bool {
	return !sc.listDeadline.IsZero() && time.Now().After(sc.listDeadline)
}

// leaveUnchecked leaves d, a changed directory, unread: the index serves
// its shards as it holds them, and records the directory with an mtime
// no directory has, so the next reader reads it. After a pull into 170
// month directories, reading them all took a prompt 22 to 37 ms at 100k
// records before it parsed a shard, and 134 to 153 ms at 300k.
func (d *dirRead) leaveUnchecked() {
	d.unchecked = true
	d.entry.mtime = unchecked
	if d.prev != nil {
		d.entry.subdirs = d.prev.subdirs
	}
}

// unchecked is the mtime recorded for a directory left unchecked.
const unchecked = -1

// record records what readDirs found of d.
func (sc *scan) record(d *dirRead) error {
	switch {
	case d.err != nil:
		return d.err
	case d.missing:
		sc.removeUnder(d.rel)
		return nil
	}
	sc.dirs[d.rel] = d.entry
	sc.dirsMoved = sc.dirsMoved || d.moved
	if d.unchecked {
		sc.partial, sc.behind = true, true
	}
	for _, rel := range d.seen {
		sc.seen[rel] = true
	}
	sc.jobs = append(sc.jobs, d.jobs...)
	for _, rel := range d.drifted {
		sc.repaired = append(sc.repaired, sc.driftedRepair(rel))
	}
	for _, rel := range d.gone {
		sc.gone[rel] = true
	}
	return nil
}

// removeUnder marks every shard the index holds under dir as removed.
func (sc *scan) removeUnder(dir string) {
	for rel := range sc.known(dir, true) {
		sc.gone[rel] = true
	}
}

// knownFile is a shard as the index last described it.
type knownFile struct {
	fileEntry
	written int64 // when the describing segment was written
}

// holds says whether the index holds shard rel of the store in dir as st shows it: same
// size, mtime and inode; and, if it was modified so close to the index's
// writing that a change could hide in the same timestamp, or if verify
// (a thorough scan: doctor reads every shard anyway), the same content
// (by checksum: reading a file costs far less than parsing it again; cp
// -p over a shard keeps its inode, size and mtime).
//
// drifted is true when only the content shows the change: its stat is as
// the index knew it, out of the racy window (verify found it).
func (kf knownFile) holds(dir, rel string, st fileState, verify bool) (held, drifted bool) {
	if kf.gone || kf.size != st.size || kf.mtime != st.mtime || kf.ino != st.ino {
		return false, false
	}
	settled := st.changed() < kf.written-racyWindow
	if settled && !verify {
		return true, false
	}
	data, err := os.ReadFile(filepath.Join(dir, rel))
	held = err == nil && int64(len(data)) == kf.size && checksum(data) == kf.sum
	return held, err == nil && !held && settled
}

// driftedRepair is the doctor note of shard rel, whose content changed
// with its stat kept.
func (sc *scan) driftedRepair(rel string) Repair {
	return Repair{File: sc.store.Rel(filepath.Join(sc.store.Dir, rel)), Kind: "edited-in-place",
		Message: "changed with its size and times kept (an edit in place, cp -p): the index held its older text, and read it again"}
}

func checksum(data []byte) uint32 { return crc32.Checksum(data, crc32c()) }

// checksumParts is the checksum of parts written one after another.
func checksumParts(parts [][]byte) uint32 {
	var sum uint32
	for _, p := range parts {
		sum = crc32.Update(sum, crc32c(), p)
	}
	return sum
}

// crc32c is made on first use: most runs never checksum a shard.
var crc32c = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// known is the index's newest description of each shard in directory dir
// (directly, or at any depth if deep) that it does not hold as removed.
func (sc *scan) known(dir string, deep bool) map[string]knownFile {
	under := make([][]int, len(sc.segs))
	n := 0
	for i, seg := range sc.segs {
		under[i] = seg.filesUnder(dir, deep)
		n += len(under[i])
	}
	known := make(map[string]knownFile, n)
	for i, seg := range sc.segs { // oldest first: newer descriptions replace older
		for _, fi := range under[i] {
			e, _ := seg.fileStat(fi)
			known[e.rel] = knownFile{e, seg.written}
		}
	}
	for rel, kf := range known {
		if kf.gone {
			delete(known, rel)
		}
	}
	return known
}

// check queues shard rel for parsing unless the index holds it as it is.
func (sc *scan) check(rel string, fi fs.FileInfo) {
	sc.seen[rel] = true
	st := stateOf(fi)
	if e, written, ok := sc.lookup(rel); ok {
		held, drifted := (knownFile{e, written}).holds(sc.store.Dir, rel, st, sc.thorough)
		if drifted {
			sc.repaired = append(sc.repaired, sc.driftedRepair(rel))
		}
		if held {
			return
		}
	}
	sc.jobs = append(sc.jobs, parseJob{rel, st.size, st.mtime, st.ino})
}

// dirItem is a subdirectory or a shard that listDir or statNames found.
type dirItem struct {
	name  string
	rel   string // the shard's path in the store, when statNames was given it
	isDir bool
	st    fileState
}

// fileState is what the index compares of a shard on disk: a shard replaced
// by another file (git checkout, a rename over it) has a new inode even
// when size and mtime match.
type fileState struct {
	size, mtime int64
	ino         uint64
	// ctime is the change time where the stat gives it (0: not known).
	ctime int64
}

// changed dates st's last change for the racy window: its mtime, or its
// ctime if that is earlier. An mtime can be set to any time: shards dated
// a day ahead (a clock skew, an archive) stayed in the window until then
// and were read again by every reader (lore list at 100k took 190 to 213
// ms against 16 to 18). A later ctime is not taken: a copy, a link or a
// chmod moves it without a change of content, and a copy indexed at once
// was then checked by content on every read (the steady prompt at 10k
// 53.7 ms against 10.7 in bench/scale.sh).
func (st fileState) changed() int64 { return changedAt(st.mtime, st.ctime) }

// changedAt is changed for a file or directory of that mtime and ctime.
func changedAt(mtime, ctime int64) int64 {
	if ctime != 0 && ctime < mtime {
		return ctime
	}
	return mtime
}
