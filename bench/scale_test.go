//go:build unix

package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"lore/internal/benchstore"
	"lore/record"
)

// TestScale times the built binary as whole processes on generated stores
// of 1k to 300k records, in the states a user meets: steady (a warm index),
// right after a capture, after a pull that brought 3,000 records, and after
// a checkout that rewrote 600 shards. Every figure is a median wall time
// and its ratio to a hello-world Go process timed in the same run. Run it
// with bench/scale.sh.
//
//	LORE_BENCH=scale              run it (it is skipped otherwise)
//	LORE_SCALE_SIZES=1000,10000   the store sizes (default 1000,10000,100000,300000; "100k" works too)
//	LORE_SCALE_RUNS=7             timed runs after the warm-up for commands under 0.5 s
//	LORE_SCALE_BIN=/path/to/lore  time this binary instead of building the repository's
func TestScale(t *testing.T) {
	if os.Getenv("LORE_BENCH") != "scale" {
		t.Skip("set LORE_BENCH=scale (or run bench/scale.sh) to time the binary at scale")
	}
	sizes := scaleSizes(t)
	s := &scale{t: t, tmp: t.TempDir(), runs: 7, results: map[int]map[string]*sample{}, floor: map[int]time.Duration{}}
	// The hooks inject only stores the user trusts; the list lives in the
	// configuration directory, here one of the test's own.
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(s.tmp, "config"))
	if v := os.Getenv("LORE_SCALE_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LORE_SCALE_RUNS=%q: want a positive number", v)
		}
		s.runs = n
	}
	begin := time.Now()
	s.bin = os.Getenv("LORE_SCALE_BIN")
	if s.bin == "" {
		s.bin = filepath.Join(s.tmp, "lore")
		s.build(s.bin, "..")
	}
	hello := filepath.Join(s.tmp, "hello")
	if err := os.MkdirAll(hello, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(hello, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.hello = filepath.Join(hello, "hello")
	s.build(s.hello, src)
	s.launcher = buildLauncher(t, hello)

	// Another clone's records, for the pull, and replacement lines for the
	// checkout: the same generator with other seeds.
	s.pull = filepath.Join(s.tmp, "pull", ".lore")
	if err := benchstore.Generate(s.pull, 3000, 25, 2); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(s.tmp, "fresh", ".lore")
	if err := benchstore.Generate(fresh, 3000, 25, 3); err != nil {
		t.Fatal(err)
	}
	s.fresh = freshLines(t, fresh)

	t.Logf("Whole-process wall time of the built lore binary, median of up to %d runs after a warm-up (fewer for commands over 0.5 s),", s.runs)
	t.Logf("and its ratio to the floor: a hello-world Go process timed around each size's measurements (median of %d runs before, %d after).", floorRuns, floorRuns)
	t.Log("Steady: the index was built by one `lore search x`, then the test slept 2.1 s (past the index's 2 s racy-timestamp window).")
	t.Log("After a capture: an untimed `lore observe` before every run. After a pull or a checkout: the first hook, the second at once")
	t.Log("(the changed shards are still within the racy window), then after a 2.1 s pause the later ones (a user's next prompts).")
	t.Log("Each state starts from a fresh copy of the committed store and a new index. Output: what the last run printed")
	t.Log("(a hook prints nothing when nothing is relevant). Peak RSS: the largest over the timed runs, of the lore process alone")
	t.Log("(each command is started, timed and measured by a small launcher process, not by the test process).")
	t.Log("")
	for _, n := range sizes {
		s.size(n)
	}
	s.summary(sizes)
	t.Log("")
	t.Logf("Total: %s.", secs(time.Since(begin)))
}

const floorRuns = 21

// injectingPrompt passes the relevance gate on the generated stores, which
// the README's prompt (the other prompt hooks') does not: its hook prints
// nothing.
const injectingPrompt = "the deploy leaks memory with Terraform on ARM runners"

// scale is one TestScale run.
type scale struct {
	t        *testing.T
	tmp      string
	bin      string
	hello    string                // the hello-world binary
	launcher string                // starts, times and measures every command (buildLauncher)
	floor    map[int]time.Duration // size → the floor measured around it
	runs     int                   // timed runs after the warm-up for commands under 0.5 s
	pull     string                // a 3,000-record store written by another clone
	fresh    map[string][]string   // kind directory → record lines of another clone, for the checkout
	begin    time.Time             // of the current size, for progress

	results map[int]map[string]*sample // size → key → result, for the summaries
}

// sample is one measured row.
type sample struct {
	state, what string
	med         time.Duration   // median of all
	all         []time.Duration // the timed runs
	kb          int64           // peak RSS over the timed runs
	out         int             // the last run's output, bytes
	runs        int
	order       int // in the size's table
}

// spec is one command to time. Run 0 is the warm-up (or the first run, in
// first-run mode).
type spec struct {
	stdin  string               // hook JSON; "" for none
	input  func(i int) string   // hook JSON of run i, instead of stdin
	args   func(i int) []string // the command of run i
	before func(i int)          // untimed, before run i
	exit1  bool                 // exit code 1 is fine (doctor: problems found)
}

func fixed(args ...string) func(int) []string { return func(int) []string { return args } }

// scaleSizes reads LORE_SCALE_SIZES.
func scaleSizes(t *testing.T) []int {
	v := os.Getenv("LORE_SCALE_SIZES")
	if v == "" {
		return []int{1000, 10000, 100000, 300000}
	}
	var sizes []int
	for _, f := range strings.Split(v, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mul := 1
		if strings.HasSuffix(f, "k") {
			f, mul = strings.TrimSuffix(f, "k"), 1000
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 100 {
			t.Fatalf("LORE_SCALE_SIZES=%q: want record counts of at least 100, such as 1000,10000", v)
		}
		sizes = append(sizes, n*mul)
	}
	return sizes
}

// build builds as the README installs: without cgo, so a static binary
// (linking the C runtime, which the net package pulls in wherever a C
// compiler is found, costs every lore process 0.8 ms at start).
func (s *scale) build(out, pkg string) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("go build %s: %v\n%s", pkg, err, o)
	}
}

