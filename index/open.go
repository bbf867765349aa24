package index

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"lore/kinds"
	"lore/record"
	"lore/store"
)

// Tokenizer gives a record's headline and body search terms. Version names
// the tokenizer so an index made by another one is not trusted.
type Tokenizer struct {
	Version string
	Terms   func(*record.Record) (title, body []string)
}

// SnapshotOptions choose how the index is read.
type SnapshotOptions struct {
	Tokenizer Tokenizer
	// Prompt trusts the patterns' directories by their mtime, as every
	// other kind's: the prompt hook runs on every prompt and leaves
	// patterns edited in place by hand to the next session start or
	// command, which compare every patterns shard.
	Prompt bool
}

// racyWindow: a file or directory modified this close to the index's
// writing is checked again, as a file system's timestamps can be too
// coarse to show a change made in the same tick (git's "racy clean"). A
// variable so tests can shorten it.
var racyWindow = int64(2 * time.Second)

// smallSegment: the newest segments are merged into the next one written
// while they hold at most this many versions, or at most as many as the
// new material; larger ones stay, so the work of an update follows what
// changed, not the size of the store. A variable so tests can make many
// segments.
var smallSegment = 1024

const (
	// orphanAge: a segment file the manifest does not name is removed once
	// it is this old (younger ones may belong to a writer about to publish).
	orphanAge = time.Minute
)

// Open reads the current records through the index, bringing the index up
// to date first. What is checked, and why it suffices:
//
//   - every directory of shards, by its mtime: git's checkouts, pulls and
//     merges add, remove and replace shards as files, and lore rewrites a
//     shard (doctor, purge) by renaming a new file over it, all of which
//     change the directory; a changed directory is listed and each of its
//     shards compared by size, mtime and inode;
//   - the shard this checkout appends to, per kind (named in .local), as
//     appends change the file but not its directory;
//   - every patterns shard, by size, mtime and inode, as people edit
//     patterns by hand and editors may write in place (except in Prompt
//     mode).
//
// Shards that changed are parsed and written back as a new segment, so the
// next reader starts from a current index; when ctx is done, parsing stops,
// the snapshot is marked Partial, and what was parsed is kept.
func Open(ctx context.Context, s *store.Store, o SnapshotOptions) (*Snapshot, error) {
	var sc *scan
	for attempt := 0; ; attempt++ {
		sc = newScan(ctx, s, o.Tokenizer)
		sc.prompt = o.Prompt
		if sc.loadSegments() {
			break
		}
		// A segment named by the manifest vanished: another process
		// merged it away after we read the manifest. Read it again; if
		// that fails too, rebuild rather than trust directories whose
		// shards only the missing segment described.
		if attempt == 1 {
			sc.old, sc.segs = nil, nil
			break
		}
	}
	if err := sc.walk(); err != nil {
		return nil, err
	}
	if err := sc.parseAll(); err != nil {
		return nil, err
	}
	segs := sc.update()
	snap := newSnapshot(segs)
	snap.Warnings = sc.warnings()
	snap.Partial = sc.partial
	snap.parsed = len(sc.parsed)
	return snap, nil
}

// scan compares the store with the index as the manifest describes it.
type scan struct {
	ctx        context.Context
	store      *store.Store
	tok        Tokenizer
	start      int64
	old        *manifest  // nil: no usable index
	read       *manifest  // the manifest as read, usable or not: publish replaces only it
	segs       []*segment // old's segments, oldest first
	dirs       map[string]*dirEntry
	dirsMoved  bool            // a directory's entry differs from old's
	seen       map[string]bool // shards compared in this scan
	jobs       []parseJob
	gone       map[string]bool // shards the index holds that no longer exist
	parsed     []*shardFile
	incomplete map[string]bool // directories with shards left unparsed
	partial    bool
	prompt     bool
}

type parseJob struct {
	rel, dir    string
	size, mtime int64
	ino         uint64
}

func newScan(ctx context.Context, s *store.Store, tok Tokenizer) *scan {
	m := readManifest(s, tok.Version)
	return &scan{ctx: ctx, store: s, tok: tok, start: time.Now().UnixNano(),
		old: m, read: m, dirs: map[string]*dirEntry{}, seen: map[string]bool{},
		gone: map[string]bool{}, incomplete: map[string]bool{}}
}

