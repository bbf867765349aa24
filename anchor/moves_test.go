package anchor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lore/record"
)

// numbered is n lines that differ from every other call's with another
// tag: files that rename detection never pairs.
func numbered(tag string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", tag, i)
	}
	return b.String()
}

// anchorTo anchors path as it is now.
func anchorTo(t *testing.T, g Repo, path string) []record.Anchor {
	t.Helper()
	as, err := g.Resolve(context.Background(), g.Root, []Spec{{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// describeFresh is how the first of as reads, checked with an empty cache.
func describeFresh(t *testing.T, g Repo, as []record.Anchor) string {
	t.Helper()
	return describeSaved(t, g, filepath.Join(t.TempDir(), "anchors"), as)
}

// describeSaved is how the first of as reads, checked through cacheFile,
// which the check then writes.
func describeSaved(t *testing.T, g Repo, cacheFile string, as []record.Anchor) string {
	t.Helper()
	k := NewChecker(g, cacheFile)
	d := k.Check(context.Background(), as)[0].Describe()
	if err := k.Save(); err != nil {
		t.Fatal(err)
	}
	return d
}

// wantEither checks the first of as, in a fresh cache, within git's
// rename limit (the hooks) and past it (the commands that show moves).
func wantEither(t *testing.T, g Repo, as []record.Anchor, want string) {
	t.Helper()
	for _, all := range []bool{false, true} {
		k := NewChecker(g, filepath.Join(t.TempDir(), "anchors"))
		k.AllRenames = all
		if d := k.Check(context.Background(), as)[0].Describe(); d != want {
			t.Errorf("AllRenames %v: %s, want %s", all, d, want)
		}
	}
}

// A file deleted in one commit is gone, though a file added by a later
// commit looks like it: rename detection pairs files within the commit
// that removed one, not across the months since the anchor was made
// (hugo: webp.go "moved to" compare_test.go at 52% alike).
func TestMovedLooksWithinTheCommitThatRemovedIt(t *testing.T) {
	g := gitRepo(t, map[string]string{"old.go": lines(20) + numbered("old", 10), "keep.go": numbered("keep", 10)})
	as := anchorTo(t, g, "old.go")
	run(t, g.Root, "rm", "-q", "old.go")
	run(t, g.Root, "commit", "-qm", "remove old.go")
	write(t, g.Root, "new.go", lines(20)+numbered("new", 10)) // two thirds alike
	run(t, g.Root, "add", "new.go")
	run(t, g.Root, "commit", "-qm", "add new.go")
	// git pairs them across the range, as lore did.
	if out := run(t, g.Root, "diff", "--find-renames", "--name-status", "HEAD~2"); !strings.HasPrefix(out, "R") {
		t.Fatalf("the fixture does not pair the files across the range:\n%s", out)
	}
	wantEither(t, g, as, "old.go gone")
}

// A file renamed more than once, commits apart, is followed to where it
// is now, and a rename that git's limit hides in the range from the
// anchor's commit is found in the commit that made it, within the limit.
func TestMovedFollowsEachRename(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": numbered("a", 30)})
	as := anchorTo(t, g, "a.go")
	run(t, g.Root, "config", "diff.renameLimit", "1")
	run(t, g.Root, "mv", "a.go", "b.go")
	write(t, g.Root, "b.go", numbered("a", 30)+"one more\n")
	run(t, g.Root, "commit", "-qam", "a.go to b.go, edited")
	for i := range 3 {
		write(t, g.Root, fmt.Sprintf("other%d.go", i), numbered(fmt.Sprint("other", i), 5))
	}
	run(t, g.Root, "add", ".")
	run(t, g.Root, "commit", "-qm", "others")
	run(t, g.Root, "mv", "b.go", "pkg.go")
	run(t, g.Root, "commit", "-qm", "b.go to pkg.go")
	// The range from the anchor's commit adds four files: past the limit.
	if out := run(t, g.Root, "diff", "--find-renames", "--name-status", "HEAD~3"); !strings.Contains(out, "D\ta.go") {
		t.Fatalf("the fixture's range is within the rename limit:\n%s", out)
	}
	want := "a.go moved to pkg.go and changed, 1 line"
	wantEither(t, g, as, want)
	// Moved on again, uncommitted: the working tree's path.
	run(t, g.Root, "mv", "pkg.go", "final.go")
	want = "a.go moved to final.go and changed, 1 line"
	if d := describeFresh(t, g, as); d != want {
		t.Errorf("after an uncommitted move: %s, want %s", d, want)
	}
	// Deleted in the end: gone.
	run(t, g.Root, "rm", "-qf", "final.go")
	if d := describeFresh(t, g, as); d != "a.go gone" {
		t.Errorf("after its removal: %s, want gone", d)
	}
}

// A file deleted by one commit and its content added at another path by
// another is where the content is: rename detection, commit by commit,
// never pairs them.
func TestMovedFindsTheContentCommittedApart(t *testing.T) {
	g := gitRepo(t, map[string]string{"src/a.go": numbered("alpha", 80)})
	as := anchorTo(t, g, "src/a.go")
	write(t, g.Root, "lib/a2.go", numbered("alpha", 80))
	run(t, g.Root, "add", ".")
	run(t, g.Root, "commit", "-qm", "copy")
	run(t, g.Root, "rm", "-q", "src/a.go")
	run(t, g.Root, "commit", "-qm", "delete")
	if d := describeFresh(t, g, as); d != "src/a.go moved to lib/a2.go" {
		t.Errorf("%s, want moved to lib/a2.go", d)
	}
}

// What git does not answer within the deadline leaves a gone file
// unchecked, not gone: the hook ranks a gone record down.
func TestMovedPastTheDeadlineIsUnchecked(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": numbered("a", 30)})
	as := anchorTo(t, g, "a.go")
	run(t, g.Root, "rm", "-q", "a.go")
	run(t, g.Root, "commit", "-qm", "delete")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	k := NewChecker(g, filepath.Join(t.TempDir(), "anchors"))
	if st := k.Check(ctx, as)[0]; st.Status != Unchecked {
		t.Errorf("past the deadline: %s, want unchecked", st.Describe())
	}
	if st := k.Check(context.Background(), as)[0]; st.Status != Gone {
		t.Errorf("in time: %s, want gone (nothing was cached past the deadline)", st.Describe())
	}
}

// A commit keeps what was found for the gone paths it does not touch:
// following them again walks history per hop (half a second per prompt in
// a long one, after every commit); one it touches is followed again.
func TestMovesOutliveACommitThatDoesNotTouchThem(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": numbered("a", 30), "other.go": numbered("o", 5)})
	as := anchorTo(t, g, "a.go")
	run(t, g.Root, "mv", "a.go", "b.go")
	run(t, g.Root, "commit", "-qm", "a.go to b.go")
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	check := func() string { return describeSaved(t, g, cacheFile, as) }
	if d := check(); d != "a.go moved to b.go" {
		t.Fatalf("%s", d)
	}
	logs := gitLogRuns(t)
	write(t, g.Root, "other.go", numbered("o", 6))
	run(t, g.Root, "commit", "-qam", "unrelated")
	if d := check(); d != "a.go moved to b.go" || logs() != 0 {
		t.Errorf("after an unrelated commit: %s, %d history walks (want none)", d, logs())
	}
	run(t, g.Root, "rm", "-q", "b.go")
	run(t, g.Root, "commit", "-qm", "b.go removed")
	if d := check(); d != "a.go gone" {
		t.Errorf("after a commit removed where it went: %s, want gone", d)
	}
}

// gitLogRuns puts a git on PATH that counts its log runs, and returns how
// many it has counted since.
func gitLogRuns(t *testing.T) func() int {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = log ] && echo >> " + count + " && break; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "\n")
	}
}

// A branch that merged upstream, where the file moved twice: from HEAD
// alone, git's history simplification followed the merge's first parent,
// which never held the middle path, and the file read "gone" (moby: a
// pull on a team's branch).
func TestMovedThroughAMergeOfUpstream(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": numbered("a", 30), "x.go": numbered("x", 5)})
	run(t, g.Root, "branch", "-M", "main")
	run(t, g.Root, "checkout", "-qb", "team")
	as := anchorTo(t, g, "a.go")
	write(t, g.Root, "x.go", numbered("x", 6))
	run(t, g.Root, "commit", "-qam", "team's work")
	run(t, g.Root, "checkout", "-q", "main")
	write(t, g.Root, "mid/keep.go", numbered("keep", 3))
	run(t, g.Root, "add", ".")
	run(t, g.Root, "mv", "a.go", "mid/a.go")
	run(t, g.Root, "commit", "-qm", "a.go to mid/")
	write(t, g.Root, "final/keep.go", numbered("final", 3))
	run(t, g.Root, "add", ".")
	run(t, g.Root, "mv", "mid/a.go", "final/a.go")
	run(t, g.Root, "commit", "-qm", "mid/a.go to final/")
	run(t, g.Root, "checkout", "-q", "team")
	run(t, g.Root, "merge", "-q", "--no-edit", "main")
	wantEither(t, g, as, "a.go moved to final/a.go")
}

// A file moved, then deleted, is dated by its deletion, not by the move.
func TestMovedThenDeletedIsDatedByTheDeletion(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": numbered("a", 30)})
	as := anchorTo(t, g, "a.go")
	commitAt := func(when, msg string) {
		cmd := exec.Command("git", "commit", "-qm", msg)
		cmd.Dir = g.Root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x",
			"GIT_CONFIG_NOSYSTEM=1", "HOME="+g.Root, "GIT_COMMITTER_DATE="+when, "GIT_AUTHOR_DATE="+when)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	run(t, g.Root, "mv", "a.go", "b.go")
	commitAt("2025-07-24T12:00:00Z", "move")
	run(t, g.Root, "rm", "-q", "b.go")
	commitAt("2025-08-01T12:00:00Z", "delete")
	st := NewChecker(g, filepath.Join(t.TempDir(), "anchors")).Check(context.Background(), as)[0]
	if st.Status != Gone || st.When.UTC().Format("2006-01-02") != "2025-08-01" {
		t.Errorf("%s dated %s, want gone, 2025-08-01", st.Describe(), st.When.UTC().Format("2006-01-02"))
	}
}

// A check of every anchor in force (lore stale, doctor) keeps only the
// cached files and diffs it looked up: each edit of an anchored file left
// a diff entry behind for good, and the cache grew with every pull. A
// check of some anchors (a prompt's) keeps everything.
func TestPruneKeepsWhatTheCheckUsed(t *testing.T) {
	g := gitRepo(t, map[string]string{"a.go": numbered("a", 10), "b.go": numbered("b", 10)})
	as := append(anchorTo(t, g, "a.go"), anchorTo(t, g, "b.go")...)
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	check := func(anchors []record.Anchor, prune bool) {
		k := NewChecker(g, cacheFile)
		k.Prune = prune
		k.Check(context.Background(), anchors)
		if err := k.Save(); err != nil {
			t.Fatal(err)
		}
	}
	entries := func(kind byte) int {
		n := 0
		for _, l := range readCache(cacheFile).lines() {
			if l != "" && l[0] == kind {
				n++
			}
		}
		return n
	}
	for i := 11; i <= 13; i++ { // three edits of a.go: three diffs cached
		write(t, g.Root, "a.go", numbered("a", i))
		check(as, false)
	}
	if d := entries('d'); d != 3 {
		t.Fatalf("%d diff entries after three edits, want 3", d)
	}
	check(as[1:], false) // some anchors: nothing goes
	if d := entries('d'); d != 3 {
		t.Fatalf("%d diff entries after a check of b.go alone, want 3", d)
	}
	check(as, true)
	if d, f := entries('d'), entries('f'); d != 1 || f != 2 {
		t.Errorf("after a full check: %d diff and %d file entries, want 1 and 2", d, f)
	}
}

// A file found gone is looked for again once a file is added anywhere:
// the commit amended to add the renamed file, or a checkout of a branch
// that renamed it, kept "gone" from the cache (new-user check 19).
func TestGoneIsLookedForAgainAfterAnAddition(t *testing.T) {
	g := gitRepo(t, map[string]string{"util.go": numbered("u", 20), "other.go": numbered("o", 5)})
	as := anchorTo(t, g, "util.go")
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	check := func() string { return describeSaved(t, g, cacheFile, as) }
	run(t, g.Root, "rm", "-q", "util.go")
	run(t, g.Root, "commit", "-qm", "move util")
	if d := check(); d != "util.go gone" {
		t.Fatalf("%s", d)
	}
	write(t, g.Root, "other.go", numbered("o", 6)) // a change that adds nothing keeps the answer
	run(t, g.Root, "commit", "-qam", "other")
	if d := check(); d != "util.go gone" {
		t.Fatalf("%s", d)
	}
	write(t, g.Root, "helpers.go", numbered("u", 20))
	run(t, g.Root, "add", "helpers.go")
	run(t, g.Root, "commit", "-q", "--amend", "--no-edit")
	if d := check(); d != "util.go moved to helpers.go" {
		t.Errorf("after the amend added the renamed file: %s", d)
	}
}