// timeFloor times the hello-world process after a warm-up.
func (s *scale) timeFloor() []time.Duration {
	r := runner{t: s.t, bin: s.hello, dir: s.tmp, launcher: s.launcher}
	r.run(nil)
	var ds []time.Duration
	for range floorRuns {
		ds = append(ds, r.run(nil))
	}
	return ds
}

func (s *scale) progress(format string, args ...any) {
	s.t.Helper()
	s.t.Logf("progress: [%s] "+format, append([]any{time.Since(s.begin).Round(100 * time.Millisecond)}, args...)...)
}

// size measures one store size in every state and logs its table.
func (s *scale) size(n int) {
	t := s.t
	s.begin = time.Now()
	s.results[n] = map[string]*sample{}
	floor := s.timeFloor()
	root := filepath.Join(s.tmp, fmt.Sprint(n))
	pristine := filepath.Join(root, "pristine")
	work := filepath.Join(root, "work")
	defer os.RemoveAll(root)

	s.progress("%d records: generating", n)
	start := time.Now()
	if err := benchstore.Generate(filepath.Join(pristine, ".lore"), n, 25, 1); err != nil {
		t.Fatal(err)
	}
	genTime := time.Since(start)
	shards := countFiles(t, filepath.Join(pristine, ".lore"))
	s.progress("%d records: %d shards generated in %s; committing", n, shards, secs(genTime))
	gitRun(t, pristine, 0, "init", "-q")
	gitRun(t, pristine, 0, "config", "user.name", "Bench")
	gitRun(t, pristine, 0, "config", "user.email", "bench@example.com")
	start = time.Now()
	commitNote := ""
	if err := gitTry(pristine, 5*time.Minute, "add", "-A"); err == nil {
		if err := gitTry(pristine, 5*time.Minute, "commit", "-q", "-m", "store"); err != nil {
			t.Fatal(err)
		}
		packObjects(t, pristine)
		commitNote = "committed and packed in " + secs(time.Since(start))
	} else if errors.Is(err, context.DeadlineExceeded) {
		commitNote = "NOT committed: git add took over 5 minutes, so `lore status` ran with no HEAD"
		if err := os.RemoveAll(filepath.Join(pristine, ".git")); err != nil {
			t.Fatal(err)
		}
		gitRun(t, pristine, 0, "init", "-q")
	} else {
		t.Fatal(err)
	}
	s.progress("%d records: %s", n, commitNote)
	decs := recordIDs(t, pristine, record.Decision, 2*(s.runs+1))
	pats := recordIDs(t, pristine, record.Pattern, s.runs+1)
	obs := recordIDs(t, pristine, record.Observation, s.runs+1)

	hook := func(event map[string]string) string {
		m := map[string]string{"session_id": "bench", "cwd": work}
		for k, v := range event {
			m[k] = v
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	promptHook := hook(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": prompt})
	// A new session for every run: a session is not shown the same records twice.
	injectingHook := func(i int) string {
		return hook(map[string]string{"session_id": fmt.Sprintf("bench-%d", i), "hook_event_name": "UserPromptSubmit", "prompt": injectingPrompt})
	}
	startHook := hook(map[string]string{"hook_event_name": "SessionStart", "source": "startup"})
	pick := func(ids []string) func(int) string {
		return func(i int) string { return ids[i%len(ids)] }
	}
	revised, abandoned := pick(decs[:len(decs)/2]), pick(decs[len(decs)/2:])
	reads := []struct {
		what string
		args []string
	}{
		{`search "invoice export"`, []string{"search", "invoice export"}},
		{"resume", []string{"resume"}},
		{"list --limit 20", []string{"list", "--limit", "20"}},
		{"show <decision>", []string{"show", decs[0]}},
		{"status", []string{"status"}},
	}

	// 1. Steady.
	s.reset(pristine, work)
	s.row(n, stSteady, "prompt hook", s.series(work, spec{stdin: promptHook, args: fixed("inject", "--stdin")}))
	s.row(n, stSteady, "prompt hook, a prompt that injects", s.series(work, spec{input: injectingHook, args: fixed("inject", "--stdin")}))
	s.row(n, stSteady, "session-start hook", s.series(work, spec{stdin: startHook, args: fixed("inject", "--stdin")}))
	for _, c := range reads {
		s.row(n, stSteady, c.what, s.series(work, spec{args: fixed(c.args...)}))
	}
	s.row(n, stSteady, "doctor", s.series(work, spec{args: fixed("doctor"), exit1: true}))
	s.row(n, stSteady, "journal revise", s.series(work, spec{args: func(i int) []string {
		return []string{"journal", "revise", revised(i), fmt.Sprintf("bench revision %d", i)}
	}}))
	s.row(n, stSteady, "journal abandon", s.series(work, spec{args: func(i int) []string {
		return []string{"journal", "abandon", abandoned(i)}
	}}))
	s.row(n, stSteady, "patterns validate", s.series(work, spec{args: func(i int) []string {
		return []string{"patterns", "validate", pick(pats)(i)}
	}}))
	s.row(n, stSteady, "inbox dismiss", s.series(work, spec{args: func(i int) []string {
		return []string{"inbox", "dismiss", pick(obs)(i)}
	}}))
	s.row(n, stSteady, "observe", s.series(work, spec{args: fixed("observe", "bench capture note")}))
	s.row(n, stSteady, "remember", s.series(work, spec{args: fixed("remember", "bench decision", "--rationale", "because")}))
	s.row(n, stSteady, "cold index build (search x)", s.cold(work, n))

	// 2. Right after a capture: an untimed observe before every run.
	s.reset(pristine, work)
	capture := func(i int) { (&runner{t: t, bin: s.bin, dir: work}).run(nil, "observe", fmt.Sprintf("capture %d", i)) }
	s.row(n, stCapture, "prompt hook", s.series(work, spec{stdin: promptHook, args: fixed("inject", "--stdin"), before: capture}))
	s.row(n, stCapture, "session-start hook", s.series(work, spec{stdin: startHook, args: fixed("inject", "--stdin"), before: capture}))
	for _, c := range reads {
		s.row(n, stCapture, c.what, s.series(work, spec{args: fixed(c.args...), before: capture}))
	}

	// 3. After a pull of 3,000 records; 4. after a checkout that rewrote
	// 600 shards. The first hook after each is timed alone.
	changes := []struct {
		state string
		apply func() string
	}{
		{stPull, func() string { return s.pullInto(work) }},
		{stCheckout, func() string { return s.checkoutInto(work, 600) }},
	}
	var notes []string
	for _, c := range changes {
		for _, h := range []struct{ what, stdin string }{{"prompt hook", promptHook}, {"session-start hook", startHook}} {
			s.reset(pristine, work)
			note := c.apply()
			if h.what == "prompt hook" {
				notes = append(notes, note)
			}
			first, second, later := s.firstSeries(work, spec{stdin: h.stdin, args: fixed("inject", "--stdin")})
			s.row(n, c.state, "first "+h.what, first)
			s.row(n, c.state, "second "+h.what+", at once", second)
			s.row(n, c.state, "later "+h.what+"s, from 2.1 s on", later)
		}
	}
	s.floor[n] = median(append(floor, s.timeFloor()...))
	total := time.Since(s.begin)

	t.Logf("### %s records (floor %s)", commas(n), ms(s.floor[n]))
	t.Log("")
	t.Log("| state | command | median (× floor) | peak RSS | output | runs |")
	t.Log("|---|---|---:|---:|---:|---:|")
	for _, r := range s.ordered(n) {
		t.Logf("| %s | %s | %s | %s | %s | %d |", r.state, r.what, s.cell(n, r), mb(r.kb), size(r.out), r.runs)
	}
	t.Log("")
	t.Logf("%s records in %d shards: generated in %s, %s; %s; %s in all for this size.",
		commas(n), shards, secs(genTime), commitNote, strings.Join(notes, "; "), secs(total))
	t.Log("")
}

// reset replaces work with a copy of the pristine store, builds its index
// and refreshes git's (untimed), and waits out the racy window.
func (s *scale) reset(pristine, work string) {
	t := s.t
	if err := os.RemoveAll(work); err != nil {
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

// pullInto brings the other clone's shards into the store under new file
// names, with current mtimes, as a git pull would. Each lands one month
// later than generated, so the pull also brings the newest month's
// directories (the generated stores end in 2026-10); lore goes by the
// directories' names, not the records' times.
func (s *scale) pullInto(work string) string {
	t := s.t
	dst := filepath.Join(work, ".lore")
	files, newDirs, recs := 0, 0, 0
	err := filepath.WalkDir(s.pull, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(s.pull, p)
		dir, name := filepath.Split(rel)
		if !strings.HasPrefix(name, "main-") || !isShardDir(dir) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, nextMonth(t, dir))
		if _, err := os.Stat(target); errors.Is(err, os.ErrNotExist) {
			newDirs++
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		}
		files++
		recs += countRecords(name, data)
		return os.WriteFile(filepath.Join(target, "other-"+strings.TrimPrefix(name, "main-")), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("the pull added %s records in %d new shards, one month later than generated (%d new month directories)", commas(recs), files, newDirs)
}

// checkoutInto rewrites up to n JSONL shards, spread over the store, as a
// checkout of another branch would: the file is removed and written anew,
// without its last line and with one record of another clone appended.
func (s *scale) checkoutInto(work string, n int) string {
	t := s.t
	lore := filepath.Join(work, ".lore")
	var shards []string
	for _, k := range record.AllKinds() {
		if k.Ext() != ".jsonl" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(lore, k.Dir()), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				shards = append(shards, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(shards)
	picked := shards
	if len(shards) > n {
		picked = nil
		for i := range n {
			picked = append(picked, shards[i*len(shards)/n])
		}
	}
	used := map[string]int{}
	for _, p := range picked {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		kindDir := strings.SplitN(filepath.ToSlash(strings.TrimPrefix(p, lore+string(filepath.Separator))), "/", 2)[0]
		pool := s.fresh[kindDir]
		if len(pool) == 0 {
			t.Fatalf("no replacement lines for %s", kindDir)
		}
		var b bytes.Buffer
		for _, l := range lines[:len(lines)-1] {
			b.Write(l)
		}
		b.WriteString(pool[used[kindDir]%len(pool)])
		used[kindDir]++
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("the checkout rewrote %d of %d JSONL shards", len(picked), len(shards))
}

// freshLines collects a store's JSONL record lines by kind directory.
func freshLines(t *testing.T, lore string) map[string][]string {
	m := map[string][]string{}
	for _, k := range record.AllKinds() {
		if k.Ext() != ".jsonl" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(lore, k.Dir()), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for l := range strings.Lines(string(data)) {
				m[k.Dir()] = append(m[k.Dir()], l)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// nextMonth maps kind/YYYY-MM/ to kind/<the month after>.
func nextMonth(t *testing.T, dir string) string {
	kind, month := filepath.Split(filepath.Clean(dir))
	m, err := time.Parse("2006-01", month)
	if err != nil {
		t.Fatalf("pull: %s is not a month directory", dir)
	}
	return filepath.Join(kind, m.AddDate(0, 1, 0).Format("2006-01"))
}

func isShardDir(dir string) bool {
	top := strings.SplitN(filepath.ToSlash(dir), "/", 2)[0]
	for _, k := range record.AllKinds() {
		if k.Dir() == top {
			return true
		}
	}
	return false
}

func countRecords(name string, data []byte) int {
	if strings.HasSuffix(name, ".toml") {
		return bytes.Count(data, []byte("[[pattern]]"))
	}
	return bytes.Count(data, []byte("\n"))
}

// recordIDs returns up to n distinct IDs of the kind from the store's
// shards, newest month first.
func recordIDs(t *testing.T, root string, k record.Kind, n int) []string {
	base := filepath.Join(root, ".lore", k.Dir())
	months, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var ids []string
	for i := len(months) - 1; i >= 0 && len(ids) < n; i-- {
		files, err := filepath.Glob(filepath.Join(base, months[i].Name(), "*"+k.Ext()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() && len(ids) < n {
				var id string
				line := sc.Text()
				if k.Ext() == ".toml" {
					if rest, ok := strings.CutPrefix(line, "id = "); ok {
						id, _ = strconv.Unquote(rest)
					}
				} else {
					var r struct {
						ID string `json:"id"`
					}
					if json.Unmarshal([]byte(line), &r) == nil {
						id = r.ID
					}
				}
				if id != "" && !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no %s records in %s", k, base)
	}
	return ids
}

func countFiles(t *testing.T, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".toml")) && filepath.Base(p) != "config.toml" {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func gitRun(t *testing.T, dir string, timeout time.Duration, args ...string) {
	t.Helper()
	if err := gitTry(dir, timeout, args...); err != nil {
		t.Fatal(err)
	}
}

// packObjects packs a repository's objects, as a clone has them.
func packObjects(t *testing.T, dir string) {
	gitRun(t, dir, 0, "repack", "-adq")
}

// gitTry runs git in dir with a bench identity; timeout 0 means none.
func gitTry(dir string, timeout time.Duration, args ...string) error {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	// No gc in the background: a detached auto gc packs the objects while
	// the bench copies the repository (cp: cannot stat .git/objects/...),
	// and whether it has finished changes what status costs. packObjects
	// packs them when the bench says so.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "gc.auto=0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return nil
}

// row records a result under its state and command.
func (s *scale) row(n int, state, what string, r *sample) {
	r.state, r.what = state, what
	r.order = len(s.results[n])
	s.results[n][key(state, what)] = r
}

func (s *scale) ordered(n int) []*sample {
	var rs []*sample
	for _, r := range s.results[n] {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b *sample) int { return a.order - b.order })
	return rs
}

// The states, as the tables name them.
const (
	stSteady   = "steady"
	stCapture  = "after a capture"
	stPull     = "after a pull of 3,000 records"
	stCheckout = "after a checkout rewriting 600 shards"
)

func key(state, what string) string { return state + "\x00" + what }

// summary logs the overview tables (a row per size) and, with 100k and
// 300k measured, the growth exponents.
func (s *scale) summary(sizes []int) {
	t := s.t
	type col struct{ state, what, head string }
	tables := []struct {
		title string
		cols  []col
		rss   bool
	}{
		{"Hooks", []col{
			{stSteady, "prompt hook", "prompt"},
			{stSteady, "prompt hook, a prompt that injects", "prompt that injects"},
			{stSteady, "session-start hook", "session start"},
			{stCapture, "prompt hook", "prompt after a capture"},
			{stPull, "first prompt hook", "first prompt after a pull"},
			{stPull, "later prompt hooks, from 2.1 s on", "later prompts after a pull"},
			{stPull, "first session-start hook", "first session start after a pull"},
			{stCheckout, "first prompt hook", "first prompt after a checkout"},
			{stCheckout, "later prompt hooks, from 2.1 s on", "later prompts after a checkout"},
			{stCheckout, "first session-start hook", "first session start after a checkout"},
		}, true},
		{"Commands, steady", []col{
			{stSteady, `search "invoice export"`, "search"},
			{stSteady, "resume", "resume"},
			{stSteady, "list --limit 20", "list --limit 20"},
			{stSteady, "show <decision>", "show"},
			{stSteady, "status", "status"},
			{stSteady, "doctor", "doctor"},
			{stSteady, "observe", "observe"},
			{stSteady, "remember", "remember"},
			{stSteady, "journal revise", "journal revise"},
			{stSteady, "cold index build (search x)", "cold index build"},
		}, false},
		{"Commands right after a capture", []col{
			{stCapture, `search "invoice export"`, "search"},
			{stCapture, "resume", "resume"},
			{stCapture, "list --limit 20", "list --limit 20"},
			{stCapture, "show <decision>", "show"},
			{stCapture, "status", "status"},
		}, false},
	}
	t.Log("### Summary")
	for _, tb := range tables {
		t.Log("")
		t.Logf("%s:", tb.title)
		t.Log("")
		head, rule := "| records | floor |", "|---:|---:|"
		for _, c := range tb.cols {
			head += " " + c.head + " |"
			rule += "---:|"
		}
		if tb.rss {
			head += " prompt hook peak RSS |"
			rule += "---:|"
		}
		t.Log(head)
		t.Log(rule)
		for _, n := range sizes {
			line := "| " + commas(n) + " | " + ms(s.floor[n]) + " |"
			for _, c := range tb.cols {
				line += " " + s.cell(n, s.results[n][key(c.state, c.what)]) + " |"
			}
			if tb.rss {
				line += " " + mb(s.results[n][key(stSteady, "prompt hook")].kb) + " |"
			}
			t.Log(line)
		}
	}
	if !slices.Contains(sizes, 100000) || !slices.Contains(sizes, 300000) {
		return
	}
	t.Log("")
	t.Log("Growth from 100k to 300k records, as the exponent log(t300k/t100k)/log(3) (1 is linear, 0 flat):")
	t.Log("")
	t.Log("| state | command | 100,000 | 300,000 | exponent |")
	t.Log("|---|---|---:|---:|---:|")
	for _, a := range s.ordered(100000) {
		b := s.results[300000][key(a.state, a.what)]
		if b == nil {
			continue
		}
		e := math.Log(b.med.Seconds()/a.med.Seconds()) / math.Log(3)
		t.Logf("| %s | %s | %s | %s | %.2f |", a.state, a.what, ms(a.med), ms(b.med), e)
	}
}

func (s *scale) cell(n int, r *sample) string {
	if r == nil {
		return "–"
	}
	ratio := r.med.Seconds() / s.floor[n].Seconds()
	f := "%.1f"
	if ratio >= 100 {
		f = "%.0f"
	}
	return fmt.Sprintf("%s ("+f+"×)", ms(r.med), ratio)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func size(b int) string {
	if b < 1000 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.1f KB", float64(b)/1000)
}

func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }

func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
