//go:build !unix

package mmapfile

import "os"

// Map reads path whole where files cannot be mapped.
func Map(path string) ([]byte, error) { return os.ReadFile(path) }

// Read calls read with the file's bytes, read whole where files cannot
// be mapped.
func Read(path string, read func(data []byte) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return read(data)
}

// ReleaseReplaced has nothing to release where files are read whole.
func ReleaseReplaced() int { return 0 }
