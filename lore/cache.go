package lore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// The cache is derived, gitignored (.lore/.local/cache/records.bin) and
// never the source of truth: it holds each shard's parsed records with
// their search terms, keyed by the shard's size and modification time, so
// a read parses only the shards that changed since the last one. Any
// damage, or a change of format or tokenizer, means it is rebuilt.

const cacheMagic = "LORECACHE2"

// Indexed is a record with its search terms.
type Indexed struct {
	*Record
	Title, Body []string
}

// Tokenizer gives a record's headline and body search terms. Version names
// the tokenizer so a cache made by another one is not trusted.
type Tokenizer struct {
	Version string
	Terms   func(*Record) (title, body []string)
}

// Snapshot is the current version of every record, with terms.
type Snapshot struct {
	Current  []Indexed // newest first by creation
	Warnings []Warning
	Partial  bool // reading stopped at the deadline; some shards are missing
}

type cachedFile struct {
	size, mtime int64
	recs        []Indexed
	warns       []Warning
}

type cachedDir struct {
	mtime   int64
	subdirs []string
	files   []string
}

type cacheState struct {
	written int64                  // when the cache was written, UnixNano
	files   map[string]*cachedFile // by path relative to the store
	dirs    map[string]*cachedDir
}

// racyWindow: entries modified this close to the cache's writing are
// re-read, covering file systems with coarse timestamps.
const racyWindow = int64(2 * time.Second)

// SnapshotOptions choose how carefully the cache is checked.
type SnapshotOptions struct {
	Tokenizer Tokenizer
	// Fast trusts an older month's JSONL shards while their directory is
	// unchanged (git replaces files, which changes the directory; lore only
	// appends in the current month). Patterns, edited in place by hand, and
	// each kind's newest month are always checked. The prompt hook uses it.
	Fast bool
}

