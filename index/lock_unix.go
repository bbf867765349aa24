//go:build unix

package index

import (
	"io/fs"
	"os"
	"syscall"

	"lore/store"
)

// tryLock takes the lock file at path if no other process holds it.
func tryLock(path string) (func(), bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, store.FileMode)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true
}

// heldElsewhere reports whether another process holds the lock file at
// path; one that cannot be opened (another user's) counts as held.
func heldElsewhere(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return !os.IsNotExist(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// renameOpen: an open file can be renamed and removed, so a temporary
// file's lock (lockTemp) is held through its rename or its removal.
const renameOpen = true

// lockTemp takes the lock of an open temporary file, if no one holds it.
// Its writer holds it from the file's creation to its rename; the kernel
// drops it when the writer exits, however it exits (kill -9 included).
func lockTemp(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// abandoned says whether the temporary file open as f, just locked with
// lockTemp, has no live writer: holding its lock proves it.
func abandoned(*os.File, fs.FileInfo) bool { return true }
