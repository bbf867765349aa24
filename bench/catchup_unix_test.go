//go:build unix

package bench

import (
	"os"
	"path/filepath"
	"syscall"
)

// waitCatchUp returns once no lore index a hook started in the background
// (after a pull or checkout it could not read within its budget) works in
// root's store: it holds the catch-up lock (index.CatchUp's) while it runs. The next state
// must not start under it, nor the temporary directory go.
func waitCatchUp(root string) {
	f, err := os.Open(filepath.Join(root, ".lore", ".local", "index", "catchup"))
	if err != nil {
		return // never started
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}
}
