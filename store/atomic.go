package store

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteAtomic writes parts, one after the other, to path through a
// temporary file and a rename, so a reader never sees half a file.
func WriteAtomic(path string, parts ...[]byte) error {
	if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
		return err
	}
	tmp, err := CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := WriteSynced(tmp, parts...); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	KeepMode(tmp, path)
	return os.Rename(tmp.Name(), path)
}

// WriteSynced writes parts to f, buffered (an index segment comes in a
// piece or two per record), and syncs it: what a rename then puts in
// place is on disk.
func WriteSynced(f *os.File, parts ...[]byte) error {
	size := 0
	for _, data := range parts {
		size += len(data)
	}
	w := bufio.NewWriterSize(f, min(size, 256<<10))
	for _, data := range parts {
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Sync()
}

// KeepMode gives the temporary file tmp, about to replace path, the mode
// path has, if it exists: a new file keeps the mode it was made with.
func KeepMode(tmp *os.File, path string) {
	if fi, err := os.Stat(path); err == nil {
		_ = os.Chmod(tmp.Name(), fi.Mode().Perm())
	}
}

// WriteThrough is WriteAtomic for a file outside the store that the user
// names or keeps: an agent's configuration, an exported AGENTS.md. A
// symbolic link there is the user's (dotfiles kept in a repository of
// their own, AGENTS.md pointing at CLAUDE.md), so it is written through,
// the link kept and its target given the content, as an editor saves it.
// A store's own files are never followed so: a link in a clone could make
// a capture write outside the repository.
//
// A file without write permission is refused, as an editor refuses it (a
// rename would replace it all the same), and a failure names the file,
// not the temporary one beside it.
func WriteThrough(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if dest, lerr := os.Readlink(path); lerr == nil {
		// A link to a file not made yet: the file is made where it points.
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s is read-only: lore has not changed it", path)
	}
	if err := WriteAtomic(path, data); err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path != path {
			return fmt.Errorf("write %s: %w", path, pe.Err)
		}
		return err
	}
	return nil
}
