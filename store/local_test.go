package store

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestFirstToAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions", "s.answered")
	now := time.Unix(1_800_000_000, 0)
	const window = 3 * time.Second
	steps := []struct {
		key  string
		at   time.Duration
		want bool
	}{
		{"a", 0, true},                 // the first answer
		{"a", time.Second, false},      // its twin
		{"b", time.Second, true},       // another event
		{"a", 2 * time.Second, true},   // a's marker was replaced by b's
		{"a", 5*time.Second + 1, true}, // the same event, later: answered again
		{"a", 5 * time.Second, false},  // a clock step back within the window
		{"a", 20 * time.Second, true},  // long after
		{"a", 20 * time.Second, false}, // at the same instant
	}
	for i, st := range steps {
		if got := FirstToAnswer(path, st.key, now.Add(st.at), window); got != st.want {
			t.Errorf("step %d (%s at %v): %v, want %v", i, st.key, st.at, got, st.want)
		}
	}
}

// Twins that answer at the same moment: exactly one is first.
func TestFirstToAnswerConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.answered")
	now := time.Now()
	var first atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if FirstToAnswer(path, "k", now, time.Second) {
				first.Add(1)
			}
		})
	}
	wg.Wait()
	if first.Load() != 1 {
		t.Errorf("%d runs answered first, want 1", first.Load())
	}
}

// The cost a hook that answers pays to tell whether a twin answered.
func BenchmarkFirstToAnswer(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s.answered")
	now := time.Now()
	for b.Loop() {
		now = now.Add(time.Minute)
		FirstToAnswer(path, "k", now, time.Second)
	}
}
