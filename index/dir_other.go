//go:build !unix

package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"lore/store"
)

// listDir lists dir's subdirectories and the files whose name ends in
// ext, with each file's state.
func listDir(dir, ext string) ([]dirItem, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var items []dirItem
	for _, e := range entries {
		switch {
		case e.IsDir():
			items = append(items, dirItem{name: e.Name(), isDir: true})
		case strings.HasSuffix(e.Name(), ext) && store.IsRegular(filepath.Join(dir, e.Name()), e):
			if fi, err := e.Info(); err == nil {
				items = append(items, dirItem{name: e.Name(), st: stateOf(fi)})
			}
		}
	}
	return items, nil
}

// statNames states the shards rels (paths in the store) in dir, each named
// by what follows its first skip bytes; a shard that is gone or no longer a
// regular file is left out.
func statNames(dir string, rels []string, skip int) ([]dirItem, error) {
	var items []dirItem
	for _, rel := range rels {
		fi, err := os.Stat(filepath.Join(dir, rel[skip:]))
		if err == nil && fi.Mode().IsRegular() {
			items = append(items, dirItem{name: rel[skip:], rel: rel, st: stateOf(fi)})
		}
	}
	return items, nil
}

// stateOf is what the index compares of a file: no inode here.
func stateOf(fi fs.FileInfo) fileState {
	return fileState{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// statDirectory states the directory at path as the index compares it:
// whether it is one and its mtime; Windows keeps no change time (0).
func statDirectory(path string) (isDir bool, mtime, ctime int64, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, 0, 0, err
	}
	return fi.IsDir(), fi.ModTime().UnixNano(), 0, nil
}