// loadSegments maps the manifest's segments; false if one is missing. A
// damaged segment drops the whole index, which is then rebuilt.
func (sc *scan) loadSegments() bool {
	if sc.old == nil {
		return true
	}
	for _, name := range sc.old.segs {
		data, err := mapFile(filepath.Join(indexDir(sc.store), name))
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		seg, perr := parseSegment(name, data, sc.tok.Version)
		if err != nil || perr != nil {
			sc.old, sc.segs = nil, nil
			return true
		}
		sc.segs = append(sc.segs, seg)
	}
	return true
}

// lookup finds the newest description of shard rel, and when it was made.
func (sc *scan) lookup(rel string) (fileEntry, int64, bool) {
	for i := len(sc.segs) - 1; i >= 0; i-- {
		if fi, ok := sc.segs[i].findFile(rel); ok {
			return sc.segs[i].file(fi), sc.segs[i].written, true
		}
	}
	return fileEntry{}, 0, false
}

func (sc *scan) walk() error {
	for _, k := range record.AllKinds() {
		if err := sc.walkDir(k, sc.readDir(k, k.Dir())); err != nil {
			return err
		}
	}
	// The shards this checkout appends to: an append changes the file,
	// not its directory.
	for _, k := range record.AllKinds() {
		rel := store.CurrentShard(sc.store, k)
		if rel == "" || sc.seen[rel] {
			continue
		}
		if fi, err := os.Stat(filepath.Join(sc.store.Dir, rel)); err == nil {
			sc.check(rel, filepath.Dir(rel), fi)
		}
	}
	return nil
}

// dirRead is one shard directory as the walk found it: what the scan
// must record of it, worked out without changing the scan, so that
// sibling directories are read in parallel (every file of a changed
// directory, and of patterns directories, is a stat).
type dirRead struct {
	rel     string
	missing bool // gone, or no longer a directory
	err     error
	entry   *dirEntry
	moved   bool       // the directory changed since the index described it
	seen    []string   // shards listed
	jobs    []parseJob // shards the index does not hold as they are
	gone    []string   // shards and subdirectories the index holds that are gone
}

func (sc *scan) readDir(k record.Kind, rel string) *dirRead {
	d := &dirRead{rel: rel}
	abs := filepath.Join(sc.store.Dir, rel)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.IsDir() {
		d.missing = true
		return d
	}
	if err != nil {
		d.err = err
		return d
	}
	mtime := fi.ModTime().UnixNano()
	var prev *dirEntry
	if sc.old != nil {
		prev = sc.old.dirs[rel]
	}
	d.entry = &dirEntry{mtime: mtime, complete: true}
	d.moved = prev == nil || prev.mtime != mtime || !prev.complete || mtime >= sc.old.written-racyWindow
	if !d.moved && (k != record.Pattern || sc.prompt) {
		d.entry.subdirs = prev.subdirs
		return d
	}
	items, err := listDir(abs, k.Ext())
	if err != nil {
		d.err = err
		return d
	}
	known := sc.known(rel, false)
	for _, it := range items {
		if it.isDir {
			if !strings.HasPrefix(it.name, ".") {
				d.entry.subdirs = append(d.entry.subdirs, it.name)
			}
			continue
		}
		frel := filepath.Join(rel, it.name)
		kf, ok := known[frel]
		delete(known, frel)
		d.seen = append(d.seen, frel)
		if !ok || !kf.holds(filepath.Join(sc.store.Dir, frel), it.st) {
			d.jobs = append(d.jobs, parseJob{frel, rel, it.st.size, it.st.mtime, it.st.ino})
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
	return d
}

// readDirs reads the directories rels on every core.
func (sc *scan) readDirs(k record.Kind, rels []string) []*dirRead {
	out := make([]*dirRead, len(rels))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(rels)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(rels); i = int(next.Add(1) - 1) {
				out[i] = sc.readDir(k, rels[i])
			}
		})
	}
	wg.Wait()
	return out
}

