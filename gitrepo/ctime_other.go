//go:build !linux

package gitrepo

import "io/fs"

// Ctime is not read on this system: a caller that needs it asks git.
func Ctime(fs.FileInfo) (sec, nsec int64, ok bool) { return 0, 0, false }
