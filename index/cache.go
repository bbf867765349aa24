package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unsafe"

	"lore/record"
	"lore/store"
)

// The cache (.lore/.local/cache/records.bin) is derived, gitignored and
// never the source of truth. It holds, per shard, the parsed record
// versions with their search terms (keyed by the shard's size and mtime),
// and, for the current version of every record, a table sorted by ID and an
// inverted index (term → records). A warm read maps the file, checks the
// shards, and decodes only what it uses. Shards that grew since the cache
// was written (appends) are parsed and merged in as a delta; anything else
// — a shard that shrank or vanished, a large delta, a damaged cache, a new
// tokenizer — rebuilds it.

const cacheMagic = "LORECACHE3"

// Tokenizer gives a record's headline and body search terms. Version names
// the tokenizer so a cache made by another one is not trusted.
type Tokenizer struct {
	Version string
	Terms   func(*record.Record) (title, body []string)
}

// SnapshotOptions choose how carefully the cache is checked.
type SnapshotOptions struct {
	Tokenizer Tokenizer
	// Fast trusts an older month's JSONL shards while their directory is
	// unchanged (git replaces files, which changes the directory; lore only
	// appends in the current month), and merges a small delta instead of
	// rewriting the cache. Patterns, edited in place by hand, and each
	// kind's newest month are always checked. The prompt hook uses it.
	Fast bool
}

// Delta limits: past them the cache is rewritten even in fast mode.
const (
	maxDeltaFiles    = 64
	maxDeltaVersions = 2000
)

// version is one parsed record version with its terms.
type version struct {
	rec         *record.Record
	title, body []string
}

type cachedFile struct {
	size, mtime int64
	warns       []record.Warning
	versions    []version // filled when parsed or decoded for a rebuild
	blob        string    // the file's encoded versions in the cache
}

type cachedDir struct {
	mtime   int64
	subdirs []string
	files   []string
}

// cacheState is the cache as read, or as about to be written.
type cacheState struct {
	written int64
	dirs    map[string]*cachedDir
	files   map[string]*cachedFile
	fileIDs []string // file index → path, for the doc table
	blobs   []string // file index → its blob, as read
	docs    []docEntry
	vocab   []string // sorted
	posts   []string // encoded postings, parallel to vocab
}

// docEntry is a current record in the doc table.
type docEntry struct {
	Doc
	file int // index into fileIDs
	off  int // where the record starts in its file's blob
	rec  *record.Record
}

// racyWindow: entries modified this close to the cache's writing are
// re-read, covering file systems with coarse timestamps (git's "racy
// clean" problem).
const racyWindow = int64(2 * time.Second)

// Snapshot reads the current records through the cache. It stops parsing
// when ctx is done and marks the snapshot Partial.
func Open(ctx context.Context, s *store.Store, o SnapshotOptions) (*Snapshot, error) {
	old := readCache(s, o.Tokenizer.Version)
	sc := &scan{store: s, ctx: ctx, opts: o, old: old,
		dirs: map[string]*cachedDir{}, files: map[string]*cachedFile{}, changed: map[string]bool{}}
	for _, k := range record.AllKinds() {
		if err := sc.dir(k, k.Dir(), true); err != nil {
			return nil, err
		}
	}
	removed := false
	for rel := range old.files {
		if sc.files[rel] == nil {
			removed = true
		}
	}
	dirsChanged := len(sc.dirs) != len(old.dirs)
	for rel, d := range sc.dirs {
		if od := old.dirs[rel]; od == nil || od.mtime != d.mtime {
			dirsChanged = true
		}
	}
	var warns []record.Warning
	for _, f := range sc.files {
		warns = append(warns, f.warns...)
	}
	sortWarnings(warns)
	// Warm, or a small append-only delta in fast mode: use the cache as is.
	if old.docs != nil && !removed && !sc.shrank && (len(sc.changed) == 0 ||
		o.Fast && len(sc.changed) <= maxDeltaFiles && sc.deltaVersions <= maxDeltaVersions) {
		if len(sc.changed) == 0 && dirsChanged {
			// Only directory times moved: keep the cache's view current.
			old.dirs = sc.dirs
			writeCache(s, o.Tokenizer.Version, old)
		}
		return newSnapshot(old, sc, warns), nil
	}
	st, err := sc.rebuild()
	if err != nil {
		return nil, err
	}
	// A partial rebuild is written too: the shards it did not reach are
	// simply absent, so the next read parses them, and progress is kept.
	writeCache(s, o.Tokenizer.Version, st)
	snap := newSnapshot(st, &scan{}, warns)
	snap.Partial = sc.partial
	return snap, nil
}

// scan walks the store against the old cache.
type scan struct {
	store         *store.Store
	ctx           context.Context
	opts          SnapshotOptions
	old           *cacheState
	dirs          map[string]*cachedDir
	files         map[string]*cachedFile
	changed       map[string]bool // shards parsed anew
	shrank        bool            // a changed shard is not a pure append
	deltaVersions int
	partial       bool
}

