package gitrepo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// trap writes an executable shell script to bin/name that leaves a marker
// file named after itself in markers when anything runs it, then behaves
// as cat so that a filter or pager it stands for would not change the
// output (the test fails on the marker, not on garbled output).
func trap(t *testing.T, bin, markers, name string) string {
	t.Helper()
	path := filepath.Join(bin, name)
	script := fmt.Sprintf("#!/bin/sh\ntouch '%s'\nexec cat\n", filepath.Join(markers, name))
	write(t, path, script)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// noMarkers fails the test if any trap ran.
func noMarkers(t *testing.T, markers, after string) {
	t.Helper()
	ran, _ := os.ReadDir(markers)
	for _, m := range ran {
		t.Errorf("%s ran %s", after, m.Name())
	}
	for _, m := range ran {
		os.Remove(filepath.Join(markers, m.Name()))
	}
}

func needShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the traps are shell scripts")
	}
}

// boobyTrap writes a config that names a program for everything a
// repository's config can make git run, and hooks that would do the same.
func boobyTrap(t *testing.T, dir, markers string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	p := func(name string) string { return trap(t, bin, markers, name) }
	hooks := filepath.Join(bin, "hooks")
	for _, h := range []string{"pre-commit", "post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman", "pre-auto-gc", "post-rewrite"} {
		trap(t, hooks, markers, h)
	}
	config := fmt.Sprintf(`[core]
	fsmonitor = %s
	pager = %s
	hooksPath = %s
	askPass = %s
	sshCommand = %s
	editor = %s
	alternateRefsCommand = %s
[filter "trap"]
	clean = %s
	smudge = %s
	required = true
[filter "Proc.Trap"]
	process = %s
	required
[diff "trap"]
	textconv = %s
	command = %s
[diff]
	external = %s
[credential]
	helper = %s
[pager]
	log = %s
	diff = %s
	status = %s
[log]
	showSignature = true
[gpg]
	program = %s
[include]
	path = included.cfg
`, p("fsmonitor"), p("pager"), hooks, p("askpass"), p("ssh"), p("editor"), p("alternate-refs"),
		p("clean"), p("smudge"), p("process"), p("textconv"), p("diff-command"), p("external-diff"),
		p("credential"), p("pager-log"), p("pager-diff"), p("pager-status"), p("gpg"))
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(config); err != nil {
		t.Fatal(err)
	}
	// A driver defined only in a file the config includes.
	write(t, filepath.Join(dir, ".git", "included.cfg"), fmt.Sprintf("[filter \"inc\"]\n\tclean = %s\n", p("included-clean")))
}

