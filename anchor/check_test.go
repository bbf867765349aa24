package anchor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRepo makes a repository with files committed, and returns a Repo.
func gitRepo(t *testing.T, files map[string]string) Repo {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		write(t, dir, p, c)
	}
	run(t, dir, "init", "-q")
	run(t, dir, "add", ".")
	run(t, dir, "commit", "-qm", "init")
	return Repo{Root: dir, Getenv: func(string) string { return "" }}
}

func write(t *testing.T, dir, p, content string) {
	t.Helper()
	full := filepath.Join(dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}

func TestCheckFollowsTheCode(t *testing.T) {
	ctx := context.Background()
	g := gitRepo(t, map[string]string{"a.go": lines(30), "b.go": lines(20), "c.go": lines(10)})
	head := run(t, g.Root, "rev-parse", "HEAD")
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "a.go", Start: 5, End: 10}, {Path: "b.go"}, {Path: "c.go"}})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]Item, len(as))
	for i, a := range as {
		items[i] = Item{Anchor: a, Commit: func() string { return head }}
	}
	k := NewChecker(g, filepath.Join(t.TempDir(), "anchors"))
	check := func() []State { t.Helper(); return k.Check(ctx, items) }
	for _, st := range check() {
		if st.Status != Fresh {
			t.Fatalf("right after capture: %s", st.Describe())
		}
	}

	// a.go: two lines changed in its range, one added after it; b.go
	// renamed; c.go removed.
	a := strings.Split(lines(30), "\n")
	a[5], a[6] = "changed", "changed too"
	write(t, g.Root, "a.go", strings.Join(a[:20], "\n")+"\nnew line\n"+strings.Join(a[20:], "\n"))
	run(t, g.Root, "mv", "b.go", "renamed.go")
	run(t, g.Root, "rm", "-q", "c.go")
	got := check()
	want := []string{
		"a.go:5-10 changed since, 2 lines in 5-10, 3 in all",
		"b.go moved to renamed.go",
		"c.go gone",
	}
	for i, st := range got {
		if st.Describe() != want[i] {
			t.Errorf("anchor %d: %q, want %q", i, st.Describe(), want[i])
		}
	}
	if c := Clause(got); c != "a.go changed since, 2 lines in 5-10, 3 in all; b.go moved to renamed.go; 1 more files changed" {
		t.Errorf("Clause = %q", c)
	}

	// Committed, then reverted: fresh again.
	run(t, g.Root, "commit", "-qam", "edit")
	run(t, g.Root, "revert", "--no-edit", "HEAD")
	for _, st := range check() {
		if st.Status != Fresh {
			t.Errorf("after the revert: %s", st.Describe())
		}
	}
}

// A warm cache answers from a file's stat: a cached object ID is believed
// while the stat is the one it was cached with and older than the racy
// window, and not otherwise.
func TestCacheIsKeyedByStat(t *testing.T) {
	ctx := context.Background()
	g := gitRepo(t, map[string]string{"a.go": "one\n"})
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "a.go"}})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(g.Root, "a.go"), old, old); err != nil {
		t.Fatal(err)
	}
	cacheFile := filepath.Join(t.TempDir(), "anchors")
	items := []Item{{Anchor: as[0]}}
	k := NewChecker(g, cacheFile)
	if st := k.Check(ctx, items); st[0].Status != Fresh {
		t.Fatal(st[0].Describe())
	}
	if err := k.Save(); err != nil {
		t.Fatal(err)
	}
	// Forge the cached ID: a checker that reads this cache must take it.
	c := readCache(cacheFile)
	e := c.files["a.go"]
	e.id = strings.Repeat("0", 40)
	c.files["a.go"] = e
	if err := c.write(cacheFile, time.Now()); err != nil {
		t.Fatal(err)
	}
	if st := NewChecker(g, cacheFile).Check(ctx, items); st[0].Status != Changed {
		t.Fatalf("the cache was not used: %s", st[0].Describe())
	}
	// A change of the file's stat makes the checker hash it again.
	if err := os.Chtimes(filepath.Join(g.Root, "a.go"), old.Add(time.Second), old.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if st := NewChecker(g, cacheFile).Check(ctx, items); st[0].Status != Fresh {
		t.Fatalf("a changed stat trusted the cache: %s", st[0].Describe())
	}
}

