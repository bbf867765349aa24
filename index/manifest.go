package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"lore/internal/mmapfile"
	"lore/record"
	"lore/store"
)

// The manifest (.lore/.local/index/FORMAT/manifest, see formatDir) names the segments that make
// up the index, oldest first, and what the index knew of each directory of
// shards when it was written: its mtime, change time and subdirectories. A shard is
// described by the newest segment that lists it (a tombstone there means
// it was removed). The manifest is small and replaced whole, by rename,
// after the segments it names are in place. Since LOREIDX4 it also holds
// the segments' resolution; a LOREIDX3 manifest is read without one.
// Since LOREIDX5 each directory's change time and each segment's checksum;
// a LOREIDX4 one is read without them: its directories are read once
// again, and doctor rebuilds segments whose checksum it does not know.

const (
	manifestMagic   = "LOREIDX5"
	manifestMagicV4 = "LOREIDX4"
	manifestMagicV3 = "LOREIDX3"
)

type manifest struct {
	written int64 // when the scan that wrote it began, UnixNano
	segs    []string
	dirs    map[string]*dirEntry
	// warns are the warnings of every shard the index covers, by shard,
	// so a reader reports them without decoding every shard's entry.
	warns map[string][]record.Warning
	// pending are the shards a scan found changed but did not parse (it
	// ran out of time), sorted. Their directories
	// are described as they are now, so every reader checks these shards
	// by name until one parses them: a cut scan is never taken for a
	// complete one, and the next reader resumes without listing anything.
	pending []string
	// resolved is the segments' resolution, encoded (see resolution);
	// empty when not known, and then computed by each reader.
	resolved string
	// sums are the segments' checksums (crc32c of each file), as segs:
	// a thorough scan compares them, as a segment's framing is checked
	// on every read but not its content. Nil before LOREIDX5.
	sums []uint32
}

// dirEntry is a directory of shards as the index last saw it.
type dirEntry struct {
	mtime   int64
	ctime   int64 // see statDirectory; 0 where unknown (Windows, a LOREIDX4 manifest)
	subdirs []string
}

// indexRoot holds the store's indexes, one directory for each format
// (formatDir); Drop removes it whole.
func indexRoot(storeDir string) string {
	return filepath.Join(storeDir, store.LocalDir, store.IndexDir)
}

// indexDir is the directory of the store's index in this lore's format,
// with terms made by tok.
func indexDir(s *store.Store, tok Tokenizer) string { return indexDirOf(s.Dir, tok) }

func indexDirOf(storeDir string, tok Tokenizer) string {
	return filepath.Join(indexRoot(storeDir), formatDir(tok))
}

// makeIndexDir makes the index's directory dir. Anything else of its
// name, or of its parent's, not a link (store.Check refuses those), is
// removed first: .local is lore's own, and with a file there no index was
// ever written, so every command read the whole store (new-user run 30).
func makeIndexDir(dir string) error {
	for _, d := range []string{filepath.Dir(dir), dir} { // .local/index too
		if fi, err := os.Lstat(d); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
			if err := os.Remove(d); err != nil {
				return err
			}
		}
	}
	return os.MkdirAll(dir, store.DirMode)
}

// formatDir names the directory of an index by the formats of its files
// and the tokenizer that made its terms: two lore versions on one machine
// (a plugin's bundled binary beside one on the PATH) each keep an index
// of their own. They shared one directory, and each took the index the
// other had written for damaged or outdated (a search at 20k records took
// 119-186 ms, a whole rebuild, against 7 ms with an index each). An index no lore has written for
// staleIndexAge is removed by the next one to write its own
// (removeStaleFormats).
func formatDir(tok Tokenizer) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, manifestMagic+"-"+segMagic+"-"+tok.stamp())
}

// staleIndexAge is how long an index of another format is kept unwritten:
// the lore that writes it may still run now and then, and would rebuild
// it (lore's own, at an upgrade, is never written again).
const staleIndexAge = 14 * 24 * time.Hour

// removeStaleFormats removes the indexes of other formats than mine under
// root that no lore has written for staleIndexAge: a directory once it
// and every file in it are that old, and the files of the layout before
// formatDir (an index directly in root) once every one of them is. Not
// the manifest's age alone: a lore that builds its index or catches it up
// writes segments, temporary files and its lock's heartbeat long before
// its manifest, and lost them to this (new-user run 30: a whole rebuild
// at 100k records). Links are never followed (store.Check refuses them).
func removeStaleFormats(root, mine string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	var flat []string
	flatStale := true
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		switch {
		case e.Name() == mine:
		case e.IsDir():
			if unwrittenFor(staleIndexAge, p) && !inUse(p) {
				_ = os.RemoveAll(p)
			}
		case e.Type().IsRegular():
			flat = append(flat, p)
			flatStale = flatStale && unwrittenFor(staleIndexAge, p)
		}
	}
	if !flatStale || inUse(root) {
		return
	}
	for _, p := range flat {
		_ = os.Remove(p)
	}
}

// inUse reports whether a lore holds the lock or the catch-up lock of the
// index in dir: one catching up an old index reads for a while before it
// writes anything (run 31: the flat layout's catch-up lost its index).
func inUse(dir string) bool {
	return heldElsewhere(filepath.Join(dir, "lock")) || heldElsewhere(filepath.Join(dir, "catchup"))
}