// setMtime gives path the modification time of like.
func setMtime(t *testing.T, path string, mtime time.Time) {
	t.Helper()
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestRunLetsNoRepositoryConfigRunAProgram(t *testing.T) {
	needShell(t)
	ctx := context.Background()
	dir, markers := t.TempDir(), t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=trap diff=trap\n*.jsonl filter=Proc.Trap diff=trap\n*.md filter=inc\n")
	for name, text := range map[string]string{
		"a.txt": "alpha\n", "b.jsonl": "{\"n\":1}\n", "c.txt": "calm\n", "d.txt": "dull\n", "e.md": "edge\n",
		".lore/journal/x.jsonl": "{\"id\":\"x\"}\n",
	} {
		write(t, filepath.Join(dir, name), text)
	}
	// An embedded repository with a filter of its own: finding whether its
	// worktree is dirty would run git status inside it, under its config.
	sub := filepath.Join(dir, "sub")
	git(t, dir, "init", "-q", "-b", "main", "sub")
	write(t, filepath.Join(sub, ".gitattributes"), "*.txt filter=subtrap\n")
	write(t, filepath.Join(sub, "f.txt"), "sub\n")
	git(t, sub, "add", "-A")
	git(t, sub, "commit", "-qm", "sub")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "one")
	first := git(t, dir, "rev-parse", "--short", "HEAD")
	write(t, filepath.Join(dir, "a.txt"), "alpha needle\n")
	git(t, dir, "commit", "-qam", "two")

	boobyTrap(t, dir, markers)
	subBin := t.TempDir()
	git(t, sub, "config", "filter.subtrap.clean", trap(t, subBin, markers, "sub-clean"))

	// Same size, older mtime: only the content tells, so git must clean
	// the file to compare it.
	past := time.Now().Add(-time.Hour)
	for name, text := range map[string]string{"b.jsonl": "{\"n\":2}\n", "d.txt": "dumb\n", "e.md": "eggs\n", ".lore/journal/x.jsonl": "{\"id\":\"y\"}\n", "sub/f.txt": "SUB\n"} {
		write(t, filepath.Join(dir, name), text)
		setMtime(t, filepath.Join(dir, name), past)
	}
	write(t, filepath.Join(dir, "a.txt"), "alpha needle, changed\n")
	write(t, filepath.Join(dir, "new.txt"), "new\n")
	write(t, filepath.Join(dir, ".lore", "journal", "y.jsonl"), "{}\n")
	// c.txt is unchanged but racy: written no earlier than the index, so
	// its stat cannot vouch for it and git reads it (through the filter).
	fi, err := os.Stat(filepath.Join(dir, "c.txt"))
	if err != nil {
		t.Fatal(err)
	}
	setMtime(t, filepath.Join(dir, ".git", "index"), fi.ModTime())
	noMarkers(t, markers, "setting up")

	st, err := StartStatus(ctx, os.Getenv, dir, filepath.Join(dir, ".lore"))()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{" M a.txt", " M b.jsonl", " M d.txt", " M e.md", "?? new.txt"}
	slices.Sort(st.Changes)
	if !slices.Equal(st.Changes, want) || st.Branch != "main" {
		t.Errorf("status: %+v, want branch main, changes %q", st, want)
	}
	noMarkers(t, markers, "StartStatus")

	store := filepath.Join(dir, ".lore")
	checks := []struct {
		dir  string
		args []string
		want []string // substrings of the output
	}{
		{dir, []string{"status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames"}, []string{"d.txt", "new.txt"}},
		{store, []string{"diff", "--no-color", "--no-ext-diff", "-U0", "HEAD", "--", "."}, []string{"-{\"id\":\"x\"}\n+{\"id\":\"y\"}\n"}},
		{dir, []string{"diff", "-U0", "HEAD"}, []string{"+dumb\n", "+{\"n\":2}\n", "+eggs\n", "+alpha needle, changed\n"}},
		{dir, []string{"log", "-p", "--format=%h %s", "-n", "51", first + "..HEAD"}, []string{"two\n", "+alpha needle\n"}},
		{dir, []string{"log", "--all", "--format=%h", "-Sneedle", "--", "."}, []string{git(t, dir, "rev-parse", "--short", "HEAD")}},
		{store, []string{"ls-files", "--others", "--exclude-standard", "-z", "--", "."}, []string{"journal/y.jsonl\x00"}},
		{store, []string{"rev-parse", "--abbrev-ref", "HEAD"}, []string{"main\n"}},
		{store, []string{"rev-parse", "--verify", "-q", "HEAD"}, []string{git(t, dir, "rev-parse", "HEAD")}},
	}
	for _, c := range checks {
		out, err := Run(ctx, os.Getenv, c.dir, c.args...)
		if err != nil {
			t.Errorf("git %q: %v", c.args, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("git %q: output lacks %q:\n%s", c.args, w, out)
			}
		}
		if c.args[0] == "status" && strings.Contains(out, "c.txt") {
			t.Errorf("git status lists the racy but unchanged c.txt:\n%s", out)
		}
		noMarkers(t, markers, fmt.Sprint("git ", c.args))
	}
}

