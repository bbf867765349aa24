package index

import (
	"os"
	"path/filepath"

	"lore/store"
)

// Temporary files. The index's files are written as store.WriteAtomic
// writes, through a temporary file (.tmp-<name>-<random>) renamed into
// place, with one difference: the writer holds the temporary file's own
// lock (lockTemp) from its creation to its rename. A reader killed while it
// writes a segment (kill -9 during a cold build) leaves a temporary file as
// big as the segment, and the lock tells it from one a live writer, even a
// stopped one, is still writing: the kernel drops a dead process's locks.
// An age would not: a build suspended at a terminal (^Z) and resumed later
// would find its file gone. Where there are no locks (not unix), age is all
// there is (abandoned).

// tempPrefix begins the name of every temporary file in the index.
const tempPrefix = ".tmp-"

// writeFile writes parts to path, in a directory that exists, through a
// temporary file beside it that it holds locked until it is renamed to
// path.
func writeFile(path string, parts ...[]byte) error {
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, tempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = os.Remove(tmp.Name())
		}
		tmp.Close()
	}()
	if err := store.WriteSynced(tmp, parts...); err != nil {
		return err
	}
	store.KeepMode(tmp, path)
	if !renameOpen {
		if err := tmp.Close(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	renamed = true
	return nil
}

// createTemp creates a temporary file in dir, named by pattern as
// os.CreateTemp names it, and takes its lock. A cleaner may take the lock
// between the creation and the writer's taking it, and remove the file:
// the writer then makes another.
func createTemp(dir, pattern string) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		f, err := store.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		if lockTemp(f) && isFile(f, f.Name()) {
			return f, nil
		}
		f.Close()
		if attempt == 3 {
			// Cannot happen but by a cleaner running in a loop: write
			// without the lock rather than not at all.
			return store.CreateTemp(dir, pattern)
		}
	}
}

// isFile says whether path names the file open as f.
func isFile(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Lstat(path)
	return err == nil && os.SameFile(fi, pi)
}

// removeTemp removes the temporary file path if it has no live writer. It
// removes it holding its lock, so a writer that has just created it
// cannot take the lock and write on to a file no longer in the directory.
func removeTemp(path string) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return // gone (renamed into place, or removed) or not ours to judge
	}
	if !lockTemp(f) {
		f.Close()
		return // a live writer holds it
	}
	fi, err := f.Stat()
	// isFile: not renamed into place since it was opened, by a writer
	// that has since let go of it.
	remove := err == nil && abandoned(f, fi) && isFile(f, path)
	if renameOpen {
		if remove {
			_ = os.Remove(path)
		}
		f.Close()
		return
	}
	f.Close() // an open file cannot be removed here
	if remove {
		_ = os.Remove(path)
	}
}
