package store

import (
	"fmt"
	"os"
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

// A session's files go together, and a live session stays however long ago
// its .start was written: pruning file by file removed the oldest file
// first, which is a live session's .start once 21 others have come by.
func TestPruneOldestKeepsSessionsWhole(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	touch := func(name string, at time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	live := SessionKey("live")
	touch(live+".start", base) // the oldest file of all
	for i := range 70 {
		k := SessionKey(fmt.Sprint("other", i))
		at := base.Add(time.Duration(i+1) * time.Second)
		touch(k, at)
		touch(k+".start", at)
		touch(k+".answered", at)
	}
	touch(live, base.Add(time.Minute))             // its latest prompt
	touch(live+".answered", base.Add(time.Minute)) // and answer
	PruneOldest(dir, 64)
	for _, name := range []string{live, live + ".start", live + ".answered"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the live session's %s was pruned: %v", name[len(live):], err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if want := 64 * 3; len(entries) != want {
		t.Errorf("%d files left, want %d (64 sessions of 3)", len(entries), want)
	}
	for i := range 7 { // the seven oldest others went whole
		k := SessionKey(fmt.Sprint("other", i))
		for _, name := range []string{k, k + ".start", k + ".answered"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				t.Errorf("other%d's %q was kept", i, name[len(k):])
			}
		}
	}
}
