//go:build !unix

package gitrepo

import "io/fs"

// Inode is 0: this system has no inode numbers.
func Inode(fs.FileInfo) uint64 { return 0 }
