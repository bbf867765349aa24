//go:build unix

package gitrepo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether process pid still runs: a zombie, killed and
// waiting for init to reap it, does not.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		// the state follows the command name, in parentheses
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
	}
	if runtime.GOOS == "linux" {
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// A git that is a wrapper script, whose child holds git's output open:
// at the deadline, Run kills the child with the script and returns at
// once, rather than waiting for the pipe to close.
func TestRunEndsWhatGitStartedAtTheDeadline(t *testing.T) {
	bin, pids := t.TempDir(), t.TempDir()
	write(t, filepath.Join(bin, "git"), fmt.Sprintf("#!/bin/sh\nsleep 30 &\necho $! > '%s/sleep'\nwait\n", pids))
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	const limit = 400 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, nil, t.TempDir(), "rev-parse", "HEAD")
	took := time.Since(start)
	data, readErr := os.ReadFile(filepath.Join(pids, "sleep"))
	pid, atoiErr := strconv.Atoi(strings.TrimSpace(string(data)))
	if readErr != nil || atoiErr != nil {
		t.Fatalf("the fake git did not start its child within %v: %v %v", limit, readErr, atoiErr)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err == nil || err.Error() != "git rev-parse: timed out" {
		t.Errorf("Run = %v, want a timeout", err)
	}
	// Returning within a second of the deadline is generous: without the
	// group, the wait would have lasted until the child ended (30s) or
	// WaitDelay.
	if took > limit+600*time.Millisecond {
		t.Errorf("Run took %v with a %v deadline", took, limit)
	}
	for end := time.Now().Add(2 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the fake git's child (pid %d) still runs after Run returned", pid)
		}
	}
}

// A signal lore receives while git runs reaches git and what it started,
// and lore dies of it as before: a terminal's Ctrl-C, sent to lore's
// process group, which git was in, and a SIGTERM sent to lore alone. The
// test runs a helper process (lore), which runs a git that waits in a
// child.
func TestASignalToLoreReachesGit(t *testing.T) {
	for _, c := range []struct {
		sig   syscall.Signal
		group bool
	}{{syscall.SIGINT, true}, {syscall.SIGTERM, false}} {
		sig := c.sig
		t.Run(sig.String(), func(t *testing.T) {
			if signal.Ignored(sig) {
				t.Skipf("%v is ignored here, and so in the helper", sig)
			}
			bin, pids, work := t.TempDir(), t.TempDir(), t.TempDir()
			pidFile := filepath.Join(pids, "sleep")
			// The child runs in the foreground, as git's own children do:
			// a background one of a shell ignores SIGINT.
			write(t, filepath.Join(bin, "git"), fmt.Sprintf("#!/bin/sh\nsh -c 'echo $$ > %s; exec sleep 30'\n", pidFile))
			if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
				t.Fatal(err)
			}
			helper := exec.Command(os.Args[0], "-test.run=^TestSignalHelper$")
			// The helper works in a directory of this test's: killed by the
			// signal, it never runs its own cleanup.
			helper.Env = append(os.Environ(), "GITREPO_SIGNAL_HELPER="+work, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			helper.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // go test is no part of this
			if err := helper.Start(); err != nil {
				t.Fatal(err)
			}
			defer helper.Process.Kill()
			pid := 0
			for end := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
				data, _ := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
				if pid == 0 && time.Now().After(end) {
					t.Fatal("the helper's git did not start its child")
				}
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			to := helper.Process.Pid
			if c.group {
				to = -to
			}
			if err := syscall.Kill(to, sig); err != nil {
				t.Fatal(err)
			}
			helper.Wait()
			if ws, ok := helper.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("the helper ended with %v, want killed by %v", helper.ProcessState, sig)
			}
			for end := time.Now().Add(2 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("git's child (pid %d) still runs after %v killed lore", pid, sig)
				}
			}
		})
	}
}

