//go:build unix

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"lore/internal/benchstore"
	"lore/record"
)

// TestScale times the built binary as whole processes on generated stores
// of 1k to 300k records, in the states a user meets: steady (a warm index),
// right after a capture, steady with a day's captures committed, after a
// pull that brought 3,000 records, and after a checkout that rewrote 600
// shards. Every figure is a median wall time and its ratio to a
// hello-world Go process timed in the same run. Run it with bench/scale.sh.
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
	t.Log("After a capture: an untimed `lore observe` before every run. Current shards committed: an observe and a remember, committed,")
	t.Log("then 2.1 s (this checkout's shards exist and git tracks them). After a pull or a checkout: the first hook, the second at once")
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
	defer removeWork(work) // before root: a catch-up may still write in it

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
		// The generated handoffs name commits no repository has, which
		// sends resume to look for the commit that brought the handoff
		// (rewritten history): the latest handoff is made as a user's is,
		// at the commit it follows.
		(&runner{t: t, bin: s.bin, dir: pristine}).run(nil, "handoff", "where the generated work stopped", "--next", "time the session start")
		gitRun(t, pristine, 0, "add", "-A", ".lore")
		gitRun(t, pristine, 0, "commit", "-q", "-m", "handoff")
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

	// 2b. Steady again, after a day's work was committed: this checkout's
	// current shards exist and are tracked, which the pristine store's
	// steady state never has (a status that asked git about them on every
	// run went unseen for that reason).
	s.reset(pristine, work)
	r := &runner{t: t, bin: s.bin, dir: work}
	r.run(nil, "observe", "committed capture")
	r.run(nil, "remember", "committed decision", "--rationale", "because")
	if err := gitTry(work, 5*time.Minute, "add", "-A", ".lore"); err == nil {
		gitRun(t, work, 0, "commit", "-q", "-m", "a day's work")
		time.Sleep(2100 * time.Millisecond)
		s.row(n, stCommitted, "prompt hook", s.series(work, spec{stdin: promptHook, args: fixed("inject", "--stdin")}))
		s.row(n, stCommitted, "session-start hook", s.series(work, spec{stdin: startHook, args: fixed("inject", "--stdin")}))
		for _, c := range reads {
			s.row(n, stCommitted, c.what, s.series(work, spec{args: fixed(c.args...)}))
		}
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
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
	waitCatchUp(work)
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
