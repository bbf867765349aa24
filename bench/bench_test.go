//go:build unix

package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"lore/index"
	"lore/inject"
	"lore/internal/benchstore"
	"lore/record"
	"lore/store"
)

const prompt = "the invoice export times out on CI after the upgrade"

// store generates (once per size and test binary run) a store of n records.
func benchStore(b testing.TB, n int) *store.Store {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("lore-bench-%d", n), ".lore")
	if _, err := os.Stat(dir); err != nil {
		if err := benchstore.Generate(dir, n, 25, 1); err != nil {
			b.Fatal(err)
		}
	}
	s, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	s.SetOrigin(record.Origin{Author: "Bench", Branch: "main", Commit: "0123456789abcdef0123456789abcdef01234567"})
	return s
}

func BenchmarkCapture(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := benchStore(b, n)
			for b.Loop() {
				r, err := s.New(record.Observation, "bench capture note", nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Append(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkInjectWarm(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := benchStore(b, n)
			// As the prompt hook opens it (commands also stat every
			// patterns shard).
			opts := index.SnapshotOptions{Tokenizer: inject.Tokenizer(), Prompt: true, Budget: inject.HookIndexBudget}
			if _, err := index.Open(context.Background(), s, opts); err != nil { // warm the cache
				b.Fatal(err)
			}
			for b.Loop() {
				snap, err := index.Open(context.Background(), s, opts)
				if err != nil {
					b.Fatal(err)
				}
				inject.PromptContext(inject.NewIndex(snap, s.Config), s.Config, prompt, 2000, time.Now(), nil)
			}
		})
	}
}

func BenchmarkKeywords(b *testing.B) {
	for b.Loop() {
		inject.Keywords("Why does formatBytes in utils/format.ts crash when DEPLOY_ENV is unset on the deploy pipeline?")
	}
}

// TestBinaryTimings times the built binary as whole processes. It is the
// measurement behind the README's table; run it with bench/run.sh.
func TestBinaryTimings(t *testing.T) {
	if os.Getenv("LORE_BENCH") == "" {
		t.Skip("set LORE_BENCH=1 (or run bench/run.sh) to time the binary")
	}
	bin := filepath.Join(t.TempDir(), "lore")
	build := exec.Command("go", "build", "-o", bin, "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config")) // the list of trusted stores
	t.Log("| records | inject --stdin | resume | search | capture | capture, 1 concurrent writer | peak RSS | cold index build (once) |")
	t.Log("|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range []int{1000, 10000, 100000} {
		root := filepath.Join(t.TempDir(), fmt.Sprint(n))
		if err := benchstore.Generate(filepath.Join(root, ".lore"), n, 25, 1); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		hook := fmt.Sprintf(`{"session_id":"","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":%q}`, root, prompt)
		// Through the launcher, so peak RSS is lore's own: Linux counts a
		// vfork'ed child's memory with its parent's, the test process.
		r := runner{t: t, bin: bin, dir: root, launcher: buildLauncher(t, t.TempDir())}
		r.run(nil, "trust")          // the hooks inject only a store the user trusts
		cold := r.run(nil, "resume") // builds the index, as the first command after a clone would
		coldKB := r.peakKB
		r.peakKB = 0
		inj := r.time(hook, "inject", "--stdin")
		res := r.time("", "resume")
		sea := r.time("", "search", "invoice export")
		capt := r.time("", "observe", "bench capture note")
		stop := r.background("observe", "concurrent writer note")
		contended := r.time("", "observe", "bench capture note")
		stop()
		t.Logf("| %d | %s | %s | %s | %s | %s | %.0f MB | %.2f s, %.0f MB |", n, inj, res, sea, capt, contended,
			float64(r.peakKB)/1024, cold.Seconds(), float64(coldKB)/1024)
	}
}

type runner struct {
	t      *testing.T
	bin    string
	dir    string
	peakKB int64
	out    []byte // the last command's output, stdout and stderr
	// launcher, if set, starts each command and reports its wall time and
	// peak RSS (see buildLauncher); without it, the peak RSS a command
	// reports is at least this test process's own.
	launcher string
}

