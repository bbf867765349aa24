//go:build unix

package gitrepo

import (
	"io/fs"
	"syscall"
)

// Inode is the inode number of the file fi describes (0 where the system
// has none), which git's index records and a replaced file changes.
func Inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
