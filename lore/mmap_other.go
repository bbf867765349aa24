//go:build !unix

package lore

import "os"

func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }
