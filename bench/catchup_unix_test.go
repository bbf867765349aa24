//go:build unix

package bench

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// waitCatchUp returns once no lore index a hook started in the background
// (after a pull or checkout it could not read within its budget) works in
// root's store: it holds the catch-up lock (index.CatchUp's) while it runs. The next state
// must not start under it, nor the temporary directory go.
// The lock is in the index's directory of its format.
func waitCatchUp(root string) {
	locks, _ := filepath.Glob(filepath.Join(root, ".lore", ".local", "index", "*", "catchup"))
	for _, path := range locks { // none: never started
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) == nil {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		}
		f.Close()
	}
}

// removeWork removes root, a store's working copy, once no catch-up works
// in it. A hook's background run starts some milliseconds after the hook
// (a process to start), so one started by the last hook may not hold the
// lock yet when waitCatchUp looks, and then writes into the store as it
// is removed: the removal is tried again after it.
func removeWork(root string) error {
	var err error
	for range 5 {
		waitCatchUp(root)
		if err = os.RemoveAll(root); err == nil {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return err
}