// unwrittenFor reports whether path, and every file in it if it is a
// directory, was last modified more than age ago.
func unwrittenFor(age time.Duration, path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) // gone meanwhile; unknown otherwise
	}
	if time.Since(fi.ModTime()) <= age {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false // another user's, unreadable: not this one's to judge
	}
	for _, e := range entries {
		if !unwrittenFor(age, filepath.Join(path, e.Name())) {
			return false
		}
	}
	return true
}

// Drop deletes the index, so that no copy of a purged record outlives it
// in a segment; the next command rebuilds it from the shards. The index is
// first renamed aside, in one step: a reader writing a segment into it
// meanwhile (a prompt hook during a purge) made RemoveAll fail with
// "directory not empty" after the purge was done.
func Drop(s *store.Store) error {
	dir := indexRoot(s.Dir) // every format's index holds the text
	aside := fmt.Sprintf("%s.dropped-%d", dir, time.Now().UnixNano())
	if err := os.Rename(dir, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	var err error
	for range 5 { // a reader still writing into it finishes soon
		if err = os.RemoveAll(aside); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

func manifestPath(s *store.Store, tok Tokenizer) string {
	return filepath.Join(indexDir(s, tok), "manifest")
}

// readManifest returns nil when there is no usable manifest: missing,
// damaged, or written for another tokenizer.
//
// It is read as a mapping is made (mmapfile.Read), which refuses what is
// not a regular file: a FIFO named manifest blocked every command.
// decodeManifest copies what it keeps.
func readManifest(s *store.Store, tok Tokenizer) *manifest {
	var m *manifest
	_ = mmapfile.Read(manifestPath(s, tok), func(data []byte) error {
		m = decodeManifest(data, tok.stamp())
		return nil
	})
	return m
}

// decodeManifest reads a manifest file's bytes, or returns nil.
func decodeManifest(data []byte, tokVersion string) *manifest {
	if len(data) < len(manifestMagic) {
		return nil
	}
	magic := string(data[:len(manifestMagic)])
	if magic != manifestMagic && magic != manifestMagicV4 && magic != manifestMagicV3 {
		return nil
	}
	d := &decoder{b: string(data[len(manifestMagic):])}
	if d.str() != tokVersion {
		return nil
	}
	m := &manifest{written: d.int(), segs: d.strs(), dirs: map[string]*dirEntry{},
		warns: map[string][]record.Warning{}}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		rel := d.str()
		de := &dirEntry{mtime: d.int()}
		if magic == manifestMagic {
			de.ctime = d.int()
		}
		de.subdirs = d.strs()
		m.dirs[rel] = de
	}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		rel := d.str()
		for k := d.count(); k > 0 && d.err == nil; k-- {
			m.warns[rel] = append(m.warns[rel], d.warning())
		}
	}
	m.pending = d.strs()
	if magic != manifestMagicV3 {
		m.resolved = d.str()
	}
	if magic == manifestMagic {
		if n := d.count(); n > 0 {
			if n != len(m.segs) {
				return nil
			}
			m.sums = make([]uint32, n)
			for i := range m.sums {
				m.sums[i] = uint32(d.uint())
			}
		}
	}
	if d.err != nil || len(d.b) != 0 {
		return nil
	}
	return m
}

func (m *manifest) encode(tokVersion string) []byte { return m.encodeAs(manifestMagic, tokVersion) }

// encodeAs writes the manifest in the layout of magic: an earlier format
// for the tests that read one.
func (m *manifest) encodeAs(magic, tokVersion string) []byte {
	e := &encoder{}
	e.b = append(e.b, magic...)
	e.str(tokVersion)
	e.int(m.written)
	e.strs(m.segs)
	rels := make([]string, 0, len(m.dirs))
	for rel := range m.dirs {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	e.uint(uint64(len(rels)))
	for _, rel := range rels {
		de := m.dirs[rel]
		e.str(rel)
		e.int(de.mtime)
		if magic == manifestMagic {
			e.int(de.ctime)
		}
		e.strs(de.subdirs)
	}
	rels = rels[:0]
	for rel := range m.warns {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	e.uint(uint64(len(rels)))
	for _, rel := range rels {
		e.str(rel)
		e.uint(uint64(len(m.warns[rel])))
		for _, w := range m.warns[rel] {
			e.warning(w)
		}
	}
	e.strs(m.pending)
	if magic != manifestMagicV3 {
		e.str(m.resolved)
	}
	if magic == manifestMagic {
		e.uint(uint64(len(m.sums)))
		for _, sum := range m.sums {
			e.uint(uint64(sum))
		}
	}
	return e.b
}

// sameAs says whether o describes the same index (another process may
// have written one since m was read).
func (m *manifest) sameAs(o *manifest) bool {
	if m == nil || o == nil {
		return m == nil && o == nil
	}
	return m.written == o.written && slices.Equal(m.segs, o.segs)
}

func sortWarnings(ws []record.Warning) {
	sort.SliceStable(ws, func(i, j int) bool {
		a, b := ws[i].Pos, ws[j].Pos
		return a.File < b.File || a.File == b.File && a.Line < b.Line
	})
}
