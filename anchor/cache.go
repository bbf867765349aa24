package anchor

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"lore/internal/mmapfile"
	"lore/store"
)

// The cache file (.lore/.local/anchors) holds what checks derived, each
// entry valid for as long as what it depends on is unchanged:
//
//	f  path → mtime size inode id   a file's object ID, while its stat holds
//	d  old new → hunks              the changes between two contents, for good
//	r  path → newpath               where a gone path went ("" if deleted)
//	w  path → unixtime              when a gone path was last changed by a commit
//
// The r and w entries were derived under the tree named in the header (HEAD
// and the git index): when that moves, those whose paths the move did not
// touch still hold (see Checker.unchangedSince), the rest are void. A
// commit leaves all but a few; following a gone path again costs a walk of
// history per hop, half a second in a long one. Entries are lines of
// tab-separated fields, sorted, so that a reader that needs a few of them
// (the prompt hook) finds each by bisection instead of parsing the file; a
// path with a tab, newline or quote is written quoted. The file is
// derived: a damaged or unknown one is ignored, and writers replace it whole.

const cacheHeader = "lore-anchors 2"

type fileEntry struct {
	mtime, size int64
	ino         uint64
	id          string // "" for no file
	link        bool   // a submodule: id is the commit git's index records, never cached
	other       string // not a file nor a submodule (a symbolic link…): what it is, no id, never cached
}

type cache struct {
	written  time.Time                    // stats newer than this (less 2 s) are not trusted
	tree     string                       // what data's r and w entries were derived under
	data     string                       // the entries as read, one per line, sorted: the file's mapping
	dropTree bool                         // data's r and w entries were derived under another tree
	still    func(key, value string) bool // which of those hold under this one; nil: none
	added    map[string]string            // key → value, set since the file was read
	// used, when not nil, collects the file and diff entries looked up:
	// a check of every anchor keeps those alone (see Checker.Prune).
	used map[string]bool
}

// mapCache maps the cache file. A var: FuzzReadCache reads instead, as a
// mapping is kept for the process's life (mmapfile.Map) and its worker,
// mapping a new file for each input, ran out of the kernel's 65k mappings
// and died.
var mapCache = mmapfile.Map

func readCache(name string) *cache {
	c := &cache{added: map[string]string{}}
	// Mapped, not read: a prompt looks up a few entries of a file that
	// holds every anchored file's (166 KB for 10k records), and a fresh
	// process pays for each page it copies. Writers replace the file, so
	// the mapping stays what was read.
	b, err := mapCache(name)
	if err != nil || len(b) == 0 {
		return c
	}
	head, data, _ := strings.Cut(unsafe.String(&b[0], len(b)), "\n")
	f := strings.Split(head, "\t")
	if len(f) != 3 || f[0] != cacheHeader {
		return c
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return c
	}
	c.written, c.tree, c.data = time.Unix(0, ns), f[2], data
	return c
}

// lines are data's lines, without their newlines.
func (c *cache) lines() []string {
	if c.data == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(c.data, "\n"), "\n")
}

// lineAt is the line of data starting at offset i, and where the next one
// starts.
func (c *cache) lineAt(i int) (line string, next int) {
	l := c.data[i:]
	if n := strings.IndexByte(l, '\n'); n >= 0 {
		return l[:n], i + n + 1
	}
	return l, len(c.data)
}

// search is the offset of the first line of data not less than key, or
// len(data): a bisection over byte offsets, each probe reading the line
// that starts after it, so that only the pages probed are touched.
func (c *cache) search(key string) int {
	lo, hi := 0, len(c.data) // lo and hi are line starts; lines before lo are less than key
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := mid // the first line starting at or after mid
		if s > lo && c.data[s-1] != '\n' {
			if n := strings.IndexByte(c.data[s:], '\n'); n >= 0 {
				s += n + 1
			} else {
				s = len(c.data)
			}
		}
		if s >= hi {
			s = lo // no line starts in [mid, hi): step from lo
		}
		if l, next := c.lineAt(s); l < key {
			lo = next
		} else {
			hi = s
		}
	}
	return lo
}

// get is the value of key: set since reading, or found in data.
func (c *cache) get(key string) (string, bool) {
	if v, ok := c.added[key]; ok {
		return v, true
	}
	prefix := key + "\t"
	if i := c.search(prefix); i < len(c.data) {
		l, _ := c.lineAt(i)
		if v, ok := strings.CutPrefix(l, prefix); ok && c.holds(key, v) {
			if c.used != nil {
				c.used[key] = true
			}
			return v, true
		}
	}
	return "", false
}