// A config written after lore read it (by an agent, say, in the middle of
// a long MCP session) is read again before the next command, whether the
// driver is added to .git/config or to a file it already included.
func TestRunRereadsAChangedConfig(t *testing.T) {
	needShell(t)
	for _, included := range []bool{false, true} {
		ctx := context.Background()
		dir, markers := t.TempDir(), t.TempDir()
		git(t, dir, "init", "-q", "-b", "main")
		write(t, filepath.Join(dir, "a.txt"), "one\n")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "one")
		inc := filepath.Join(dir, ".git", "more.cfg")
		if included {
			git(t, dir, "config", "include.path", "more.cfg")
		}
		if _, err := Run(ctx, os.Getenv, dir, "status", "--porcelain=v2"); err != nil {
			t.Fatal(err)
		}

		clean := trap(t, t.TempDir(), markers, "late-clean")
		if included {
			write(t, inc, "[filter \"late\"]\n\tclean = "+clean+"\n")
		} else {
			git(t, dir, "config", "filter.late.clean", clean)
		}
		write(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=late\n")
		write(t, filepath.Join(dir, "a.txt"), "two\n")
		setMtime(t, filepath.Join(dir, "a.txt"), time.Now().Add(-time.Hour))
		out, err := Run(ctx, os.Getenv, dir, "status", "--porcelain=v2")
		if err != nil || !strings.Contains(out, "a.txt") {
			t.Errorf("status: %q, %v", out, err)
		}
		noMarkers(t, markers, fmt.Sprintf("status after the config changed (included: %v)", included))
	}
}

// The user's own filters (git-lfs, say) still run where the repository
// leaves them alone or sets only what can be set back; a repository can
// neither replace their commands nor require a filter of its own.
func TestRunKeepsTheUsersOwnFilters(t *testing.T) {
	needShell(t)
	ctx := context.Background()
	dir, markers, bin := t.TempDir(), t.TempDir(), t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, fmt.Sprintf("[user]\n\tname = T\n\temail = t@example.com\n[filter \"mine\"]\n\tclean = %s\n\trequired = true\n[filter \"theirs\"]\n\tclean = %s\n\trequired\n",
		trap(t, bin, markers, "user-clean"), trap(t, bin, markers, "user-clean-theirs")))
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	git(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, ".gitattributes"), "a.txt filter=mine\nb.txt filter=theirs\nc.txt filter=own\n")
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		write(t, filepath.Join(dir, name), "one\n")
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "one")
	for _, m := range []string{"user-clean", "user-clean-theirs"} {
		os.Remove(filepath.Join(markers, m))
	}

	git(t, dir, "config", "filter.mine.clean", trap(t, bin, markers, "repo-clean"))
	git(t, dir, "config", "filter.mine.required", "false")
	// A process the user has none of to restore: the user's clean for
	// "theirs" cannot run either, and is no longer required.
	git(t, dir, "config", "filter.theirs.process", trap(t, bin, markers, "repo-process"))
	git(t, dir, "config", "filter.own.required", "true")
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		write(t, filepath.Join(dir, name), "two\n")
		setMtime(t, filepath.Join(dir, name), time.Now().Add(-time.Hour))
	}
	out, err := Run(ctx, os.Getenv, dir, "status", "--porcelain=v2")
	if err != nil || strings.Count(out, ".txt") != 3 {
		t.Errorf("status: %q, %v", out, err)
	}
	ran, _ := os.ReadDir(markers)
	if len(ran) != 1 || ran[0].Name() != "user-clean" {
		t.Errorf("ran %v, want only the user's clean filter for a.txt", ran)
	}
}

