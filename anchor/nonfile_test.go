package anchor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An anchored file replaced by a symbolic link is changed, whatever the
// link leads to: git tracks the link, not its target, and hash-object would
// read through it (to another file's lines, to a copy of the anchored
// content, to /dev/zero until the timeout).
func TestFileBecameALink(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"same.go": lines(10), "other.go": lines(20), "dir.go": lines(5), "copy.txt": lines(10), "b.txt": "b\n"}
	g := gitRepo(t, files)
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "same.go", Start: 1, End: 5}, {Path: "other.go"}, {Path: "dir.go"}})
	if err != nil {
		t.Fatal(err)
	}
	mkdir := filepath.Join(g.Root, "d")
	if err := os.Mkdir(mkdir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := func(path, target string) {
		t.Helper()
		full := filepath.Join(g.Root, path)
		if err := os.Remove(full); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	link("same.go", "copy.txt") // the anchored content, through the link
	link("other.go", "b.txt")   // another file's
	link("dir.go", "d")         // a directory
	run(t, g.Root, "add", "-A")
	run(t, g.Root, "commit", "-qm", "links")
	k := NewChecker(g, filepath.Join(t.TempDir(), "anchors"))
	got := k.Check(ctx, as)
	want := []string{
		"same.go:1-5 changed since: it is now a symbolic link",
		"other.go changed since: it is now a symbolic link",
		"dir.go changed since: it is now a symbolic link",
	}
	for i, st := range got {
		if st.Status != Changed || st.Describe() != want[i] {
			t.Errorf("anchor %d: %s %q, want changed %q", i, st.Status, st.Describe(), want[i])
		}
		if st.Edited() || st.Lines.Known {
			t.Errorf("anchor %d: a link has no content to count lines of: %+v", i, st)
		}
		if st.When.IsZero() {
			t.Errorf("anchor %d: no date for the link", i)
		}
	}
	if c := Clause(got); c != "same.go changed since: it is now a symbolic link; other.go changed since: it is now a symbolic link; 1 more file changed" {
		t.Errorf("Clause = %q", c)
	}
	// Nothing about a link is cached: a file back at the path is hashed.
	if err := k.Save(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(g.Root, "same.go")); err != nil {
		t.Fatal(err)
	}
	write(t, g.Root, "same.go", lines(10))
	if st := NewChecker(g, k.cacheFile).Check(ctx, as[:1]); st[0].Status != Fresh {
		t.Errorf("the file back: %s", st[0].Describe())
	}
}

// A file git could not hash (here: the caller's deadline has passed) is
// not known to be unchanged: it is Unchecked, and says so. What rename
// detection could not answer then is not cached as gone for good.
func TestUnknownIsNotFresh(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": lines(10), "b.go": lines(12)})
	as, err := g.Resolve(context.Background(), g.Root, []Spec{{Path: "a.go", Start: 2, End: 4}, {Path: "b.go"}})
	if err != nil {
		t.Fatal(err)
	}
	run(t, g.Root, "mv", "b.go", "c.go")
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	k := NewChecker(g, cacheFile)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	got := k.Check(done, as)
	if st := got[0]; st.Status != Unchecked || !st.Stale() || !st.Edited() || st.Describe() != "a.go:2-4 not checked: git gave no answer for it" {
		t.Errorf("a.go, git not answering: %s %q (stale %v, edited %v)", st.Status, st.Describe(), st.Stale(), st.Edited())
	}
	if c := Clause(got[:1]); !strings.Contains(c, "a.go not checked") {
		t.Errorf("Clause = %q", c)
	}
	if err := k.Save(); err != nil {
		t.Fatal(err)
	}
	got = NewChecker(g, cacheFile).Check(context.Background(), as)
	if got[0].Status != Fresh {
		t.Errorf("a.go, git answering: %s", got[0].Describe())
	}
	if got[1].Describe() != "b.go moved to c.go" {
		t.Errorf("b.go, after a check git did not answer: %q, want moved to c.go", got[1].Describe())
	}
}
