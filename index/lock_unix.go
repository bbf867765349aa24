//go:build unix

package index

import (
	"io/fs"
	"os"
	"syscall"
)

// tryLock takes the lock file at path if no other process holds it.
func tryLock(path string) (func(), bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true
}

// inode is the file's inode number: a shard replaced by another file (git
// checkout, a rename over it) has a new one even when size and mtime match.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
