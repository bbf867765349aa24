package gitrepo

import (
	"io/fs"
	"syscall"
)

// Ctime is the inode change time of the file fi describes, which git's
// index records and compares. ok is false where lore does not read it.
func Ctime(fi fs.FileInfo) (sec, nsec int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return st.Ctim.Sec, st.Ctim.Nsec, true
}
