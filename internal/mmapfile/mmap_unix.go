//go:build unix

package mmapfile

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// Map maps path read-only. The mapping lasts until ReleaseReplaced finds
// the file replaced: the file is only ever replaced, not changed in
// place, and a command's process is short-lived. lore mcp is not: it runs
// command after command, each mapping the index and the anchors cache
// again, and the kernel allows a process some 65k mappings (600 searches
// had made 1,200). So a file already mapped, the same inode at the same
// size, is handed the mapping it has: a shared mapping of one inode shows
// what any new one would.
func Map(path string) ([]byte, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() == 0 {
		return nil, nil
	}
	k, known := keyOf(fi)
	if known {
		mapped.Lock()
		defer mapped.Unlock()
		if m, ok := mapped.m[k]; ok {
			return m.data, nil
		}
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err == nil && known {
		mapped.m[k] = mapping{path, b}
	}
	return b, err
}

// mapped is every mapping Map made and ReleaseReplaced kept, by file.
var mapped = struct {
	sync.Mutex
	m map[fileKey]mapping
}{m: map[fileKey]mapping{}}

type mapping struct {
	path string // where the file was when it was mapped
	data []byte
}

// ReleaseReplaced unmaps every mapping Map made of a file that is no
// longer at its path as it was mapped (replaced, grown or removed), and
// says how many it released. A replaced index segment stays mapped
// otherwise, and the disk space of its deleted file stays taken, for as
// long as the process runs: lore mcp held 38 of 40 segments a session had
// made (38 MB per merge at 100k records). The caller must know that
// nothing read from those mappings is still in use: lore mcp calls it
// between tool calls, which keep nothing of a command's index.
func ReleaseReplaced() int {
	mapped.Lock()
	defer mapped.Unlock()
	n := 0
	for k, m := range mapped.m {
		if fi, err := os.Stat(m.path); err == nil {
			if now, ok := keyOf(fi); ok && now == k {
				continue
			}
		}
		if syscall.Munmap(m.data) == nil {
			n++
		}
		delete(mapped.m, k)
	}
	return n
}

type fileKey struct {
	dev, ino uint64
	size     int64
}

func keyOf(fi os.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino), fi.Size()}, true // Dev and Ino types differ by platform
}

// Read calls read with the file's bytes, mapped only for the call: a
// reader that keeps nothing of them (copies what it needs) pays neither
// for a copy in its heap nor for a mapping that outlives it, which
// matters for a file replaced often, such as git's index, in a process
// that runs long (lore mcp). read must not keep data.
func Read(path string, read func(data []byte) error) error {
	f, fi, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi.Size() == 0 {
		return read(nil)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	defer syscall.Munmap(data)
	return read(data)
}

// openRegular opens path for reading if it is a regular file: a FIFO of
// its name (made by hand or by a tool) blocked the open until a writer
// came, which is forever, and hung every command (new-user run 31). Opened
// without blocking, it is refused instead.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &os.PathError{Op: "map", Path: path, Err: errNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

var errNotRegular = errors.New("not a regular file")
