//go:build unix

package bench

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reset replaces work with a copy of the pristine store, builds its index
// and refreshes git's (untimed), and waits out the racy window.
func (s *scale) reset(pristine, work string) {
	t := s.t
	if err := removeWork(work); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", pristine, work).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	// A copy has new inodes and ctimes. Git's index is refreshed, as the
	// first git status would, so status is timed on a clean one; lore's is
	// built from nothing, as after a clone (the pristine store never had one:
	// an index carried over to new inodes is not one a user would have).
	_ = gitTry(work, 0, "update-index", "-q", "--refresh")
	removeIndex(t, work)
	(&runner{t: t, bin: s.bin, dir: work}).run(nil, "trust")
	(&runner{t: t, bin: s.bin, dir: work}).run(nil, "search", "x")
	time.Sleep(2100 * time.Millisecond)
}

// removeIndex deletes lore's derived index (.lore/.local/index, or the
// older .lore/.local/cache).
func removeIndex(t *testing.T, root string) {
	for _, name := range []string{"cache", "index"} {
		if err := os.RemoveAll(filepath.Join(root, ".lore", ".local", name)); err != nil {
			t.Fatal(err)
		}
	}
}

// once runs one command of the spec and returns its wall time, peak RSS
// and output size.
func (s *scale) once(dir string, sp spec, i int) (time.Duration, int64, int) {
	if sp.before != nil {
		sp.before(i)
	}
	r := runner{t: s.t, bin: s.bin, dir: dir, launcher: s.launcher}
	var in *string
	if sp.input != nil {
		hook := sp.input(i)
		in = &hook
	} else if sp.stdin != "" {
		in = &sp.stdin
	}
	args := sp.args(i)
	d, err := r.try(in, args...)
	if err != nil {
		var ee *exec.ExitError
		if !(sp.exit1 && errors.As(err, &ee) && ee.ExitCode() == 1) {
			s.t.Fatal(err)
		}
	}
	return d, r.peakKB, len(r.out)
}

// runsFor is how many timed runs a command gets, given one run's time.
func (s *scale) runsFor(d time.Duration) int {
	switch {
	case d < 500*time.Millisecond:
		return s.runs
	case d < 2*time.Second:
		return min(s.runs, 5)
	default:
		return min(s.runs, 3)
	}
}

// series times the spec after one warm-up.
func (s *scale) series(dir string, sp spec) *sample {
	s.progress("%s", strings.Join(sp.args(0), " "))
	warm, _, _ := s.once(dir, sp, 0)
	return s.timed(dir, sp, 1, s.runsFor(warm))
}

// firstSeries times the first run alone, then the second at once (the
// changed shards are still inside the index's racy window), then, after
// 2.1 s, the later runs: what a user's next prompts meet.
func (s *scale) firstSeries(dir string, sp spec) (first, second, later *sample) {
	s.progress("first %s", strings.Join(sp.args(0), " "))
	one := func(i int) *sample {
		r := &sample{}
		r.add(s.once(dir, sp, i))
		return r
	}
	first, second = one(0), one(1)
	time.Sleep(2100 * time.Millisecond)
	later = one(2)
	for i := 3; later.runs < s.runsFor(later.all[0]); i++ {
		later.add(s.once(dir, sp, i))
	}
	return first, second, later
}

// timed runs the spec n times from run i on.
func (s *scale) timed(dir string, sp spec, i, n int) *sample {
	r := &sample{}
	for j := range n {
		r.add(s.once(dir, sp, i+j))
	}
	return r
}

// add records one more run and keeps the median current.
func (r *sample) add(d time.Duration, kb int64, out int) {
	r.runs++
	r.kb = max(r.kb, kb)
	r.out = out
	r.all = append(r.all, d)
	r.med = median(r.all)
}

// cold times an index build from nothing: one `lore search x` with the
// index removed (three runs up to 10k records, one above).
func (s *scale) cold(dir string, n int) *sample {
	s.progress("cold index build")
	runs := 3
	if n > 10000 {
		runs = 1
	}
	return s.timed(dir, spec{args: fixed("search", "x"), before: func(int) { removeIndex(s.t, dir) }}, 0, runs)
}
