package anchor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The cache file (.lore/.local/anchors) holds what a check derived, each
// entry valid for as long as what it depends on is unchanged:
//
//	f  path mtime size inode id   a file's object ID, while its stat holds
//	d  old new hunks              the changes between two contents, forever
//	t  treekey                    HEAD and the git index the entries below were made under
//	m  commit path newpath        where rename detection found a path that is gone
//	w  path unixtime              when a gone path was last changed by a commit
//
// Fields are separated by tabs, entries by newlines; a path with either
// (or a quote) is written quoted. The file is derived: a damaged or
// unknown one is dropped and rebuilt, and writers replace it whole.

const cacheHeader = "lore-anchors 1"

type fileEntry struct {
	mtime, size int64
	ino         uint64
	id          string // "" for no file
}

type cache struct {
	written time.Time // when the file was last written: stats newer than this are not trusted
	files   map[string]fileEntry
	diffs   map[[2]string]string // old, new → encoded hunks
	tree    string
	moves   map[[2]string]string // commit, path → new path ("" for none)
	when    map[string]int64     // path → unix seconds
}

func newCache() *cache {
	return &cache{files: map[string]fileEntry{}, diffs: map[[2]string]string{},
		moves: map[[2]string]string{}, when: map[string]int64{}}
}

func readCache(name string) *cache {
	c := newCache()
	data, err := os.ReadFile(name)
	if err != nil {
		return c
	}
	text := string(data)
	head, text, _ := strings.Cut(text, "\n")
	h, written, ok := strings.Cut(head, "\t")
	ns, err := strconv.ParseInt(written, 10, 64)
	if !ok || h != cacheHeader || err != nil {
		return c
	}
	c.written = time.Unix(0, ns)
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		f := strings.Split(line, "\t")
		for i := range f {
			if strings.HasPrefix(f[i], `"`) {
				if u, err := strconv.Unquote(f[i]); err == nil {
					f[i] = u
				}
			}
		}
		num := func(i int) int64 { n, _ := strconv.ParseInt(f[i], 10, 64); return n }
		switch {
		case f[0] == "f" && len(f) == 6:
			c.files[f[1]] = fileEntry{mtime: num(2), size: num(3), ino: uint64(num(4)), id: f[5]}
		case f[0] == "d" && len(f) == 4:
			c.diffs[[2]string{f[1], f[2]}] = f[3]
		case f[0] == "t" && len(f) == 2:
			c.tree = f[1]
		case f[0] == "m" && len(f) == 4:
			c.moves[[2]string{f[1], f[2]}] = f[3]
		case f[0] == "w" && len(f) == 3:
			c.when[f[1]] = num(2)
		}
	}
	return c
}

// write replaces the cache file with c.
func (c *cache) write(name string, now time.Time) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t%d\n", cacheHeader, now.UnixNano())
	for p, e := range c.files {
		fmt.Fprintf(&b, "f\t%s\t%d\t%d\t%d\t%s\n", field(p), e.mtime, e.size, e.ino, e.id)
	}
	for k, h := range c.diffs {
		fmt.Fprintf(&b, "d\t%s\t%s\t%s\n", k[0], k[1], h)
	}
	if c.tree != "" {
		fmt.Fprintf(&b, "t\t%s\n", c.tree)
		for k, p := range c.moves {
			fmt.Fprintf(&b, "m\t%s\t%s\t%s\n", k[0], field(k[1]), field(p))
		}
		for p, t := range c.when {
			fmt.Fprintf(&b, "w\t%s\t%d\n", field(p), t)
		}
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
