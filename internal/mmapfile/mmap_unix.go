//go:build unix

package mmapfile

import (
	"os"
	"syscall"
)

// Map maps path read-only. The mapping is never released: the process
// is short-lived and the file is only ever replaced, not changed in place.
func Map(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, nil
	}
	return syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
}
