//go:build unix

package index

import (
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// listDir lists dir's subdirectories and the files whose name ends in
// ext, with each file's state. Files are stat'ed relative to the open
// directory: after a checkout a changed directory's every shard is
// checked, and resolving each full path again cost as much as the stat.
func listDir(dir, ext string) ([]dirItem, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	items := make([]dirItem, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			items = append(items, dirItem{name: name, isDir: true})
		case strings.HasSuffix(name, ext):
			if st, ok := statAt(fd, name); ok {
				items = append(items, dirItem{name: name, st: st})
			}
		}
	}
	return items, nil
}

// statNames states the shards rels (paths in the store) in dir, each named
// by what follows its first skip bytes, relative to the open directory; a
// shard that is gone or no longer a regular file is left out.
func statNames(dir string, rels []string, skip int) ([]dirItem, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd := int(f.Fd())
	items := make([]dirItem, 0, len(rels))
	for _, rel := range rels {
		if st, ok := statAt(fd, rel[skip:]); ok {
			items = append(items, dirItem{name: rel[skip:], rel: rel, st: st})
		}
	}
	return items, nil
}

// statAt states the regular file (or the regular file a symlink points to)
// name in the directory open as fd; ok is false for anything else.
func statAt(fd int, name string) (fileState, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileState{}, false // removed since the listing
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK && unix.Fstatat(fd, name, &st, 0) != nil {
		return fileState{}, false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fileState{}, false // a FIFO or device would hang the read: doctor reports it
	}
	return fileState{size: st.Size, mtime: st.Mtim.Nano(), ino: st.Ino, ctime: st.Ctim.Nano()}, true
}

// statDirectory states the directory at path as the index compares it:
// whether it is one, its mtime, and its change time (ctime). Adding,
// removing or renaming an entry moves both; only the ctime cannot be set
// back: touch -d, cp -p, rsync -t and tools that restore mtimes from git
// set a directory's mtime to what the index knew, which hid the shards a
// checkout had just added from every reader, doctor included (new-user
// run 28).
func statDirectory(path string) (isDir bool, mtime, ctime int64, err error) {
	var st unix.Stat_t
	for {
		if err = unix.Stat(path, &st); err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return false, 0, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR, st.Mtim.Nano(), st.Ctim.Nano(), nil
}

// stateOf is what the index compares of a file it stat'ed by path.
func stateOf(fi fs.FileInfo) fileState {
	st := fileState{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
	}
	return st
}