const runs = 9

// time runs the command once to warm up, then runs more times and returns
// the median wall time.
func (r *runner) time(stdin string, args ...string) string {
	r.run(nil, args...)
	var ds []time.Duration
	for range runs {
		ds = append(ds, r.run(&stdin, args...))
	}
	slices.Sort(ds)
	return fmt.Sprintf("%.1f ms", float64(ds[len(ds)/2].Microseconds())/1000)
}

func (r *runner) run(stdin *string, args ...string) time.Duration {
	d, err := r.try(stdin, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

// try runs the command once and returns its wall time; a non-zero exit is
// an error (an *exec.ExitError wrapped with the command and its output).
func (r *runner) try(stdin *string, args ...string) (time.Duration, error) {
	if r.launcher != "" {
		return r.launch(stdin, args...)
	}
	cmd := exec.Command(r.bin, args...)
	cmd.Dir = r.dir
	if stdin != nil {
		cmd.Stdin = strings.NewReader(*stdin)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	r.out = out
	if cmd.ProcessState != nil {
		if kb := maxRSSKB(cmd); kb > r.peakKB {
			r.peakKB = kb
		}
	}
	if err != nil {
		return d, fmt.Errorf("%v: %w\n%s", args, err, out)
	}
	return d, nil
}

// launch is try through the launcher, which times the command and reads
// its peak RSS itself and reports both on a pipe (its fd 3).
func (r *runner) launch(stdin *string, args ...string) (time.Duration, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer pr.Close()
	cmd := exec.Command(r.launcher, append([]string{r.bin}, args...)...)
	cmd.Dir = r.dir
	cmd.ExtraFiles = []*os.File{pw}
	if stdin != nil {
		cmd.Stdin = strings.NewReader(*stdin)
	}
	out, err := cmd.CombinedOutput()
	pw.Close()
	r.out = out
	var ns, kb int64
	if _, serr := fmt.Fscan(pr, &ns, &kb); serr != nil {
		return 0, fmt.Errorf("%v: the launcher reported nothing (%v, %v)\n%s", args, serr, err, out)
	}
	r.peakKB = max(r.peakKB, kb)
	if err != nil {
		return time.Duration(ns), fmt.Errorf("%v: %w\n%s", args, err, out)
	}
	return time.Duration(ns), nil
}

// launcherSource starts a command with the launcher's stdin, stdout and
// stderr, and writes its wall time (ns) and peak RSS (KB on Linux) to fd
// 3, then exits with its exit code. Go starts processes with vfork, and on
// Linux a child's peak RSS counts the memory of the process that started
// it; this small process stands in for the large test process.
const launcherSource = `package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(125)
	}
	fmt.Fprintf(os.NewFile(3, "report"), "%d %d\n", d.Nanoseconds(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	os.Exit(cmd.ProcessState.ExitCode())
}
`

// buildLauncher builds the launcher in dir and returns its path.
func buildLauncher(t *testing.T, dir string) string {
	src := filepath.Join(dir, "launcher.go")
	if err := os.WriteFile(src, []byte(launcherSource), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "launcher")
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("go build launcher: %v\n%s", err, out)
	}
	return bin
}

// background runs the command in a loop until stopped: a concurrent writer.
func (r *runner) background(args ...string) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			default:
			}
			cmd := exec.Command(r.bin, args...)
			cmd.Dir = r.dir
			_ = cmd.Run()
		}
	}()
	return func() { close(done); <-finished }
}

// maxRSSKB is the finished process's peak resident set, in KB (Linux).
func maxRSSKB(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// BenchmarkBuildResume is the session-start view's own work on a warm
// index: the handoff, decisions, patterns and recurring failures.
func BenchmarkBuildResume(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := benchStore(b, n)
			snap, err := index.Open(context.Background(), s, index.SnapshotOptions{Tokenizer: inject.Tokenizer()})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				inject.BuildResume(context.Background(), snap, inject.ResumeOptions{})
			}
		})
	}
}
