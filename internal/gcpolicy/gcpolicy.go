// Package gcpolicy owns how a lore process collects its garbage: not at
// all while the heap is small, as almost every lore process lives for
// milliseconds, and within a memory limit when a big store needs more.
package gcpolicy

import (
	"math"
	"runtime"
	"runtime/debug"
)

// proportional is the GOGC a process switches to once its live heap
// outgrows the limit: the heap may then reach 1.5 times what is live.
const proportional = 50

// Start turns the collector off until the heap reaches limit. A process
// whose live heap, read after a collection, passes 7/8 of the limit
// cannot keep under it without collecting over and over (doctor at 300k
// records), so from then on it collects in proportion to its live heap,
// without a limit.
func Start(limit int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	watch(limit)
}

// watch checks the live heap after the next collection, and again after
// each one until the policy switches.
func watch(limit int64) {
	sentinel := new([64]byte) // large enough not to share a tiny block
	runtime.AddCleanup(sentinel, func(limit int64) {
		if outgrown(liveHeap(), limit) {
			debug.SetGCPercent(proportional)
			debug.SetMemoryLimit(math.MaxInt64)
			return
		}
		watch(limit)
	}, limit)
}

// outgrown reports a live heap the limit cannot hold with room to spare.
func outgrown(live uint64, limit int64) bool { return live > uint64(limit)/8*7 }

// liveHeap is the heap in use, read just after a collection: what is
// live, and what was allocated since. (runtime/metrics would say what is
// live exactly, but its package initialisation costs every process, the
// prompt hook included, 0.07 ms.)
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
