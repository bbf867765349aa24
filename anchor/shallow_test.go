package anchor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"lore/record"
)

// shallowClone is a clone, cut to its last commit, of a repository whose
// a.go was anchored, then moved to b.go and edited: the anchor and the
// clone's Repo.
func shallowClone(t *testing.T) (Repo, []record.Anchor) {
	t.Helper()
	g := gitRepo(t, map[string]string{"a.go": numbered("a", 30)})
	as := anchorTo(t, g, "a.go")
	as[0].Commit = run(t, g.Root, "rev-parse", "HEAD")
	run(t, g.Root, "mv", "a.go", "b.go")
	run(t, g.Root, "commit", "-qm", "move")
	write(t, g.Root, "b.go", numbered("a", 30)+"more\n")
	run(t, g.Root, "commit", "-qam", "edit")
	dir := filepath.Join(t.TempDir(), "shallow")
	run(t, g.Root, "clone", "-q", "--depth", "1", "file://"+g.Root, dir)
	if _, err := os.Stat(filepath.Join(dir, ".git", "shallow")); err != nil {
		t.Fatalf("the clone is not shallow: %v", err)
	}
	return Repo{Root: dir, Getenv: g.Getenv}, as
}

// In a shallow clone, a path whose move is in the history left out is
// unchecked, saying why, never cached as gone; cached as unknown while
// the cut stays (the prompt hook walks no history for it again), and
// followed once the history is fetched.
func TestShallowCloneCutBeforeTheMoveIsUnchecked(t *testing.T) {
	g, as := shallowClone(t)
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st := NewChecker(g, cacheFile).Check(ctx, as)[0]; st.Status != Unchecked || strings.Contains(st.Describe(), "shallow") {
		t.Errorf("past the deadline: %s, want unchecked for want of an answer", st.Describe())
	}
	logs := gitLogRuns(t)
	for i := range 2 { // fresh, then through the cache the first wrote
		k := NewChecker(g, cacheFile)
		st := k.Check(context.Background(), as)[0]
		if st.Status != Unchecked || !strings.Contains(st.Describe(), "shallow clone") {
			t.Errorf("check %d: %s (%s), want unchecked for the shallow clone", i, st.Describe(), st.Status)
		}
		if err := k.Save(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			logs = gitLogRuns(t) // counting from here
		}
	}
	if n := logs(); n != 0 {
		t.Errorf("the cached check walked history %d times", n)
	}
	run(t, g.Root, "fetch", "-q", "--unshallow")
	if d := describeSaved(t, g, cacheFile, as); !strings.HasPrefix(d, "a.go moved to b.go and changed") {
		t.Errorf("unshallowed: %s, want moved to b.go", d)
	}
}

// A cache an older lore wrote in a shallow clone says the path is gone
// (derived under a tree key without the shallow file's): it is derived
// again.
func TestShallowCloneDropsAnOlderCachesGone(t *testing.T) {
	g, as := shallowClone(t)
	k := NewChecker(g, "")
	tree := k.treeKey()
	old := strings.TrimSuffix(tree, shallowPart(tree))
	if old == tree {
		t.Fatalf("tree key %q names no shallow clone", tree)
	}
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	ns := strconv.FormatInt(time.Now().Add(-time.Hour).UnixNano(), 10)
	if err := os.WriteFile(cacheFile, []byte(cacheHeader+"\t"+ns+"\t"+old+"\nr\ta.go\t\"\"\nw\ta.go\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := NewChecker(g, cacheFile).Check(context.Background(), as)[0]; st.Status != Unchecked {
		t.Errorf("with an older cache: %s, want unchecked", st.Describe())
	}
}

// What the clone does hold still answers: the anchored content unchanged
// at another path, and a path anchored here (its commit in the clone)
// that no commit since held.
func TestShallowCloneStillFindsWhatItHolds(t *testing.T) {
	g := gitRepo(t, map[string]string{"c.go": numbered("c", 30)})
	as := anchorTo(t, g, "c.go")
	as[0].Commit = run(t, g.Root, "rev-parse", "HEAD")
	run(t, g.Root, "mv", "c.go", "d.go")
	run(t, g.Root, "commit", "-qm", "move")
	run(t, g.Root, "commit", "-q", "--allow-empty", "-m", "later")
	dir := filepath.Join(t.TempDir(), "shallow")
	run(t, g.Root, "clone", "-q", "--depth", "1", "file://"+g.Root, dir)
	s := Repo{Root: dir, Getenv: g.Getenv}
	if d := describeFresh(t, s, as); d != "c.go moved to d.go" {
		t.Errorf("moved unchanged before the cut: %s, want moved to d.go", d)
	}
	write(t, dir, "n.go", numbered("n", 5))
	n := anchorTo(t, s, "n.go")
	n[0].Commit = run(t, dir, "rev-parse", "HEAD")
	if err := os.Remove(filepath.Join(dir, "n.go")); err != nil {
		t.Fatal(err)
	}
	if d := describeFresh(t, s, n); d != "n.go gone" {
		t.Errorf("anchored in the clone, never committed: %s, want gone", d)
	}
}
