package store

import (
	"bufio"
	"os"
	"path/filepath"
)

// WriteAtomic writes parts, one after the other, to path through a
// temporary file and a rename, so a reader never sees half a file.
func WriteAtomic(path string, parts ...[]byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// Buffered: an index segment comes in a piece or two per record.
	size := 0
	for _, data := range parts {
		size += len(data)
	}
	w := bufio.NewWriterSize(tmp, min(size, 256<<10))
	for _, data := range parts {
		if _, err := w.Write(data); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
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
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm() // keep the file's mode
	}
	_ = os.Chmod(tmp.Name(), mode)
	return os.Rename(tmp.Name(), path)
}