func (sc *scan) dir(k record.Kind, rel string, newest bool) error {
	abs := filepath.Join(sc.store.Dir, rel)
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	mtime := fi.ModTime().UnixNano()
	prev := sc.old.dirs[rel]
	unchanged := prev != nil && prev.mtime == mtime && mtime < sc.old.written-racyWindow
	trust := sc.opts.Fast && unchanged && !newest && k != record.Pattern
	d := prev
	if !unchanged {
		entries, err := os.ReadDir(abs)
		if err != nil {
			return err
		}
		d = &cachedDir{mtime: mtime}
		for _, e := range entries {
			switch {
			case e.IsDir() && !strings.HasPrefix(e.Name(), "."):
				d.subdirs = append(d.subdirs, e.Name())
			case !e.IsDir() && strings.HasSuffix(e.Name(), k.Ext()):
				d.files = append(d.files, e.Name())
			}
		}
	}
	sc.dirs[rel] = d
	for _, name := range d.files {
		frel := filepath.Join(rel, name)
		if f := sc.old.files[frel]; trust && f != nil {
			sc.files[frel] = f
			continue
		}
		if err := sc.file(frel); err != nil {
			return err
		}
	}
	for i, sub := range d.subdirs {
		// Month names sort: the last subdirectory is where appends land.
		if err := sc.dir(k, filepath.Join(rel, sub), newest && i == len(d.subdirs)-1); err != nil {
			return err
		}
	}
	return nil
}

func (sc *scan) file(rel string) error {
	abs := filepath.Join(sc.store.Dir, rel)
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	prev := sc.old.files[rel]
	if prev != nil && prev.size == size && prev.mtime == mtime && mtime < sc.old.written-racyWindow {
		sc.files[rel] = prev
		return nil
	}
	if prev != nil && size < prev.size {
		sc.shrank = true
	}
	if sc.ctx.Err() != nil {
		sc.partial = true
		return nil
	}
	f, err := sc.parse(rel, size, mtime)
	if err != nil {
		return err
	}
	sc.files[rel] = f
	sc.changed[rel] = true
	sc.deltaVersions += len(f.versions)
	return nil
}

func (sc *scan) parse(rel string, size, mtime int64) (*cachedFile, error) {
	abs := filepath.Join(sc.store.Dir, rel)
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	recs, warns, err := record.ParseShard(sc.store.Rel(abs), data)
	if err != nil {
		return nil, err
	}
	f := &cachedFile{size: size, mtime: mtime, warns: warns}
	for _, r := range recs {
		t, b := sc.opts.Tokenizer.Terms(r)
		f.versions = append(f.versions, version{r, t, b})
	}
	return f, nil
}

// rebuild makes a whole new cache state from the scanned shards, decoding
// unchanged shards' versions from the old cache.
func (sc *scan) rebuild() (*cacheState, error) {
	st := &cacheState{dirs: sc.dirs, files: sc.files}
	var all []version
	var fileOf []int
	for rel, f := range sc.files {
		if f.versions == nil && f.blob != "" {
			vs, err := decodeVersions(f.blob, sc.old.vocab)
			if err != nil {
				return nil, err
			}
			f.versions = vs
		}
		idx := len(st.fileIDs)
		st.fileIDs = append(st.fileIDs, rel)
		for _, v := range f.versions {
			all = append(all, v)
			fileOf = append(fileOf, idx)
		}
	}
	st.buildIndex(all, fileOf)
	return st, nil
}

func sortWarnings(ws []record.Warning) {
	sort.Slice(ws, func(i, j int) bool {
		a, b := ws[i].Pos, ws[j].Pos
		return a.File < b.File || a.File == b.File && a.Line < b.Line
	})
}

func cachePath(s *store.Store) string {
	return filepath.Join(s.Dir, store.LocalDir, "cache", "records.bin")
}

