package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// cleanRepo is a committed repository with code, a store under .lore and
// a .gitignore, its files' mtimes well before the index's (so none is
// racily clean).
func cleanRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	git(t, root, "init", "-q", "-b", "main")
	for _, f := range []string{"main.go", "cmd/tool/tool.go", "docs/guide.md", "run.sh", ".lore/decisions/2026-11/main.jsonl", ".gitignore"} {
		write(t, filepath.Join(root, f), "x\n")
	}
	write(t, filepath.Join(root, ".gitignore"), "*.log\n/build/\n")
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !strings.Contains(p, "/.git") {
			err = os.Chtimes(p, past, past)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-qm", "one")
	return root
}

// checkClean runs cleanStatus and git status on the worktree under dir,
// the store left out, and fails if cleanStatus claims a clean tree git
// does not see, or, when want is true, if it cannot tell a clean one.
func checkClean(t *testing.T, root, dir string, want bool, env ...string) {
	t.Helper()
	for _, kv := range env { // git, run by lore, inherits lore's environment
		name, v, _ := strings.Cut(kv, "=")
		t.Setenv(name, v)
	}
	getenv := os.Getenv
	store := filepath.Join(root, ".lore")
	st, ok := cleanStatus(getenv, dir, store)
	rel, _ := filepath.Rel(dir, store)
	out, err := Run(context.Background(), getenv, dir, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames", "--", ".", ":(exclude)"+rel)
	if err != nil {
		t.Fatal(err)
	}
	gitSt := parseStatus(out)
	if ok && (len(gitSt.Changes) > 0 || st.Branch != gitSt.Branch || st.Head != gitSt.Head || len(st.Changes) > 0) {
		t.Fatalf("cleanStatus says %+v; git says %+v", st, gitSt)
	}
	if ok != want {
		t.Fatalf("cleanStatus ok = %v, want %v (git's changes: %q)", ok, want, gitSt.Changes)
	}
}

func TestCleanStatusAgreesWithGit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("cleanStatus reads ctime on Linux only")
	}
	type change struct {
		name  string
		do    func(t *testing.T, root string)
		clean bool // whether cleanStatus can tell the tree is clean (git must agree)
	}
	file := func(p, text string) func(*testing.T, string) {
		return func(t *testing.T, root string) { write(t, filepath.Join(root, p), text) }
	}
	run := func(args ...string) func(*testing.T, string) {
		return func(t *testing.T, root string) { git(t, root, args...) }
	}
	for _, c := range []change{
		{"committed", func(*testing.T, string) {}, true},
		{"packed", run("gc", "-q"), true},
		{"detached", run("checkout", "-q", "--detach"), true},
		{"store changed", file(".lore/decisions/2026-11/other.jsonl", "{}\n"), true},
		{"ignored file", file("cmd/tool/debug.log", "x\n"), true},
		{"ignored directory", file("build/out/a.bin", "x\n"), true},
		{"ignored by info/exclude", func(t *testing.T, root string) {
			write(t, filepath.Join(root, ".git/info/exclude"), "scratch/\n")
			write(t, filepath.Join(root, "scratch/notes.txt"), "x\n")
		}, true},
		{"untracked dotfile", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "docs/.gitignore.tmp"), "x\n")
		}, false},
		{"modified", file("main.go", "y\n"), false},
		{"modified, same size and mtime", func(t *testing.T, root string) {
			p := filepath.Join(root, "main.go")
			fi, _ := os.Stat(p)
			write(t, p, "y\n")
			_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, false}, // git may see nothing (it compares whole seconds), but the ctime moved: lore asks git
		{"untracked", file("cmd/new.go", "x\n"), false},
		{"untracked at the top", file("notes.txt", "x\n"), false},
		{"deleted", func(t *testing.T, root string) { _ = os.Remove(filepath.Join(root, "docs/guide.md")) }, false},
		{"made executable", func(t *testing.T, root string) { _ = os.Chmod(filepath.Join(root, "main.go"), 0o755) }, false},
		{"staged", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "new.go"), "x\n")
			git(t, root, "add", "new.go")
		}, false},
		{"staged deletion", run("rm", "-q", "--cached", "docs/guide.md"), false},
		{"HEAD moved, index kept", run("commit", "-q", "--allow-empty", "-m", "two"), true},
		{"reset --soft", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "two.go"), "x\n")
			git(t, root, "add", "two.go")
			git(t, root, "commit", "-qm", "two")
			git(t, root, "reset", "-q", "--soft", "HEAD~1")
		}, false},
		{"directory replaced by a link", func(t *testing.T, root string) {
			_ = os.Rename(filepath.Join(root, "cmd"), filepath.Join(root, "cmd2"))
			_ = os.Symlink("cmd2", filepath.Join(root, "cmd"))
			write(t, filepath.Join(root, ".git/info/exclude"), "cmd2/\n")
		}, false},
		{"negated pattern", func(t *testing.T, root string) {
			write(t, filepath.Join(root, ".git/info/exclude"), "*.tmp\n!keep.tmp\n")
			write(t, filepath.Join(root, "a.tmp"), "x\n")
		}, false}, // git ignores a.tmp; cleanStatus does not read negations, so asks git
	} {
		t.Run(c.name, func(t *testing.T) {
			root := cleanRepo(t)
			c.do(t, root)
			checkClean(t, root, root, c.clean)
		})
	}
}

// A nested .gitignore applies below its directory only, and the user's
// excludes file is found from XDG_CONFIG_HOME.
func TestCleanStatusReadsEveryIgnoreFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("cleanStatus reads ctime on Linux only")
	}
	root := cleanRepo(t)
	write(t, filepath.Join(root, "docs/.gitignore"), "*.html\n")
	past := time.Now().Add(-time.Hour)
	_ = os.Chtimes(filepath.Join(root, "docs/.gitignore"), past, past)
	git(t, root, "add", "docs/.gitignore")
	git(t, root, "commit", "-qm", "docs ignore")
	write(t, filepath.Join(root, "docs/out/index.html"), "x\n")
	checkClean(t, root, root, true)
	write(t, filepath.Join(root, "index.html"), "x\n") // not below docs/
	checkClean(t, root, root, false)

	xdg := t.TempDir()
	write(t, filepath.Join(xdg, "git", "ignore"), "*.html\n")
	checkClean(t, root, root, true, "XDG_CONFIG_HOME="+xdg)
	// Configuration from the environment, which cleanStatus leaves to git.
	checkClean(t, root, root, false, "XDG_CONFIG_HOME="+xdg, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.excludesFile", "GIT_CONFIG_VALUE_0=/nonexistent")
}

// Asked about a subdirectory, only what is under it counts.
func TestCleanStatusUnderASubdirectory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("cleanStatus reads ctime on Linux only")
	}
	root := cleanRepo(t)
	write(t, filepath.Join(root, "notes.txt"), "x\n")
	checkClean(t, root, filepath.Join(root, "docs"), true)
	checkClean(t, root, root, false)
}
