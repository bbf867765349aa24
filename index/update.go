package index

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"lore/internal/mmapfile"
	"lore/kinds"
	"lore/record"
	"lore/store"
)

// parseAll parses the queued shards on every core, newest month first,
// until ctx is done or the budget is spent; the rest are left pending.
func (sc *scan) parseAll() error {
	slices.SortFunc(sc.jobs, func(a, b parseJob) int {
		// A shard's directory is its month (2026-11) in every kind but
		// patterns; newer months first, so that a cut scan has what a
		// session most likely asks about, such as a pulled handoff.
		if c := strings.Compare(filepath.Base(filepath.Dir(b.rel)), filepath.Base(filepath.Dir(a.rel))); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	})
	var deadline time.Time
	switch {
	case sc.budget > 0 && sc.old != nil:
		deadline = time.Unix(0, sc.start).Add(sc.budget)
	case sc.coldBudget > 0 && sc.old == nil:
		deadline = time.Unix(0, sc.start).Add(sc.coldBudget)
	}
	workers := min(runtime.GOMAXPROCS(0), max(len(sc.jobs), 1))
	out := make([]*shardFile, len(sc.jobs))
	errs := make([]error, len(sc.jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var scratch encoder
			for i := range next {
				out[i], errs[i] = sc.parse(sc.jobs[i], &scratch)
			}
		})
	}
	for i := range sc.jobs {
		if i >= workers && (sc.ctx.Err() != nil || !deadline.IsZero() && time.Now().After(deadline)) {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range sc.jobs {
		var unreadable *unreadableError
		if errors.As(errs[i], &unreadable) {
			// Left pending, so every reader tries it again, and reported:
			// one shard nobody can read must not hide all the others.
			sc.unreadable = append(sc.unreadable, record.Warning{Pos: record.Pos{File: sc.store.Rel(unreadable.path)},
				Kind: record.WarnUnreadable, Msg: unreadable.Error()})
			sc.partial = true
			sc.pending = append(sc.pending, j.rel)
			continue
		}
		if errs[i] != nil {
			return errs[i]
		}
		if out[i] == nil {
			sc.partial, sc.behind = true, true
			sc.pending = append(sc.pending, j.rel)
			continue
		}
		sc.parsed = append(sc.parsed, out[i])
	}
	slices.Sort(sc.pending)
	return nil
}

// parse reads one shard. It was stat'ed before it is read, so a write in
// between shows as a changed shard next time, never as a missed one.
// Records are encoded in scratch and kept at their exact size: a build
// holds them all until its segment is written.
func (sc *scan) parse(j parseJob, scratch *encoder) (*shardFile, error) {
	abs := filepath.Join(sc.store.Dir, j.rel)
	if j.size == unstated {
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular():
			// Gone since a scan left it pending (or not a shard: a FIFO
			// in its place would hang the read; doctor reports it).
			return &shardFile{rel: j.rel, gone: true}, nil
		case err != nil:
			return nil, &unreadableError{abs, err}
		}
		st := stateOf(fi)
		j.size, j.mtime, j.ino = st.size, st.mtime, st.ino
	}
	data, err := readShard(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(abs); lerr != nil {
			return &shardFile{rel: j.rel, gone: true}, nil // removed since it was listed
		}
	}
	if err != nil {
		return nil, &unreadableError{abs, err}
	}
	recs, warns, err := kinds.ParseShard(sc.store.Rel(abs), data)
	if err != nil {
		return nil, err
	}
	f := &shardFile{rel: j.rel, size: j.size, mtime: j.mtime, ino: j.ino, sum: checksum(data), warns: warns,
		versions: make([]version, 0, len(recs))}
	for _, r := range recs {
		t, b := sc.tok.Terms(r)
		scratch.b = scratch.b[:0]
		encodeRecord(scratch, r)
		f.versions = append(f.versions, newVersion(r, slices.Clone(scratch.b), t, b, sc.dict))
	}
	return f, nil
}

// readShard reads a shard; a variable so tests can make one unreadable,
// which permissions cannot do to a test run as root.
var readShard = os.ReadFile

// unreadableError is a shard that exists but cannot be read.
type unreadableError struct {
	path string
	err  error
}

func (e *unreadableError) Error() string {
	return "cannot read it (" + store.Cause(e.err) + "): what it holds now is left out until it can be read; 'lore doctor' says more"
}