func readCache(s *store.Store, tokVersion string) *cacheState {
	empty := &cacheState{dirs: map[string]*cachedDir{}, files: map[string]*cachedFile{}}
	data, err := mapFile(cachePath(s))
	if err != nil || len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != cacheMagic {
		return empty
	}
	// The bytes are read-only and never released while the process runs
	// (the cache is replaced by rename, never rewritten in place), so
	// strings can share them.
	d := &decoder{b: unsafe.String(&data[0], len(data))[len(cacheMagic):]}
	if d.str() != tokVersion {
		return empty
	}
	st := &cacheState{written: d.int(), dirs: map[string]*cachedDir{}, files: map[string]*cachedFile{}}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		rel := d.str()
		st.dirs[rel] = &cachedDir{mtime: d.int(), subdirs: d.strs(), files: d.strs()}
	}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		rel := d.str()
		f := &cachedFile{size: d.int(), mtime: d.int()}
		for m := d.count(); m > 0 && d.err == nil; m-- {
			f.warns = append(f.warns, record.Warning{Pos: record.Pos{File: d.str(), Line: int(d.uint())}, Kind: record.WarningKind(d.uint()), Msg: d.str()})
		}
		f.blob = d.str()
		st.files[rel] = f
		st.fileIDs = append(st.fileIDs, rel)
		st.blobs = append(st.blobs, f.blob)
	}
	st.vocab = d.strs()
	st.posts = make([]string, len(st.vocab))
	for i := range st.posts {
		st.posts[i] = d.str()
	}
	n := d.count()
	if d.err == nil {
		st.docs = make([]docEntry, 0, n)
	}
	for ; n > 0 && d.err == nil; n-- {
		de := docEntry{}
		de.ID, de.Kind, de.Status = d.str(), record.Kind(d.str()), d.str()
		de.Time, de.Created = d.int(), d.int()
		de.Confidence = d.float()
		de.ErrorType, de.Tool = d.str(), d.str()
		de.NTitle = int(d.uint())
		de.NBody = int(d.uint())
		de.file, de.off = int(d.uint()), int(d.uint())
		if de.file >= len(st.blobs) || de.off >= len(st.blobs[de.file]) {
			d.err = errCorrupt
		}
		st.docs = append(st.docs, de)
	}
	if d.err != nil {
		return empty
	}
	return st
}

func writeCache(s *store.Store, tokVersion string, st *cacheState) {
	e := &encoder{b: make([]byte, 0, 1<<20)}
	e.b = append(e.b, cacheMagic...)
	e.str(tokVersion)
	e.int(time.Now().UnixNano())
	e.uint(uint64(len(st.dirs)))
	for rel, d := range st.dirs {
		e.str(rel)
		e.int(d.mtime)
		e.strs(d.subdirs)
		e.strs(d.files)
	}
	termIdx := make(map[string]uint64, len(st.vocab))
	for i, t := range st.vocab {
		termIdx[t] = uint64(i)
	}
	// Files in fileIDs order, so doc entries can name them by index; a
	// current record is stored once, in its file's blob, at offset.
	offsets := map[*record.Record]int{}
	e.uint(uint64(len(st.fileIDs)))
	for _, rel := range st.fileIDs {
		f := st.files[rel]
		e.str(rel)
		e.int(f.size)
		e.int(f.mtime)
		e.uint(uint64(len(f.warns)))
		for _, w := range f.warns {
			e.str(w.Pos.File)
			e.uint(uint64(w.Pos.Line))
			e.uint(uint64(w.Kind))
			e.str(w.Msg)
		}
		blob := f.blob
		if f.versions != nil {
			blob = encodeVersions(f.versions, termIdx, offsets)
		}
		e.str(blob)
	}
	e.strs(st.vocab)
	for _, p := range st.posts {
		e.str(p)
	}
	e.uint(uint64(len(st.docs)))
	for _, de := range st.docs {
		e.str(de.ID)
		e.str(string(de.Kind))
		e.str(de.Status)
		e.int(de.Time)
		e.int(de.Created)
		e.float(de.Confidence)
		e.str(de.ErrorType)
		e.str(de.Tool)
		e.uint(uint64(de.NTitle))
		e.uint(uint64(de.NBody))
		e.uint(uint64(de.file))
		off, ok := offsets[de.rec]
		if !ok {
			off = de.off // the file was not re-encoded
		}
		e.uint(uint64(off))
	}
	_ = store.WriteAtomic(cachePath(s), e.b)
}

// encodeVersions encodes a shard's versions with their terms as indexes
// into the vocabulary, noting where each record starts.
func encodeVersions(vs []version, termIdx map[string]uint64, offsets map[*record.Record]int) string {
	var e encoder
	e.uint(uint64(len(vs)))
	for _, v := range vs {
		offsets[v.rec] = len(e.b)
		encodeRecord(&e, v.rec)
		for _, ts := range [][]string{v.title, v.body} {
			e.uint(uint64(len(ts)))
			for _, t := range ts {
				e.uint(termIdx[t])
			}
		}
	}
	return string(e.b)
}

func decodeVersions(blob string, vocab []string) ([]version, error) {
	d := &decoder{b: blob}
	terms := func() []string {
		n := d.count()
		if n == 0 || d.err != nil {
			return nil
		}
		out := make([]string, n)
		for i := range out {
			if j := d.uint(); j < uint64(len(vocab)) {
				out[i] = vocab[j]
			} else {
				d.err = errCorrupt
			}
		}
		return out
	}
	var vs []version
	for n := d.count(); n > 0 && d.err == nil; n-- {
		r := decodeRecord(d)
		vs = append(vs, version{r, terms(), terms()})
	}
	return vs, d.err
}
