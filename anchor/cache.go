package anchor

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The cache file (.lore/.local/anchors) holds what checks derived, each
// entry valid for as long as what it depends on is unchanged:
//
//	f  path → mtime size inode id   a file's object ID, while its stat holds
//	d  old new → hunks              the changes between two contents, for good
//	m  commit path → newpath        where rename detection found a gone path
//	w  path → unixtime              when a gone path was last changed by a commit
//
// The m and w entries were derived under the tree named in the header (HEAD
// and the git index): when that moves, they are void. Entries are lines of
// tab-separated fields, sorted, so that a reader that needs a few of them
// (the prompt hook) finds each by bisection instead of parsing the file; a
// path with a tab, newline or quote is written quoted. The file is
// derived: a damaged or unknown one is ignored, and writers replace it whole.

const cacheHeader = "lore-anchors 2"

type fileEntry struct {
	mtime, size int64
	ino         uint64
	id          string // "" for no file
}

type cache struct {
	written  time.Time         // stats newer than this (less 2 s) are not trusted
	tree     string            // what data's m and w entries were derived under
	data     string            // the entries as read, one per line, sorted
	starts   []int             // where each line of data starts
	dropTree bool              // data's m and w entries are void
	added    map[string]string // key → value, set since the file was read
}

func readCache(name string) *cache {
	c := &cache{added: map[string]string{}}
	b, err := os.ReadFile(name)
	if err != nil {
		return c
	}
	head, data, _ := strings.Cut(string(b), "\n")
	f := strings.Split(head, "\t")
	if len(f) != 3 || f[0] != cacheHeader {
		return c
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return c
	}
	c.written, c.tree, c.data = time.Unix(0, ns), f[2], data
	for i := 0; i < len(data); {
		c.starts = append(c.starts, i)
		n := strings.IndexByte(data[i:], '\n')
		if n < 0 {
			break
		}
		i += n + 1
	}
	return c
}

// line is data's line i, without its newline.
func (c *cache) line(i int) string {
	l := c.data[c.starts[i]:]
	if n := strings.IndexByte(l, '\n'); n >= 0 {
		l = l[:n]
	}
	return l
}

// get is the value of key: set since reading, or found in data.
func (c *cache) get(key string) (string, bool) {
	if v, ok := c.added[key]; ok {
		return v, true
	}
	if c.dropTree && (key[0] == 'm' || key[0] == 'w') {
		return "", false
	}
	prefix := key + "\t"
	i := sort.Search(len(c.starts), func(i int) bool { return c.line(i) >= prefix })
	if i < len(c.starts) {
		if v, ok := strings.CutPrefix(c.line(i), prefix); ok {
			return v, true
		}
	}
	return "", false
}

func (c *cache) set(key, value string) { c.added[key] = value }

// setTree makes tree the one m and w entries are derived under, voiding
// those derived under another.
func (c *cache) setTree(tree string) {
	if tree == c.tree {
		return
	}
	c.tree, c.dropTree = tree, true
	for k := range c.added {
		if k[0] == 'm' || k[0] == 'w' {
			delete(c.added, k)
		}
	}
}

func fileKey(path string) string         { return "f\t" + field(path) }
func diffKey(old, new string) string     { return "d\t" + old + "\t" + new }
func moveKey(commit, path string) string { return "m\t" + commit + "\t" + field(path) }
func whenKey(path string) string         { return "w\t" + field(path) }
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
func (c *cache) move(commit, path string) (string, bool) {
	v, ok := c.get(moveKey(commit, path))
	return unfield(v), ok
}

// keyFields is how many fields of a line of each type make its key.
var keyFields = map[byte]int{'f': 2, 'd': 3, 'm': 3, 'w': 2}

// write replaces the cache file with what was read and what was set.
func (c *cache) write(name string, now time.Time) error {
	lines := make([]string, 0, len(c.starts)+len(c.added))
	for k, v := range c.added {
		lines = append(lines, k+"\t"+v)
	}
	for i := range c.starts {
		l := c.line(i)
		if l == "" {
			continue
		}
		n, known := keyFields[l[0]]
		f := strings.SplitN(l, "\t", n+1)
		if !known || len(f) != n+1 || c.dropTree && (l[0] == 'm' || l[0] == 'w') {
			continue
		}
		if _, set := c.added[strings.Join(f[:n], "\t")]; !set {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	var b strings.Builder
	b.WriteString(cacheHeader + "\t" + strconv.FormatInt(now.UnixNano(), 10) + "\t" + c.tree + "\n")
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
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