// holds reports whether an entry read from the file holds under the tree
// set now.
func (c *cache) holds(key, value string) bool {
	return !c.dropTree || !derivedFromTree(key[0]) || c.still != nil && c.still(key, value)
}

func (c *cache) set(key, value string) { c.added[key] = value }

// unused reports whether, collecting what was used, the file holds file
// or diff entries that were not: counted, not parsed, as lore stale runs
// it every time.
func (c *cache) unused() bool {
	if c.used == nil {
		return false
	}
	n := strings.Count(c.data, "\nf\t") + strings.Count(c.data, "\nd\t")
	if strings.HasPrefix(c.data, "f\t") || strings.HasPrefix(c.data, "d\t") {
		n++
	}
	return n > len(c.used)
}

// setTree makes tree the one r and w entries are derived under: of those
// derived under another, the ones still reports on (nil: none) hold.
func (c *cache) setTree(tree string, still func(key, value string) bool) {
	if tree == c.tree {
		return
	}
	c.tree, c.dropTree, c.still = tree, true, still
	for k, v := range c.added {
		if derivedFromTree(k[0]) && (still == nil || !still(k, v)) {
			delete(c.added, k)
		}
	}
}

func fileKey(path string) string     { return "f\t" + field(path) }
func diffKey(old, new string) string { return "d\t" + old + "\t" + new }

// moveKey keys where path went: 'R' when every rename was looked for
// (Checker.AllRenames), 'r' within git's limit. (An older lore keyed
// moves by the anchor's commit as well, as 'm' and 'M': lines of a type
// no longer known are dropped when the file is written.)
func moveKey(path string, all bool) string {
	if all {
		return "R\t" + field(path)
	}
	return "r\t" + field(path)
}
func whenKey(path string) string { return "w\t" + field(path) }
func (e fileEntry) value() string {
	return strconv.FormatInt(e.mtime, 10) + "\t" + strconv.FormatInt(e.size, 10) + "\t" + strconv.FormatUint(e.ino, 10) + "\t" + e.id
}

func (c *cache) file(path string) (fileEntry, bool) {
	v, ok := c.get(fileKey(path))
	f := strings.Split(v, "\t")
	if !ok || len(f) != 4 {
		return fileEntry{}, false
	}
	mtime, err1 := strconv.ParseInt(f[0], 10, 64)
	size, err2 := strconv.ParseInt(f[1], 10, 64)
	ino, err3 := strconv.ParseUint(f[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return fileEntry{}, false
	}
	return fileEntry{mtime: mtime, size: size, ino: ino, id: f[3]}, true
}

// move is where a gone path went ("" for nowhere), if known.
func (c *cache) move(path string, all bool) (string, bool) {
	v, ok := c.get(moveKey(path, all))
	return unfield(v), ok
}

// derivedFromTree: entries of this type are derived from HEAD and git's
// index (moves, commit times), void once the tree changes.
func derivedFromTree(t byte) bool { return t == 'r' || t == 'R' || t == 'w' }

// keyFields is how many fields of a line of each type make its key.
var keyFields = map[byte]int{'f': 2, 'd': 3, 'r': 2, 'R': 2, 'w': 2}

// write replaces the cache file with what was read and what was set.
func (c *cache) write(name string, now time.Time) error {
	read := c.lines()
	for _, l := range read {
		if l == "" {
			continue
		}
		n, known := keyFields[l[0]]
		f := strings.SplitN(l, "\t", n+1)
		if !known || len(f) != n+1 {
			continue
		}
		key := strings.Join(f[:n], "\t")
		if !c.holds(key, f[n]) || c.used != nil && (l[0] == 'f' || l[0] == 'd') && !c.used[key] {
			continue
		}
		if _, set := c.added[key]; !set {
			c.added[key] = f[n] // once per key: a damaged file may repeat one
		}
	}
	lines := make([]string, 0, len(c.added))
	for k, v := range c.added {
		lines = append(lines, k+"\t"+v)
	}
	slices.Sort(lines)
	var b strings.Builder
	b.WriteString(cacheHeader + "\t" + strconv.FormatInt(now.UnixNano(), 10) + "\t" + c.tree + "\n")
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(name), store.DirMode); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".anchors-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// field quotes a path that holds a separator, or would read as quoted.
func field(s string) string {
	if s == "" || strings.ContainsAny(s, "\t\n\r\"") {
		return strconv.Quote(s)
	}
	return s
}

func unfield(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
