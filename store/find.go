package store

import (
	"errors"
	"os"
	"path/filepath"

	"lore/gitrepo"
)

// DirName is the store's directory at the repository root.
const DirName = ".lore"

// ErrNoStore is returned when no .lore store is found.
var ErrNoStore = errors.New("no .lore store found")

// FindStore walks up from start to the repository root looking for .lore,
// the way git looks for .git: it stops at the first directory that holds a
// .git entry (a repository, linked worktree or submodule root) or is a bare
// repository, and never climbs to or past GIT_CEILING_DIRECTORIES (read
// with getenv).
func FindStore(start string, getenv func(string) string) (string, error) {
	d, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if fi, err := os.Stat(filepath.Join(d, DirName)); err == nil && fi.IsDir() {
			if gitrepo.AboveCeiling(start, d, getenv) {
				return "", ErrNoStore
			}
			return filepath.Join(d, DirName), nil
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || gitrepo.IsBare(d) {
			return "", ErrNoStore
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ErrNoStore
		}
		d = parent
	}
}
