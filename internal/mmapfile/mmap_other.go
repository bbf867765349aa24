//go:build !unix

package mmapfile

import "os"

// Map reads path whole where files cannot be mapped.
func Map(path string) ([]byte, error) { return os.ReadFile(path) }
