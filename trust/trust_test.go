package trust

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestTrustListByResolvedPath(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	getenv := func(k string) string { return env[k] }
	store := filepath.Join(t.TempDir(), "repo", ".lore")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Dir(store), link); err != nil {
		t.Fatal(err)
	}
	if Trusted(getenv, store) {
		t.Fatal("trusted before anything was added")
	}
	if _, added, err := Add(getenv, filepath.Join(link, ".lore")); !added || err != nil {
		t.Fatalf("Add through a link: %v %v", added, err)
	}
	if !Trusted(getenv, store) {
		t.Error("the store is not trusted under its real path")
	}
	if _, added, _ := Add(getenv, store); added {
		t.Error("the same store was added twice")
	}
	if list, _ := List(getenv); len(list) != 1 {
		t.Errorf("list %q, want one entry", list)
	}
	if _, err := os.Stat(filepath.Join(home, "cfg", "lore", FileName)); err != nil {
		t.Errorf("the list is not in $XDG_CONFIG_HOME/lore: %v", err)
	}
	if removed, err := Remove(getenv, store); len(removed) != 1 || err != nil || Trusted(getenv, store) {
		t.Errorf("Remove: %v %v, still trusted %v", removed, err, Trusted(getenv, store))
	}
	if _, err := Dir(func(string) string { return "" }); err == nil {
		t.Error("no HOME and no XDG_CONFIG_HOME gave a directory")
	}
}

// A path with a line break would list two stores, the second of the
// directory's choosing: it is refused, and never trusted.
func TestTrustRefusesALineBreak(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	getenv := func(k string) string { return env[k] }
	root := t.TempDir()
	victim := filepath.Join(root, "victim", ".lore")
	for _, bad := range []string{"evil\n" + filepath.Dir(victim), "evil\r"} {
		store := filepath.Join(root, bad, ".lore")
		if err := os.MkdirAll(store, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, add := range map[string]func(func(string) string, string) (string, bool, error){"Add": Add, "AddCreated": AddCreated} {
			if _, added, err := add(getenv, store); added || !errors.Is(err, ErrLineBreak) {
				t.Errorf("%s(%q) = %v, %v; want ErrLineBreak", name, store, added, err)
			}
		}
		if list, _ := List(getenv); len(list) != 0 || Trusted(getenv, victim) || Trusted(getenv, store) {
			t.Errorf("after trusting %q: list %q", store, list)
		}
	}
}

// In a linked worktree, trust is the repository's: lore trust lists the
// main worktree's store, --revoke removes it, and lore init lists it only
// while the main worktree has no store of its own (one there may have come
// with the clone).
func TestTrustInALinkedWorktree(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	getenv := func(k string) string { return env[k] }
	root := t.TempDir()
	main, wt := filepath.Join(root, "main"), filepath.Join(root, "wt")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = main
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "init")
	git("worktree", "add", "-q", wt, "-b", "wt")
	wtStore, mainStore := filepath.Join(wt, ".lore"), filepath.Join(main, ".lore")
	os.MkdirAll(wtStore, 0o755)

	// init while main has no store: the main worktree's entry.
	if listed, added, err := AddCreated(getenv, wtStore); err != nil || !added || listed != key(mainStore) {
		t.Fatalf("AddCreated in the worktree listed %q (%v, %v), want the main worktree's %q", listed, added, err, key(mainStore))
	}
	if !Trusted(getenv, wtStore) || !Trusted(getenv, mainStore) {
		t.Error("the worktree or the main worktree is not trusted after init in the worktree")
	}
	if listed, added, _ := Add(getenv, wtStore); added || listed != key(mainStore) {
		t.Errorf("lore trust in the worktree: %q added %v, want already trusted through %q", listed, added, key(mainStore))
	}
	if removed, err := Remove(getenv, wtStore); err != nil || len(removed) != 1 || removed[0] != key(mainStore) || Trusted(getenv, wtStore) {
		t.Errorf("revoke in the worktree removed %q (%v); still trusted %v", removed, err, Trusted(getenv, wtStore))
	}

	// init while main has a store (it may be a clone's): this worktree only.
	os.MkdirAll(mainStore, 0o755)
	if listed, added, err := AddCreated(getenv, wtStore); err != nil || !added || listed != key(wtStore) {
		t.Fatalf("AddCreated with a store in main listed %q (%v, %v), want the worktree's own %q", listed, added, err, key(wtStore))
	}
	if Trusted(getenv, mainStore) {
		t.Error("init in a worktree trusted the main worktree's existing store")
	}
	if removed, _ := Remove(getenv, wtStore); len(removed) != 1 || removed[0] != key(wtStore) {
		t.Errorf("revoke removed %q, want the worktree's own entry", removed)
	}
}