// Snapshot reads the current records through the cache. It stops parsing
// when ctx is done and marks the snapshot Partial; what it parsed is kept
// for the next call.
func (s *Store) Snapshot(ctx context.Context, o SnapshotOptions) (*Snapshot, error) {
	old := s.readCache(o.Tokenizer.Version)
	now := &cacheState{files: map[string]*cachedFile{}, dirs: map[string]*cachedDir{}}
	snap := &Snapshot{}
	changed := false
	for _, k := range AllKinds() {
		c, err := s.scanDir(ctx, k, k.Dir(), true, old, now, o, snap)
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	if len(now.files) != len(old.files) || len(now.dirs) != len(old.dirs) {
		changed = true
	}
	if changed {
		s.writeCache(o.Tokenizer.Version, now) // best effort: a read-only store still reads
	}
	byID := map[string]int{}
	for _, f := range now.files {
		snap.Warnings = append(snap.Warnings, f.warns...)
		for _, r := range f.recs {
			if i, ok := byID[r.ID]; ok {
				if Newer(r.Record, snap.Current[i].Record) {
					snap.Current[i] = r
				}
				continue
			}
			byID[r.ID] = len(snap.Current)
			snap.Current = append(snap.Current, r)
		}
	}
	slices.SortFunc(snap.Current, func(a, b Indexed) int {
		if c := cmp.Compare(b.Created.UnixNano(), a.Created.UnixNano()); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	sort.Slice(snap.Warnings, func(i, j int) bool {
		a, b := snap.Warnings[i].Pos, snap.Warnings[j].Pos
		return a.File < b.File || a.File == b.File && a.Line < b.Line
	})
	return snap, nil
}

// scanDir brings rel (a directory relative to the store) up to date in
// now, reusing old where it can. It reports whether anything changed.
func (s *Store) scanDir(ctx context.Context, k Kind, rel string, newest bool, old, now *cacheState, o SnapshotOptions, snap *Snapshot) (bool, error) {
	abs := filepath.Join(s.Dir, rel)
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	mtime := fi.ModTime().UnixNano()
	prev := old.dirs[rel]
	var d *cachedDir
	// A directory's entries are unchanged while its mtime is, unless the
	// mtime is so close to when the cache was written that a change in the
	// same clock tick could hide (git's "racy clean" problem).
	unchanged := prev != nil && prev.mtime == mtime && mtime < old.written-racyWindow
	trust := o.Fast && unchanged && !newest && k != Pattern
	if unchanged {
		d = prev
	} else {
		entries, err := os.ReadDir(abs)
		if err != nil {
			return false, err
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
	now.dirs[rel] = d
	changed := prev == nil || prev.mtime != mtime
	for _, name := range d.files {
		frel := filepath.Join(rel, name)
		if trust && old.files[frel] != nil {
			now.files[frel] = old.files[frel]
			continue
		}
		c, err := s.scanFile(ctx, frel, old, now, o, snap)
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	for i, sub := range d.subdirs {
		// Only the last (newest, as month names sort) subdirectory of a
		// kind's directory is where appends land.
		c, err := s.scanDir(ctx, k, filepath.Join(rel, sub), newest && i == len(d.subdirs)-1, old, now, o, snap)
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	return changed, nil
}

func (s *Store) scanFile(ctx context.Context, rel string, old, now *cacheState, o SnapshotOptions, snap *Snapshot) (bool, error) {
	abs := filepath.Join(s.Dir, rel)
	fi, err := os.Stat(abs)
	if err != nil {
		return false, err
	}
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	if f := old.files[rel]; f != nil && f.size == size && f.mtime == mtime && mtime < old.written-racyWindow {
		now.files[rel] = f
		return false, nil
	}
	if ctx.Err() != nil {
		snap.Partial = true
		return false, nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return false, err
	}
	name := s.Rel(abs)
	var recs []*Record
	var warns []Warning
	if strings.HasSuffix(rel, ".toml") {
		recs, warns, err = ParseTOML(name, data)
	} else {
		recs, warns, err = ParseJSONL(name, data)
	}
	if err != nil {
		return false, err
	}
	f := &cachedFile{size: size, mtime: mtime, warns: warns}
	for _, r := range recs {
		title, body := o.Tokenizer.Terms(r)
		f.recs = append(f.recs, Indexed{r, title, body})
	}
	now.files[rel] = f
	return true, nil
}

func (s *Store) cachePath() string { return filepath.Join(s.Dir, LocalDir, "cache", "records.bin") }

func (s *Store) readCache(tokVersion string) *cacheState {
	st := &cacheState{files: map[string]*cachedFile{}, dirs: map[string]*cachedDir{}}
	data, err := os.ReadFile(s.cachePath())
	if err != nil || !strings.HasPrefix(string(data), cacheMagic) {
		return st
	}
	d := &decoder{b: string(data[len(cacheMagic):])}
	if d.str() != tokVersion {
		return st
	}
	st.written = d.int()
	vocab := d.strs()
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
	for n := d.count(); n > 0 && d.err == nil; n-- {
		rel, mtime := d.str(), d.int()
		cd := &cachedDir{mtime: mtime, subdirs: d.strs(), files: d.strs()}
		st.dirs[rel] = cd
	}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		rel := d.str()
		f := &cachedFile{size: d.int(), mtime: d.int()}
		for m := d.count(); m > 0 && d.err == nil; m-- {
			r := decodeRecord(d)
			f.recs = append(f.recs, Indexed{r, terms(), terms()})
		}
		for m := d.count(); m > 0 && d.err == nil; m-- {
			f.warns = append(f.warns, Warning{Pos{d.str(), int(d.uint())}, WarningKind(d.uint()), d.str()})
		}
		st.files[rel] = f
	}
	if d.err != nil {
		return &cacheState{files: map[string]*cachedFile{}, dirs: map[string]*cachedDir{}}
	}
	return st
}

func (s *Store) writeCache(tokVersion string, st *cacheState) {
	index := map[string]uint64{}
	var vocab []string
	intern := func(ts []string) {
		for _, t := range ts {
			if _, ok := index[t]; !ok {
				index[t] = uint64(len(vocab))
				vocab = append(vocab, t)
			}
		}
	}
	for _, f := range st.files {
		for _, r := range f.recs {
			intern(r.Title)
			intern(r.Body)
		}
	}
	e := &encoder{b: make([]byte, 0, 1<<20)}
	e.b = append(e.b, cacheMagic...)
	e.str(tokVersion)
	e.int(time.Now().UnixNano())
	e.strs(vocab)
	e.uint(uint64(len(st.dirs)))
	for rel, d := range st.dirs {
		e.str(rel)
		e.int(d.mtime)
		e.strs(d.subdirs)
		e.strs(d.files)
	}
	e.uint(uint64(len(st.files)))
	for rel, f := range st.files {
		e.str(rel)
		e.int(f.size)
		e.int(f.mtime)
		e.uint(uint64(len(f.recs)))
		for _, r := range f.recs {
			encodeRecord(e, r.Record)
			for _, ts := range [][]string{r.Title, r.Body} {
				e.uint(uint64(len(ts)))
				for _, t := range ts {
					e.uint(index[t])
				}
			}
		}
		e.uint(uint64(len(f.warns)))
		for _, w := range f.warns {
			e.str(w.Pos.File)
			e.uint(uint64(w.Pos.Line))
			e.uint(uint64(w.Kind))
			e.str(w.Msg)
		}
	}
	_ = writeAtomic(s.cachePath(), e.b)
}

// writeAtomic writes data to path through a temporary file and a rename,
// so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func encodeRecord(e *encoder, r *Record) {
	e.uint(uint64(r.V))
	e.str(r.ID)
	e.str(string(r.Kind))
	e.int(r.Time.UnixNano())
	e.int(r.Created.UnixNano())
	for _, s := range []string{r.Status, r.Text, r.Author, r.Branch, r.Commit, r.Rationale, r.Alternatives,
		r.Context, r.Solution, r.ErrorType, r.Tool, r.PromotedTo, r.From, r.Source.File} {
		e.str(s)
	}
	e.uint(uint64(r.Source.Line))
	e.strs(r.Tags)
	e.strs(r.Next)
	e.strs(r.Blocked)
	var flags uint64
	if r.Anti {
		flags |= 1
	}
	if r.Confidence != nil {
		flags |= 2
	}
	e.uint(flags)
	if r.Confidence != nil {
		e.float(*r.Confidence)
	}
	e.uint(uint64(r.Validations))
	var extra []byte
	if len(r.Extra) > 0 {
		extra, _ = json.Marshal(r.Extra)
	}
	e.bytes(extra)
}

func decodeRecord(d *decoder) *Record {
	r := &Record{V: int(d.uint()), ID: d.str(), Kind: Kind(d.str())}
	r.Time = time.Unix(0, d.int()).UTC()
	r.Created = time.Unix(0, d.int()).UTC()
	for _, p := range []*string{&r.Status, &r.Text, &r.Author, &r.Branch, &r.Commit, &r.Rationale, &r.Alternatives,
		&r.Context, &r.Solution, &r.ErrorType, &r.Tool, &r.PromotedTo, &r.From, &r.Source.File} {
		*p = d.str()
	}
	r.Source.Line = int(d.uint())
	r.Tags, r.Next, r.Blocked = d.strs(), d.strs(), d.strs()
	flags := d.uint()
	r.Anti = flags&1 != 0
	if flags&2 != 0 {
		c := d.float()
		r.Confidence = &c
	}
	r.Validations = int(d.uint())
	if extra := d.str(); len(extra) > 0 {
		_ = json.Unmarshal([]byte(extra), &r.Extra)
	}
	return r
}
