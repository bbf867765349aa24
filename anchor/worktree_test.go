package anchor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A directory on an anchored file's path replaced by a symbolic link (here
// the directory moved out of the repository and linked back, its files'
// stats and content as they were) is changed: git does not look through
// it, and lore reads nothing through it either, neither from the cache nor
// by hashing. A link deeper down is named as such; files beside it are
// checked as usual.
func TestParentBecameALink(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"src/app.go": lines(10), "src/sub/deep.go": lines(5), "lib/keep.go": lines(3), "lib/sub/x.go": lines(4), "srcx/b.go": lines(2)}
	g := gitRepo(t, files)
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "src/app.go", Start: 1, End: 5}, {Path: "src/sub/deep.go"}, {Path: "lib/keep.go"}, {Path: "lib/sub/x.go"}, {Path: "srcx/b.go"}})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for p := range files {
		if err := os.Chtimes(filepath.Join(g.Root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	k := NewChecker(g, cacheFile)
	for _, st := range k.Check(ctx, as) {
		if st.Status != Fresh {
			t.Fatalf("right after capture: %s", st.Describe())
		}
	}
	if err := k.Save(); err != nil {
		t.Fatal(err)
	}
	away := t.TempDir()
	moveAndLink := func(dir string) {
		t.Helper()
		to := filepath.Join(away, filepath.Base(dir))
		if err := os.Rename(filepath.Join(g.Root, dir), to); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, filepath.Join(g.Root, dir)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	moveAndLink("src")
	moveAndLink("lib/sub")
	want := []string{
		"src/app.go:1-5 changed since: it is now under the symbolic link src",
		"src/sub/deep.go changed since: it is now under the symbolic link src",
		"lib/keep.go unchanged",
		"lib/sub/x.go changed since: it is now under the symbolic link lib/sub",
		"srcx/b.go unchanged",
	}
	for _, cache := range []string{cacheFile, filepath.Join(t.TempDir(), "anchors")} { // warm, then cold
		k := NewChecker(g, cache)
		got := k.Check(ctx, as)
		for i, st := range got {
			if st.Describe() != want[i] {
				t.Errorf("%s cache, anchor %d: %q, want %q", cache, i, st.Describe(), want[i])
			}
			if !strings.Contains(want[i], "symbolic link") {
				continue
			}
			if st.Edited() || st.Lines.Known || st.When.IsZero() {
				t.Errorf("%s cache, anchor %d: nothing read through a link, dated by it: %+v", cache, i, st)
			}
			if _, hashed := k.c.added[fileKey(st.Path)]; hashed {
				t.Errorf("%s cache, anchor %d: hashed through the link", cache, i)
			}
		}
		if c := Clause(got[:2]); c != "app.go changed since: it is now under the symbolic link src; deep.go changed since: it is now under the symbolic link src" {
			t.Errorf("Clause = %q", c)
		}
	}
}

// A file that goes between its stat and its hash (git hash-object stops at
// it) is gone, alone; one replaced by a directory is unchecked: the files
// hashed with them keep their answers.
func TestVanishedFileLeavesTheBatch(t *testing.T) {
	ctx := context.Background()
	g := gitRepo(t, map[string]string{"a.go": lines(3), "b.go": lines(4), "c.go": lines(5), "d.go": lines(6)})
	k := NewChecker(g, filepath.Join(t.TempDir(), "anchors"))
	want, err := g.hashFiles(ctx, []string{"a.go", "c.go", "d.go"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(g.Root, "b.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(g.Root, "e.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := k.hashWorktree(ctx, []string{"b.go", "a.go", "c.go", "e.go", "d.go", "nodir/f.go", "a.go/g.go"})
	if w := []string{"", want[0], want[1], unknown, want[2], "", ""}; !slices.Equal(got, w) {
		t.Errorf("hashWorktree = %q, want %q", got, w)
	}
	// git giving no answer (here: past the deadline) blames no file.
	done, cancel := context.WithCancel(ctx)
	cancel()
	if got := k.hashWorktree(done, []string{"a.go", "c.go"}); !slices.Equal(got, []string{unknown, unknown}) {
		t.Errorf("git not answering: %q", got)
	}
}
