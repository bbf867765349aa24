package status

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"lore/index"
	"lore/record"
	"lore/store"
)

// statusOf is Of for s, with an index of its own.
func statusOf(t *testing.T, s *store.Store) (*Status, error) {
	t.Helper()
	return Of(context.Background(), s, func() (*index.Snapshot, error) {
		return index.Open(context.Background(), s, index.SnapshotOptions{Tokenizer: index.Tokenizer{Version: "test", Terms: func(*record.Record) ([]string, []string) { return nil, nil }}})
	})
}

// committedStore is a repository with a store and a record committed.
func committedStore(t *testing.T) (root string, s *store.Store) {
	t.Helper()
	root = t.TempDir()
	git(t, root, "init", "-q", "-b", "main")
	storeDir := filepath.Join(root, ".lore")
	if _, err := store.Init(storeDir); err != nil {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(storeDir, record.Decision.Dir(), "2026-11", "main-a.jsonl"), line("dec-aaaaaaaa", "committed"))
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "store")
	s, err := store.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	return root, s
}

// In a repository git refuses, owned by another user, status says so,
// with git's advice, rather than what git diff outside a repository says
// of its arguments ("unknown option `cached'").
func TestStatusInARepositoryAnotherUserOwns(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root, to give the repository to another user")
	}
	root, s := committedStore(t)
	appendTo(t, filepath.Join(s.Dir, record.Decision.Dir(), "2026-11", "main-a.jsonl"), line("dec-bbbbbbbb", "new"))
	if out, err := exec.Command("chown", "-R", "65534", root).CombinedOutput(); err != nil {
		t.Skipf("chown: %v %s", err, out)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	_, err := statusOf(t, s)
	if err == nil || !strings.HasPrefix(err.Error(), "git: detected dubious ownership in repository at ") ||
		!strings.Contains(err.Error(), "; if you trust it, run: git config --global --add safe.directory ") {
		t.Errorf("Of = %v, want git's refusal and its advice", err)
	}
}

// A store whose .git git does not take for a repository (lore finds it,
// git looks past it): status says git sees none.
func TestStatusWhereGitSeesNoRepository(t *testing.T) {
	_, s := committedStore(t)
	root := filepath.Dir(s.Dir)
	if err := os.Remove(filepath.Join(root, ".git", "HEAD")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(root))
	_, err := statusOf(t, s)
	if err == nil || !strings.HasPrefix(err.Error(), "git: ") || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("Of = %v, want git's not a git repository", err)
	}
}
