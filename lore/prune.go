package lore

import (
	"os"
	"path/filepath"
	"sort"
)

// PruneOldest keeps the keep most recently modified files in dir and
// removes the rest: for the per-session files under .local/, which must
// stay bounded. Errors are ignored; a file left behind is removed next time.
func PruneOldest(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			files = append(files, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
	for _, f := range files[min(keep, len(files)):] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}
