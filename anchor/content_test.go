package anchor

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Capture writes the anchored content to git's object database, so that
// a file anchored before it was committed has its change counted and its
// range followed.
func TestCaptureKeepsTheContent(t *testing.T) {
	ctx := context.Background()
	g := gitRepo(t, map[string]string{"a.go": "a\n"})
	write(t, g.Root, "new.go", lines(10))
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "new.go", Start: 3, End: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if out := run(t, g.Root, "cat-file", "-t", as[0].Blob); out != "blob" {
		t.Fatalf("the anchored content is not in git: %q", out)
	}
	write(t, g.Root, "new.go", "above\n"+lines(10))
	st := NewChecker(g, filepath.Join(t.TempDir(), "anchors")).Check(ctx, as)[0]
	if want := (Lines{Known: true, Elsewhere: 1, NowStart: 4, NowEnd: 5}); st.Status != Changed || st.Lines != want || !st.Edited() {
		t.Errorf("%s: %+v, want %+v", st.Describe(), st.Lines, want)
	}
}

// A file anchored before its first commit, then committed, renamed and
// edited, is found by rename detection from the last commit that held it: the
// anchor's own commit never did.
func TestFollowsAFileCommittedAfterItsAnchor(t *testing.T) {
	ctx := context.Background()
	g := gitRepo(t, map[string]string{"a.go": "a\n"})
	write(t, g.Root, "new.go", lines(20))
	write(t, g.Root, "gone.go", lines(12))
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "new.go", Start: 5, End: 6}, {Path: "gone.go"}})
	if err != nil {
		t.Fatal(err)
	}
	run(t, g.Root, "add", "-A")
	run(t, g.Root, "commit", "-qm", "add")
	run(t, g.Root, "mv", "new.go", "renamed.go")
	run(t, g.Root, "rm", "-q", "gone.go")
	l := strings.Split(lines(20), "\n")
	l[4] = "five"
	write(t, g.Root, "renamed.go", strings.Join(l, "\n"))
	run(t, g.Root, "commit", "-qam", "mv")
	got := NewChecker(g, filepath.Join(t.TempDir(), "anchors")).Check(ctx, as)
	if d := got[0].Describe(); d != "new.go:5-6 moved to renamed.go and changed, 1 line in 5-6, 1 in all" {
		t.Errorf("renamed: %s", d)
	}
	if d := got[1].Describe(); d != "gone.go gone" {
		t.Errorf("deleted: %s", d)
	}
}

// A file checked out with CRLF line ends is compared as git stores it
// (LF): one line changed is one line.
func TestCountsAsGitStores(t *testing.T) {
	ctx := context.Background()
	g := gitRepo(t, map[string]string{".gitattributes": "*.txt text eol=crlf\n", "f.txt": lines(10)})
	crlf := strings.ReplaceAll(lines(10), "\n", "\r\n")
	write(t, g.Root, "f.txt", crlf)
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "f.txt", Start: 3, End: 5}})
	if err != nil {
		t.Fatal(err)
	}
	k := NewChecker(g, filepath.Join(t.TempDir(), "anchors"))
	if st := k.Check(ctx, as)[0]; st.Stale() {
		t.Fatalf("CRLF checkout: %s", st.Describe())
	}
	l := strings.Split(crlf, "\r\n")
	l[3] = "four"
	write(t, g.Root, "f.txt", strings.Join(l, "\r\n"))
	if d := k.Check(ctx, as)[0].Describe(); d != "f.txt:3-5 changed since, 1 line in 3-5, 1 in all" {
		t.Errorf("one CRLF line changed: %s", d)
	}
}

// objectID is git's blob ID, SHA-1 or SHA-256 as the repository uses.
func TestObjectID(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		dir := t.TempDir()
		run(t, dir, "init", "-q", "--object-format="+format)
		for _, data := range []string{"", "a\n", "a\r\nb\x00c"} {
			cmd := exec.Command("git", "hash-object", "--stdin")
			cmd.Dir, cmd.Stdin = dir, strings.NewReader(data)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(string(out))
			if got := objectID(data, want); got != want {
				t.Errorf("%s of %q: %s, want %s", format, data, got, want)
			}
		}
	}
}

// A function added after another is one block below the first one's
// closing brace, as git reads it: where the new function ends as the old
// one does, the line diff put the block inside the old function, and a
// range over it counted the new one as changed in it (moby: "19 lines in
// 83-105" for a range git leaves as it was).
func TestCompareSlidesAnAddedBlockDown(t *testing.T) {
	first := "\tif out != nil {\n\t\treturn out\n\t}\n\n\treturn items\n}\n\n"
	added := "// dropFlags removes the flags.\nfunc dropFlags(items []Item) []Item {\n\tvar out []Item\n" +
		"\tfor i := range items {\n\t\tout = clone(items)\n\t}\n" +
		"\tif out != nil {\n\t\treturn out\n\t}\n\treturn items\n}\n\n"
	last := "// clone copies the slice.\nfunc clone(in []Item) []Item {\n"
	top := "// a line added above\n" // with a change above, the line diff slid the block up
	hs, _ := compare(first+last, top+first+added+last)
	enc := encodeHunks(hs, true)
	if enc != "1,0,1;8,0,12" { // git diff: @@ -0,0 +1 @@ and @@ -7,0 +9,12 @@
		t.Errorf("hunks %s, want 1,0,1;8,0,12 (twelve lines added after line 7)", enc)
	}
	if l := linesOf(enc, 1, 6); l.InRange != 0 {
		t.Errorf("the first function counts %d lines changed", l.InRange)
	}
	// The same for lines removed: the block below the kept function.
	hs, _ = compare(top+first+added+last, first+last)
	if enc := encodeHunks(hs, true); enc != "1,1,0;9,12,0" {
		t.Errorf("hunks %s, want 1,1,0;9,12,0", enc)
	}
}
