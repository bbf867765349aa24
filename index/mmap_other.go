//go:build !unix

package index

import "os"

func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }
