//go:build unix

package anchor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A git too slow to answer is a timeout, not a repository without
// commits.
func TestResolveWithASlowGit(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": "package a\n"})
	bin := t.TempDir()
	write(t, bin, "git", "#!/bin/sh\nsleep 5\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := g.Resolve(ctx, g.Root, []Spec{{Path: "a.go"}}); err == nil || err.Error() != "git rev-parse: timed out" {
		t.Errorf("Resolve with a slow git = %v, want a timeout", err)
	}
}

// A repository git refuses, owned by another user, is git's refusal, with
// git's advice.
func TestResolveInARepositoryAnotherUserOwns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give the repository to another user")
	}
	g := gitRepo(t, map[string]string{"a.go": "package a\n"})
	if out, err := exec.Command("chown", "-R", "65534", g.Root).CombinedOutput(); err != nil {
		t.Skipf("chown: %v %s", err, out)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	_, err := g.Resolve(context.Background(), g.Root, []Spec{{Path: "a.go"}})
	if err == nil || errors.Is(err, ErrNoCommits) || !strings.HasPrefix(err.Error(), "git: detected dubious ownership in repository at ") ||
		!strings.Contains(err.Error(), "git config --global --add safe.directory ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Resolve in a repository another user owns = %v", err)
	}
}