// TestSignalHelper is TestASignalToLoreReachesGit's helper: it runs git
// until a signal ends it.
func TestSignalHelper(t *testing.T) {
	work := os.Getenv("GITREPO_SIGNAL_HELPER")
	if work == "" {
		t.Skip("the helper process of TestASignalToLoreReachesGit")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Run(ctx, nil, work, "rev-parse", "HEAD")
	t.Errorf("Run returned (%v): the signal did not end the helper", err)
}

// A git diff in a directory where git sees no repository, though lore
// finds one, says so, rather than failing at its own arguments as git
// diff --no-index.
func TestDiffWithoutARepositorySaysSo(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil { // no HEAD: not a repository to git
		t.Fatal(err)
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	_, err := Run(context.Background(), os.Getenv, dir, "diff", "--no-color", "-U0", "--cached", "--", ".")
	if err == nil || !strings.HasPrefix(err.Error(), "git: ") || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("git diff = %v, want git's not a git repository", err)
	}
}

// In a repository another user owns, which git refuses, every command
// says so and passes on git's advice, the diff too; lore never trusts the
// repository itself.
func TestRunInARepositoryAnotherUserOwns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give the repository to another user")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "a.txt"), "a\n")
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-qm", "init")
	if out, err := exec.Command("chown", "-R", "65534", dir).CombinedOutput(); err != nil {
		t.Skipf("chown: %v %s", err, out)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	// git names the directory as it resolves it
	cause, advice := "git: detected dubious ownership in repository at '", "'; if you trust it, run: git config --global --add safe.directory /"
	for _, args := range [][]string{
		{"diff", "--no-color", "-U0", "--cached", "--", "."},
		{"diff", "--no-color", "-U0", "--", "a.txt"},
		{"status", "--porcelain"},
		{"rev-parse", "--verify", "--quiet", "HEAD^{commit}"},
	} {
		_, err := Run(context.Background(), os.Getenv, dir, args...)
		if err == nil || !strings.HasPrefix(err.Error(), cause) || !strings.Contains(err.Error(), advice) || strings.Contains(err.Error(), "\n") {
			t.Errorf("git %s = %v\nwant %s…%s…", strings.Join(args, " "), err, cause, advice)
		}
	}
}

func TestSafeDirectoryAdvice(t *testing.T) {
	stderr := "fatal: detected dubious ownership in repository at '/r'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /r\n"
	if got, want := safeDirectoryAdvice(stderr), "if you trust it, run: git config --global --add safe.directory /r"; got != want {
		t.Errorf("safeDirectoryAdvice = %q, want %q", got, want)
	}
	if got := safeDirectoryAdvice("fatal: bad revision 'HEAD'\n"); got != "" {
		t.Errorf("safeDirectoryAdvice without advice = %q", got)
	}
}

func TestUnborn(t *testing.T) {
	dir := t.TempDir()
	if Unborn(dir, nil) {
		t.Error("Unborn outside a repository")
	}
	git(t, dir, "init", "-q", "-b", "main")
	if !Unborn(dir, nil) {
		t.Error("not Unborn before the first commit")
	}
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	if Unborn(dir, nil) {
		t.Error("Unborn after a commit")
	}
	git(t, dir, "pack-refs", "--all")
	if Unborn(dir, nil) {
		t.Error("Unborn on a packed branch")
	}
	git(t, dir, "checkout", "-q", "--detach")
	if Unborn(dir, nil) {
		t.Error("Unborn when detached")
	}
	git(t, dir, "checkout", "-q", "--orphan", "fresh")
	if !Unborn(dir, nil) {
		t.Error("not Unborn on a new orphan branch")
	}
	// A branch whose ref exists but does not read is not unborn: lore
	// cannot tell.
	git(t, dir, "checkout", "-q", "main")
	write(t, filepath.Join(dir, ".git", "refs", "heads", "main"), "garbage\n")
	if Unborn(dir, nil) {
		t.Error("Unborn on a branch whose ref holds garbage")
	}
}

// BenchmarkProcessGroup is what starting git in a process group of its
// own costs (see runInGroup): one setpgid between fork and exec, and
// listening for signals to relay while it runs. Each
// iteration starts the program twice, in lore's group and in its own, in
// turn first, so that the machine's drift weighs on both alike; the
// metrics are the median time of each and their difference.
func BenchmarkProcessGroup(b *testing.B) {
	for _, prog := range [][]string{{"true"}, {"git", "--version"}} {
		path, err := exec.LookPath(prog[0])
		if err != nil {
			b.Skip(err)
		}
		b.Run(prog[0], func(b *testing.B) {
			var shared, own []time.Duration
			start := func(group bool) {
				cmd := exec.CommandContext(context.Background(), path, prog[1:]...)
				run := cmd.Run
				if group {
					run = func() error { return runInGroup(cmd) }
				}
				t := time.Now()
				if err := run(); err != nil {
					b.Fatal(err)
				}
				if group {
					own = append(own, time.Since(t))
				} else {
					shared = append(shared, time.Since(t))
				}
			}
			for b.Loop() {
				first := len(own)%2 == 0
				start(first)
				start(!first)
			}
			median := func(d []time.Duration) float64 {
				slices.Sort(d)
				return float64(d[len(d)/2].Nanoseconds())
			}
			s, o := median(shared), median(own)
			b.ReportMetric(s, "shared-ns/start")
			b.ReportMetric(o, "own-ns/start")
			b.ReportMetric(o-s, "extra-ns/start")
		})
	}
}
