package gcpolicy

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestOutgrown(t *testing.T) {
	for _, c := range []struct {
		live  uint64
		limit int64
		want  bool
	}{{0, 128 << 20, false}, {100 << 20, 128 << 20, false}, {112 << 20, 128 << 20, false}, {113 << 20, 128 << 20, true}} {
		if got := outgrown(c.live, c.limit); got != c.want {
			t.Errorf("outgrown(%d MB, %d MB) = %v, want %v", c.live>>20, c.limit>>20, got, c.want)
		}
	}
}

// A live heap past the limit switches the process to proportional
// collection; one under it leaves the collector off.
func TestLiveHeapPastTheLimitSwitchesToProportional(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const limit = 64 << 20
	Start(limit)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("with a small live heap, GOGC = %d, want -1 (off)", got)
	}
	live := make([][]byte, 0, 64)
	for range 60 {
		live = append(live, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		got := debug.SetGCPercent(proportional)
		if got == proportional {
			break
		}
		debug.SetGCPercent(got)
		if time.Now().After(deadline) {
			t.Fatalf("with a live heap of %d MB and a limit of %d MB, GOGC = %d, want %d", len(live), limit>>20, got, proportional)
		}
	}
	runtime.KeepAlive(live)
}
