package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// gitDirLayout makes a work tree m with a .lore store and a .git
// directory as git lays it out, and a bare repository bare.git beside it.
func gitDirLayout(t *testing.T) (root string) {
	t.Helper()
	root = t.TempDir()
	for _, d := range []string{"m/.lore", "m/sub", "m/.git/objects/pack", "m/.git/refs/heads", "m/.git/modules/lib/objects", "m/.git/modules/lib/refs",
		"bare.git/objects", "bare.git/refs/heads"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"m/.git/HEAD", "m/.git/modules/lib/HEAD", "bare.git/HEAD"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func noEnv(string) string { return "" }

// In a git directory, or below one, the store is not found, as git finds
// no work tree there; the error says which git directory, and the work
// tree a .git directory belongs to. lore init asks InGitDir, which says
// the same whether or not a store is above it.
func TestFindStoreInAGitDirectory(t *testing.T) {
	root := gitDirLayout(t)
	m := filepath.Join(root, "m")
	for _, c := range []struct {
		start, gitDir, workTree string
	}{
		{"m/.git", "m/.git", "m"},
		{"m/.git/refs/heads", "m/.git", "m"},
		{"m/.git/objects/pack", "m/.git", "m"},
		{"m/.git/modules/lib", "m/.git/modules/lib", ""},
		{"bare.git", "bare.git", ""},
		{"bare.git/refs/heads", "bare.git", ""},
	} {
		start := filepath.Join(root, c.start)
		want := GitDirError{GitDir: filepath.Join(root, c.gitDir)}
		if c.workTree != "" {
			want.WorkTree = filepath.Join(root, c.workTree)
		}
		dir, err := FindStore(start, noEnv)
		var gd *GitDirError
		if !errors.As(err, &gd) || *gd != want || !errors.Is(err, ErrNoStore) {
			t.Errorf("FindStore(%s) = %q, %v; want a *GitDirError %+v that is an ErrNoStore", c.start, dir, err, want)
		}
		if got := InGitDir(start, noEnv); got == nil || *got != want {
			t.Errorf("InGitDir(%s) = %+v, want %+v", c.start, got, want)
		}
	}
	// the work tree and its subdirectories find the store, and are in no
	// git directory
	for _, start := range []string{m, filepath.Join(m, "sub")} {
		if dir, err := FindStore(start, noEnv); err != nil || dir != filepath.Join(m, DirName) {
			t.Errorf("FindStore(%s) = %q, %v; want %s", start, dir, err, filepath.Join(m, DirName))
		}
		if gd := InGitDir(start, noEnv); gd != nil {
			t.Errorf("InGitDir(%s) = %+v, want nil", start, gd)
		}
	}
	// a git directory at or past GIT_CEILING_DIRECTORIES is not looked at
	ceiling := func(k string) string {
		if k == "GIT_CEILING_DIRECTORIES" {
			return filepath.Join(root, "bare.git")
		}
		return ""
	}
	start := filepath.Join(root, "bare.git", "refs", "heads")
	if dir, err := FindStore(start, ceiling); err != ErrNoStore {
		t.Errorf("FindStore(bare.git/refs/heads) under a ceiling at bare.git = %q, %v; want ErrNoStore itself", dir, err)
	}
	if gd := InGitDir(start, ceiling); gd != nil {
		t.Errorf("InGitDir(bare.git/refs/heads) under a ceiling at bare.git = %+v, want nil", gd)
	}
}

func TestGitDirErrorSaysWhereToRunLore(t *testing.T) {
	err := error(&GitDirError{GitDir: "/r/m/.git", WorkTree: "/r/m"})
	if got, want := err.Error(), "no .lore store found: /r/m/.git is a git directory, not a work tree: run lore in its work tree, /r/m"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	err = &GitDirError{GitDir: "/r/bare.git"}
	if got, want := err.Error(), "no .lore store found: /r/bare.git is a git directory, not a work tree"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