func TestLinesOf(t *testing.T) {
	hs, text := compare("a\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\nf\n")
	if !text {
		t.Fatal("text read as binary")
	}
	enc := encodeHunks(hs, text)
	if enc != "2,1,1;6,0,1" {
		t.Fatalf("hunks %q", enc)
	}
	for _, c := range []struct {
		start, end int
		want       Lines
	}{
		{0, 0, Lines{Known: true, Elsewhere: 2}},
		{1, 3, Lines{Known: true, InRange: 1, Elsewhere: 1}},
		{3, 5, Lines{Known: true, Elsewhere: 2}},
	} {
		if got := linesOf(enc, c.start, c.end); got != c.want {
			t.Errorf("lines %d-%d: %+v, want %+v", c.start, c.end, got, c.want)
		}
	}
	if _, text := compare("a\x00b", "a"); text {
		t.Error("binary content compared as text")
	}
	if got := linesOf(encodeHunks(nil, false), 0, 0); !got.Binary {
		t.Errorf("binary: %+v", got)
	}
}

func TestCacheRoundTrip(t *testing.T) {
	c := newCache()
	c.files["a\tb\n.go"] = fileEntry{mtime: 5, size: 6, ino: 7, id: "x"}
	c.files["gone.go"] = fileEntry{mtime: 1}
	c.diffs[[2]string{"o", "n"}] = "1,2,3"
	c.tree = "head:1:2"
	c.moves[[2]string{"abc", "old.go"}] = ""
	c.moves[[2]string{"abc", "b.go"}] = "c d.go"
	c.when["old.go"] = 42
	name := filepath.Join(t.TempDir(), "anchors")
	if err := c.write(name, time.Unix(0, 99)); err != nil {
		t.Fatal(err)
	}
	back := readCache(name)
	if back.written.UnixNano() != 99 || back.tree != c.tree || len(back.files) != 2 || back.files["a\tb\n.go"] != c.files["a\tb\n.go"] ||
		back.diffs[[2]string{"o", "n"}] != "1,2,3" || back.moves[[2]string{"abc", "b.go"}] != "c d.go" ||
		back.moves[[2]string{"abc", "old.go"}] != "" || len(back.moves) != 2 || back.when["old.go"] != 42 {
		t.Errorf("read back %+v", back)
	}
	os.WriteFile(name, []byte("something else\nf\tx\t1\t2\t3\tid\n"), 0o644)
	if got := readCache(name); len(got.files) != 0 {
		t.Error("a file that is not a cache was read as one")
	}
}

// Whatever the cache file holds, reading it does not fail, and what was
// read writes back to a file that reads the same.
func FuzzReadCache(f *testing.F) {
	f.Add(cacheHeader + "\t5\nf\ta.go\t1\t2\t3\tid\nd\to\tn\t1,2,3\nt\tk\nm\tc\tp\t\"\"\nw\tp\t9\n")
	f.Add(cacheHeader + "\t5\nf\t\"a\\tb\"\t1\t2\t3\tid\n")
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		name := filepath.Join(dir, "anchors")
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		c := readCache(name)
		if err := c.write(name, c.written); err != nil {
			t.Fatal(err)
		}
		again := readCache(name)
		if len(again.files) != len(c.files) || len(again.diffs) != len(c.diffs) || again.tree != c.tree ||
			(c.tree != "" && (len(again.moves) != len(c.moves) || len(again.when) != len(c.when))) {
			t.Fatalf("read %+v, wrote it, read back %+v", c, again)
		}
		for p, e := range c.files {
			if again.files[p] != e {
				t.Fatalf("file %q: %+v became %+v", p, e, again.files[p])
			}
		}
	})
}