// walkDir records what readDir found of d, then walks its subdirectories.
func (sc *scan) walkDir(k record.Kind, d *dirRead) error {
	switch {
	case d.err != nil:
		return d.err
	case d.missing:
		sc.removeUnder(d.rel)
		return nil
	}
	sc.dirs[d.rel] = d.entry
	sc.dirsMoved = sc.dirsMoved || d.moved
	for _, rel := range d.seen {
		sc.seen[rel] = true
	}
	sc.jobs = append(sc.jobs, d.jobs...)
	for _, rel := range d.gone {
		sc.gone[rel] = true
	}
	subs := make([]string, len(d.entry.subdirs))
	for i, sub := range d.entry.subdirs {
		subs[i] = filepath.Join(d.rel, sub)
	}
	for _, sub := range sc.readDirs(k, subs) {
		if err := sc.walkDir(k, sub); err != nil {
			return err
		}
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

// holds says whether the index holds the shard at abs as fi shows it: same
// size, mtime and inode; and, if it was modified so close to the index's
// writing that a change could hide in the same timestamp, the same content
// (by checksum: reading a file costs far less than parsing it again).
func (kf knownFile) holds(abs string, st fileState) bool {
	mtime := st.mtime
	if kf.gone || kf.size != st.size || kf.mtime != mtime || kf.ino != st.ino {
		return false
	}
	if mtime < kf.written-racyWindow {
		return true
	}
	data, err := os.ReadFile(abs)
	return err == nil && int64(len(data)) == kf.size && checksum(data) == kf.sum
}

func checksum(data []byte) uint32 { return crc32.Checksum(data, crc32c()) }

// crc32c is made on first use: most runs never checksum a shard.
var crc32c = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// known is the index's newest description of each shard in directory dir
// (directly, or at any depth if deep) that it does not hold as removed.
func (sc *scan) known(dir string, deep bool) map[string]knownFile {
	known := map[string]knownFile{}
	for _, seg := range sc.segs { // oldest first: newer descriptions replace older
		for _, fi := range seg.filesUnder(dir, deep) {
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
func (sc *scan) check(rel, dir string, fi fs.FileInfo) {
	sc.seen[rel] = true
	st := stateOf(fi)
	if e, written, ok := sc.lookup(rel); ok && (knownFile{e, written}).holds(filepath.Join(sc.store.Dir, rel), st) {
		return
	}
	sc.queue(rel, dir, st)
}

func (sc *scan) queue(rel, dir string, st fileState) {
	sc.jobs = append(sc.jobs, parseJob{rel, dir, st.size, st.mtime, st.ino})
}

// dirItem is a subdirectory or a shard that listDir found.
type dirItem struct {
	name  string
	isDir bool
	st    fileState
}

// parseAll parses the queued shards on every core, until ctx is done.
func (sc *scan) parseAll() error {
	out := make([]*shardFile, len(sc.jobs))
	errs := make([]error, len(sc.jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(sc.jobs), 1)) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = sc.parse(sc.jobs[i])
			}
		})
	}
	for i := range sc.jobs {
		if sc.ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range sc.jobs {
		if errs[i] != nil {
			return errs[i]
		}
		if out[i] == nil {
			sc.partial = true
			sc.incomplete[j.dir] = true
			continue
		}
		sc.parsed = append(sc.parsed, out[i])
	}
	for dir := range sc.incomplete {
		if de := sc.dirs[dir]; de != nil {
			de.complete = false
		}
	}
	return nil
}

// parse reads one shard. It was stat'ed before it is read, so a write in
// between shows as a changed shard next time, never as a missed one.
func (sc *scan) parse(j parseJob) (*shardFile, error) {
	abs := filepath.Join(sc.store.Dir, j.rel)
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(abs); lerr != nil {
			return &shardFile{rel: j.rel, gone: true}, nil // removed since it was listed
		}
	}
	if err != nil {
		return nil, err
	}
	recs, warns, err := kinds.ParseShard(sc.store.Rel(abs), data)
	if err != nil {
		return nil, err
	}
	f := &shardFile{rel: j.rel, size: j.size, mtime: j.mtime, ino: j.ino, sum: checksum(data), warns: warns}
	for _, r := range recs {
		t, b := sc.tok.Terms(r)
		var enc encoder
		encodeRecord(&enc, r)
		f.versions = append(f.versions, version{rec: r, title: t, body: b, enc: enc.b})
	}
	return f, nil
}

// update writes what the scan found back to the index, and returns the
// segments that now describe the store.
func (sc *scan) update() []*segment {
	if sc.old != nil && len(sc.parsed) == 0 && len(sc.gone) == 0 && !sc.dirsMoved {
		return sc.segs
	}
	material := slices.Clone(sc.parsed)
	covered := map[string]bool{}
	for _, f := range material {
		covered[f.rel] = true
	}
	for rel := range sc.gone {
		if !covered[rel] {
			material = append(material, &shardFile{rel: rel, gone: true})
			covered[rel] = true
		}
	}
	keep := sc.segs
	var absorbed []*segment
	if len(material) > 0 {
		rows := 0
		for _, f := range material {
			rows += len(f.versions)
		}
		for len(keep) > 0 && keep[len(keep)-1].nRows <= max(rows, smallSegment) {
			seg := keep[len(keep)-1]
			keep = keep[:len(keep)-1]
			absorbed = append(absorbed, seg)
			rows += seg.nRows
		}
		for _, seg := range absorbed { // newest first: the newest description wins
			for fi := range seg.nFiles {
				e := seg.file(fi)
				if covered[e.rel] {
					continue
				}
				covered[e.rel] = true
				f := &shardFile{rel: e.rel, size: e.size, mtime: e.mtime, ino: e.ino, sum: e.sum, gone: e.gone, warns: e.warns}
				for _, row := range e.rows {
					if v, err := seg.version(row); err == nil {
						f.versions = append(f.versions, v)
					}
				}
				material = append(material, f)
			}
		}
		if len(keep) == 0 { // the new segment is the whole index: no tombstones needed
			material = slices.DeleteFunc(material, func(f *shardFile) bool { return f.gone })
		}
	}
	m := &manifest{written: sc.start, dirs: sc.dirs, warns: map[string][]record.Warning{}}
	if sc.old != nil {
		for rel, ws := range sc.old.warns {
			if !covered[rel] {
				m.warns[rel] = ws
			}
		}
	}
	for _, f := range material {
		if len(f.warns) > 0 && !f.gone {
			m.warns[f.rel] = f.warns
		}
	}
	segs := keep
	var data encodedSegment
	var name string
	if len(material) > 0 {
		name = segmentName()
		data = encodeSegment(sc.tok.Version, sc.start, material)
		if seg, err := data.open(name, sc.tok.Version); err == nil {
			segs = append(slices.Clone(keep), seg)
		}
	}
	for _, seg := range segs {
		m.segs = append(m.segs, seg.name)
	}
	sc.publish(m, name, data)
	sc.segs = segs
	sc.old = m
	return segs
}

// publish writes the new segment and the manifest that names it, unless
// another process is updating the index or already has: the index is
// derived, so losing the race costs only the work.
func (sc *scan) publish(m *manifest, name string, data encodedSegment) {
	dir := indexDir(sc.store)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	unlock, ok := tryLock(filepath.Join(dir, "lock"))
	if !ok {
		return
	}
	defer unlock()
	if cur := readManifest(sc.store, sc.tok.Version); !cur.sameAs(sc.read) {
		return // another process published since this one read the manifest
	}
	if data != nil {
		if err := store.WriteAtomic(filepath.Join(dir, name), data...); err != nil {
			return
		}
	}
	if err := store.WriteAtomic(manifestPath(sc.store), m.encode(sc.tok.Version)); err != nil {
		return
	}
	removeOrphans(dir, m.segs)
}

// removeOrphans deletes segment files the manifest does not name, and the
// cache of lore versions before the index.
func removeOrphans(dir string, named []string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".seg") || slices.Contains(named, e.Name()) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > orphanAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	_ = os.RemoveAll(filepath.Join(filepath.Dir(dir), "cache"))
}

func segmentName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b) + ".seg"
}

// warnings are the problems of every shard the index now covers.
func (sc *scan) warnings() []record.Warning {
	var out []record.Warning
	for _, ws := range sc.old.warns {
		out = append(out, ws...)
	}
	sortWarnings(out)
	return out
}

// fileState is what the index compares of a shard on disk: a shard replaced
// by another file (git checkout, a rename over it) has a new inode even
// when size and mtime match.
type fileState struct {
	size, mtime int64
	ino         uint64
}