// In a partial clone a missing object would be fetched from the promisor
// remote, through core.sshCommand; lore reads only what is local.
func TestRunNeverFetches(t *testing.T) {
	needShell(t)
	src, markers := t.TempDir(), t.TempDir()
	git(t, src, "init", "-q", "-b", "main")
	write(t, filepath.Join(src, "f.txt"), "needle\n")
	git(t, src, "add", "-A")
	git(t, src, "commit", "-qm", "one")
	git(t, src, "config", "uploadpack.allowFilter", "true")
	dir := filepath.Join(t.TempDir(), "clone")
	git(t, src, "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+src, dir)
	git(t, dir, "remote", "set-url", "origin", "ssh://example.invalid/x")
	git(t, dir, "config", "core.sshCommand", trap(t, t.TempDir(), markers, "ssh"))
	if _, err := Run(context.Background(), os.Getenv, dir, "log", "--all", "--format=%h", "-Sneedle"); err == nil {
		t.Errorf("log -S in a blobless clone succeeded without fetching")
	}
	noMarkers(t, markers, "log -S in a partial clone")
}

func TestRunRefusesUnvettedCommands(t *testing.T) {
	for _, args := range [][]string{{"show", "HEAD"}, {"-c", "core.pager=less", "log"}, {}} {
		if _, err := Run(context.Background(), os.Getenv, t.TempDir(), args...); err == nil {
			t.Errorf("git %q ran", args)
		}
	}
}

// go test -bench Lookup ./gitrepo: what reading the filter drivers adds to
// a command that reads the worktree, first and when reused.
func BenchmarkLookup(b *testing.B) {
	dir := b.TempDir()
	cmd := func(args ...string) {
		if _, err := runGit(context.Background(), append([]string{"-C", dir}, args...), args[0], ""); err != nil {
			b.Fatal(err)
		}
	}
	cmd("init", "-q")
	for _, name := range []string{"fresh", "reused"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if name == "fresh" {
					drivers.mu.Lock()
					delete(drivers.byDir, dir)
					drivers.mu.Unlock()
				}
				if _, err := drivers.overrides(context.Background(), os.Getenv, dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// gitLog puts a git on PATH that logs each run's arguments to the file it
// returns, then runs the real git.
func gitLog(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	write(t, filepath.Join(bin, "git"), fmt.Sprintf("#!/bin/sh\necho \"$*\" >> '%s'\nexec '%s' \"$@\"\n", log, real))
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// A repository whose config names no filter and includes nothing has no
// driver to switch off, so git status runs without a git config first; a
// config that gains an include is read with git config again, and a git
// dir that git would not take for a repository never skips the reading.
func TestRunReadsTheConfigOnlyWhenItCanNameADriver(t *testing.T) {
	needShell(t)
	ctx := context.Background()
	configRuns := func(log string) int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), " config --null --list")
	}

	dir, markers := t.TempDir(), t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=inc\n")
	write(t, filepath.Join(dir, "a.txt"), "one\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "one")
	log := gitLog(t)
	if _, err := Run(ctx, os.Getenv, dir, "status", "--porcelain=v2"); err != nil {
		t.Fatal(err)
	}
	if n := configRuns(log); n != 0 {
		t.Errorf("git config ran %d times for a config without filters", n)
	}

	bin := t.TempDir()
	write(t, filepath.Join(dir, ".git", "more.cfg"), fmt.Sprintf("[filter \"inc\"]\n\tclean = %s\n", trap(t, bin, markers, "included-clean")))
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "[Include]\n\tpath = more.cfg\n")
	f.Close()
	// Changed at its old size and time: git must hash it, through clean.
	write(t, filepath.Join(dir, "a.txt"), "two\n")
	setMtime(t, filepath.Join(dir, "a.txt"), time.Now().Add(-time.Hour))
	if _, err := Run(ctx, os.Getenv, dir, "status", "--porcelain=v2"); err != nil {
		t.Fatal(err)
	}
	if n := configRuns(log); n != 1 {
		t.Errorf("git config ran %d times after the config included a file, want 1", n)
	}
	noMarkers(t, markers, "status with an included filter")

	// sub/.git without HEAD is no repository to git, which uses dir's.
	sub := filepath.Join(dir, "sub")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(sub, ".git", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(sub, "b.txt"), "two\n")
	if _, err := Run(ctx, os.Getenv, sub, "status", "--porcelain=v2"); err != nil {
		t.Fatal(err)
	}
	noMarkers(t, markers, "status from a directory holding a .git git does not take")
}