// update writes what the scan found back to the index, and returns the
// segments that now describe the store and their resolution. An index
// whose manifest lacks the resolution (one written by an older lore) is
// written again with it.
func (sc *scan) update() ([]*segment, *resolution) {
	// compact: every segment is merged into the new one (lore index), when
	// there are more than compactAbove of them, a new one included.
	files := len(sc.segs)
	if len(sc.parsed) > 0 || len(sc.gone) > 0 {
		files++
	}
	compact := sc.compactAbove > 0 && files > sc.compactAbove
	if sc.old != nil && len(sc.parsed) == 0 && len(sc.gone) == 0 && !sc.dirsMoved && slices.Equal(sc.pending, sc.old.pending) && !compact {
		if res := decodeResolution(sc.old.resolved, sc.segs); res != nil {
			return sc.segs, res
		}
		if len(sc.segs) < 2 {
			return sc.segs, resolve(sc.segs)
		}
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
	if len(material) > 0 || compact {
		rows := 0
		for _, f := range material {
			rows += len(f.versions)
		}
		for len(keep) > 0 && (keep[len(keep)-1].nRows <= max(rows, smallSegment) || compact) {
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
					if v, err := seg.version(row, sc.dict); err == nil {
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
	m := &manifest{written: sc.start, dirs: sc.dirs, warns: map[string][]record.Warning{}, pending: sc.pending}
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
	// What a prompt read while lore index works serves its answer only.
	inMemory := sc.leavesToCatchUp()
	segs := slices.Clone(keep)
	var written []string
	if len(material) > 0 {
		name := segmentName()
		data := encodeSegment(sc.tok.stamp(), sc.start, material, sc.dict)
		var seg *segment
		if !inMemory {
			if s, err := sc.writeSegment(name, data); err == nil {
				seg = s
				written = append(written, name)
			} else {
				sc.unsaved = err
			}
		}
		if seg == nil { // in memory, or the write failed
			s, err := data.open(name, sc.tok.stamp())
			if err != nil {
				return sc.segs, resolve(sc.segs) // cannot happen: the segment was just laid out
			}
			seg = s
		}
		segs = append(segs, seg)
	}
	for _, seg := range segs {
		m.segs = append(m.segs, seg.name)
		m.sums = append(m.sums, seg.sum)
	}
	// Segments as they were resolve as they did: only the directories or
	// the pending list changed (a prompt after a pull, cut short).
	var res *resolution
	if len(material) == 0 && sc.old != nil {
		res = decodeResolution(sc.old.resolved, segs)
	}
	if res == nil {
		res = resolve(segs)
	}
	m.resolved = string(res.encode())
	// A manifest naming a segment that could not be written would send
	// every later reader to a whole rebuild (on a full disk, each prompt
	// took 0.3 to 0.4 s at 20k records): the index stays as it was.
	if !inMemory && sc.unsaved == nil {
		sc.publish(m, written)
	}
	sc.segs = segs
	sc.old = m
	return segs, res
}

// writeSegmentFile writes a segment's file: a var so that tests can fail
// it as a full disk does.
var writeSegmentFile = writeFile

// writeSegment writes a new segment to the index directory and maps it
// back. A build writes one segment, however big: readers resolve each
// newer segment's records against the older ones, work that must stay as
// small as the changes (a cold build split into one segment per core made
// every prompt hook at 100k records five times slower).
func (sc *scan) writeSegment(name string, data encodedSegment) (*segment, error) {
	dir := indexDir(sc.store, sc.tok)
	if err := makeIndexDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	if err := writeSegmentFile(path, data.parts()...); err != nil {
		return nil, err
	}
	mapped, err := mmapfile.Map(path)
	var seg *segment
	if err == nil {
		seg, err = parseSegment(name, mapped, sc.tok.stamp())
	}
	if err == nil {
		// Of the bytes in memory, not the mapping: reading the file back
		// would fault in every page a hook's reader never touches.
		seg.sum = checksumParts(data.parts())
	}
	if err != nil {
		_ = os.Remove(path) // the caller holds the segment in memory instead
		return nil, err
	}
	return seg, nil
}

// publish writes the manifest naming the segments written, unless another
// process is updating the index or already has: the index is derived, so
// losing the race costs only the work, and the segments written for it
// are removed.
func (sc *scan) publish(m *manifest, written []string) {
	dir := indexDir(sc.store, sc.tok)
	published := false
	defer func() {
		if !published {
			for _, name := range written {
				_ = os.Remove(filepath.Join(dir, name))
			}
		}
	}()
	if err := makeIndexDir(dir); err != nil {
		sc.unsaved = err
		return
	}
	store.IgnoreLocal(sc.store.Dir)
	unlock, ok := tryLock(filepath.Join(dir, "lock"))
	if !ok {
		sc.lost = true
		return
	}
	defer unlock()
	if cur := readManifest(sc.store, sc.tok); !cur.sameAs(sc.read) {
		sc.lost = true
		return // another process published since this one read the manifest
	}
	if err := writeFile(manifestPath(sc.store, sc.tok), m.encode(sc.tok.stamp())); err != nil {
		sc.unsaved = err
		return
	}
	published = true
	removeOrphans(dir, m.segs, sc.read)
	removeStaleFormats(indexRoot(sc.store.Dir), filepath.Base(dir))
	_ = os.RemoveAll(filepath.Join(sc.store.Dir, store.LocalDir, "cache")) // lore versions before the index
}

// removeOrphans deletes segment files the manifest does not name and the
// temporary files of writers that died (removeTemp). A segment the replaced manifest named
// goes at once: no writer can publish it again (publish compares the
// manifest it read), and a reader that read the old manifest and finds it
// gone reads the manifest again (Open); one that has it mapped keeps it.
// Any other is removed once older than orphanAge, as it may be a writer's
// about to be published. (Merged segments young enough to be orphans
// stayed on disk until the next publish a minute later, which a steady
// store may never make: 16 MB of them at 45k records.)
func removeOrphans(dir string, named []string, replaced *manifest) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) && e.Type().IsRegular() {
			removeTemp(filepath.Join(dir, e.Name()))
			continue
		}
		if !strings.HasSuffix(e.Name(), ".seg") || slices.Contains(named, e.Name()) {
			continue
		}
		if replaced != nil && slices.Contains(replaced.segs, e.Name()) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > orphanAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func segmentName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b) + ".seg"
}
