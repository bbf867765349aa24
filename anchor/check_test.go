package anchor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
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
	g := gitRepo(t, map[string]string{"a.go": lines(30), "b.go": lines(20), "c.go": lines(10), "d.go": lines(5)})
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "a.go", Start: 5, End: 10}, {Path: "b.go"}, {Path: "c.go"}, {Path: "d.go"}, {Path: "a.go"}})
	if err != nil {
		t.Fatal(err)
	}
	k := NewChecker(g, filepath.Join(t.TempDir(), "anchors"))
	check := func() []State { t.Helper(); return k.Check(ctx, as) }
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
		"",
		"a.go changed since, 3 lines",
	}
	for i, st := range got {
		if d := st.Describe(); st.Stale() && d != want[i] || !st.Stale() && want[i] != "" {
			t.Errorf("anchor %d: %s %q, want %q", i, st.Status, d, want[i])
		}
	}
	// Stale is the same states without the fresh ones, each with its index.
	var stale []State
	for _, st := range got {
		if st.Stale() {
			stale = append(stale, st)
		}
	}
	if s := k.Stale(ctx, as); !reflect.DeepEqual(s, stale) || s[3].Index != 4 {
		t.Errorf("Stale = %+v, want %+v", s, stale)
	}
	if c := Clause(got); c != "a.go changed since, 2 lines in 5-10, 3 in all; b.go moved to renamed.go; 1 more file changed" {
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
	k := NewChecker(g, cacheFile)
	if st := k.Check(ctx, as); st[0].Status != Fresh {
		t.Fatal(st[0].Describe())
	}
	if err := k.Save(); err != nil {
		t.Fatal(err)
	}
	// Forge the cached ID: a checker that reads this cache must take it.
	c := readCache(cacheFile)
	e, ok := c.file("a.go")
	if !ok {
		t.Fatal("a.go is not in the cache")
	}
	e.id = strings.Repeat("0", 40)
	c.set(fileKey("a.go"), e.value())
	if err := c.write(cacheFile, time.Now()); err != nil {
		t.Fatal(err)
	}
	if st := NewChecker(g, cacheFile).Check(ctx, as); st[0].Status != Changed {
		t.Fatalf("the cache was not used: %s", st[0].Describe())
	}
	// A change of the file's stat makes the checker hash it again.
	if err := os.Chtimes(filepath.Join(g.Root, "a.go"), old.Add(time.Second), old.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if st := NewChecker(g, cacheFile).Check(ctx, as); st[0].Status != Fresh {
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
		{1, 3, Lines{Known: true, InRange: 1, Elsewhere: 1, NowStart: 1, NowEnd: 3}},
		{3, 5, Lines{Known: true, Elsewhere: 2, NowStart: 3, NowEnd: 5}},
	} {
		if got := linesOf(enc, c.start, c.end); got != c.want {
			t.Errorf("lines %d-%d: %+v, want %+v", c.start, c.end, got, c.want)
		}
	}
	// A range follows its lines: down past lines added above it, up past
	// lines removed, and wider or narrower with the lines changed inside.
	before := "1\n2\n3\n4\n5\n6\n7\n8\n"
	for _, c := range []struct {
		after            string
		start, end       int
		nowStart, nowEnd int
	}{
		{"new\nnew\n" + before, 3, 5, 5, 7},             // two lines added above
		{"3\n4\n5\n6\n7\n8\n", 3, 5, 1, 3},              // two removed above
		{"1\n2\n3\n4\nx\ny\n5\n6\n7\n8\n", 3, 5, 3, 7},  // two added inside
		{"1\n2\n3\n5\n6\n7\n8\n", 3, 5, 3, 4},           // one removed inside
		{"1\n2\nthree\n4\n5\n6\n7\n8\n", 3, 5, 3, 5},    // its first line replaced
		{"1\n2\nx\ny\n4\n5\n6\n7\n8\n", 3, 5, 3, 6},     // its first line replaced by two
		{"1\n2\n6\n7\n8\n", 3, 5, 0, 0},                 // all of it removed
		{"1\n2\n3\n4\n5\nafter\n6\n7\n8\n", 3, 5, 3, 5}, // a line added just below
		{"1\n2\nabove\n3\n4\n5\n6\n7\n8\n", 3, 5, 4, 6}, // a line added just above
	} {
		hs, _ := compare(before, c.after)
		l := linesOf(encodeHunks(hs, true), c.start, c.end)
		if l.NowStart != c.nowStart || l.NowEnd != c.nowEnd {
			t.Errorf("%d-%d after %q (hunks %s): now %d-%d, want %d-%d", c.start, c.end, c.after, encodeHunks(hs, true), l.NowStart, l.NowEnd, c.nowStart, c.nowEnd)
		}
	}
	// A hunk that straddles the range counts in it only the lines of the
	// range it changed, and the range keeps to its own lines.
	var twenty, ten strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&twenty, "%d\n", i)
		if i <= 10 {
			fmt.Fprintf(&ten, "y%d\n", i)
		} else {
			fmt.Fprintf(&ten, "%d\n", i)
		}
	}
	for _, c := range []struct {
		before, after string
		start, end    int
		want          Lines
	}{
		// sed '1,10s/^/y/': 4 of the 10 lines changed are in 5-8
		{twenty.String(), ten.String(), 5, 8, Lines{Known: true, InRange: 4, Elsewhere: 6, NowStart: 5, NowEnd: 8}},
		// lines 3-6 replaced by six: 5 and 6 changed in 5-8, two added
		// inside it, 3 and 4 changed above it
		{before, "1\n2\na\nb\nc\nd\ne\nf\n7\n8\n", 5, 8, Lines{Known: true, InRange: 4, Elsewhere: 2, NowStart: 5, NowEnd: 10}},
		// the range's last line replaced by three: all three are in it
		{before, "1\n2\n3\n4\nx\ny\nz\n6\n7\n8\n", 3, 5, Lines{Known: true, InRange: 3, NowStart: 3, NowEnd: 7}},
		// lines 4-6 replaced by one: two of the range's lines changed or
		// removed, one below it
		{before, "1\n2\n3\nx\n7\n8\n", 3, 5, Lines{Known: true, InRange: 2, Elsewhere: 1, NowStart: 3, NowEnd: 4}},
		// the same, from the range's start: it starts after what went
		{before, "1\n2\n3\nx\n7\n8\n", 5, 7, Lines{Known: true, InRange: 2, Elsewhere: 1, NowStart: 5, NowEnd: 5}},
	} {
		hs, _ := compare(c.before, c.after)
		if got := linesOf(encodeHunks(hs, true), c.start, c.end); got != c.want {
			t.Errorf("%d-%d after %q (hunks %s): %+v, want %+v", c.start, c.end, c.after, encodeHunks(hs, true), got, c.want)
		}
	}
	if _, text := compare("a\x00b", "a"); text {
		t.Error("binary content compared as text")
	}
	if got := linesOf(encodeHunks(nil, false), 0, 0); !got.Binary {
		t.Errorf("binary: %+v", got)
	}
}

// Entries written are found again, by bisection in the file as read, and
// a new tree voids the rename and date entries but not the rest.
func TestCacheRoundTrip(t *testing.T) {
	c := readCache(filepath.Join(t.TempDir(), "none"))
	c.setTree("head:1:2", nil)
	entries := map[string]string{
		fileKey("a\tb\n.go"):     fileEntry{mtime: 5, size: 6, ino: 7, id: "x"}.value(),
		fileKey("a.go"):          fileEntry{mtime: 1}.value(),
		fileKey("a.go.bak"):      fileEntry{mtime: 2}.value(),
		diffKey("o", "n"):        "1,2,3",
		moveKey("old.go", false): field(""),
		moveKey("b.go", false):   field("c d.go"),
		whenKey("old.go"):        "42",
	}
	for k, v := range entries {
		c.set(k, v)
	}
	name := filepath.Join(t.TempDir(), "anchors")
	if err := c.write(name, time.Unix(0, 99)); err != nil {
		t.Fatal(err)
	}
	back := readCache(name)
	if back.written.UnixNano() != 99 || back.tree != "head:1:2" || len(back.lines()) != len(entries) {
		t.Fatalf("read back: written %v, tree %q, %d lines", back.written, back.tree, len(back.lines()))
	}
	for k, v := range entries {
		if got, ok := back.get(k); !ok || got != v {
			t.Errorf("%q: %q, %v; want %q", k, got, ok, v)
		}
	}
	if to, ok := back.move("b.go", false); !ok || to != "c d.go" {
		t.Errorf("move: %q %v", to, ok)
	}
	if _, ok := back.get(fileKey("a")); ok {
		t.Error("a key found by its prefix")
	}
	back.setTree("head:3:4", nil)
	if _, ok := back.move("b.go", false); ok {
		t.Error("a rename survived a new tree")
	}
	if err := back.write(name, time.Unix(0, 100)); err != nil {
		t.Fatal(err)
	}
	again := readCache(name)
	if _, ok := again.get(whenKey("old.go")); ok || len(again.lines()) != 4 {
		t.Errorf("after a new tree: %d entries", len(again.lines()))
	}
	if e, ok := again.file("a\tb\n.go"); !ok || e.ino != 7 {
		t.Errorf("file entry lost: %+v %v", e, ok)
	}
	os.WriteFile(name, []byte("something else\nf\tx\t1\t2\t3\tid\n"), 0o644)
	if got := readCache(name); len(got.lines()) != 0 {
		t.Error("a file that is not a cache was read as one")
	}
}

// Whatever the cache file holds, reading it and looking things up does
// not fail, and every entry written back is found by bisection.
func FuzzReadCache(f *testing.F) {
	f.Add(cacheHeader + "\t5\tk\nd\to\tn\t1,2,3\nf\ta.go\t1\t2\t3\tid\nm\tc\tp\t\"\"\nr\tp\t\"\"\nw\tp\t9\n")
	f.Add(cacheHeader + "\t5\t\nf\t\"a\\tb\"\t1\t2\t3\tid\n")
	defer func(m func(string) ([]byte, error)) { mapCache = m }(mapCache)
	mapCache = os.ReadFile
	f.Fuzz(func(t *testing.T, data string) {
		name := filepath.Join(t.TempDir(), "anchors")
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		c := readCache(name)
		c.file("a.go")
		c.move("p", false)
		c.get(diffKey("o", "n"))
		if err := c.write(name, c.written); err != nil {
			t.Fatal(err)
		}
		again := readCache(name)
		for _, l := range again.lines() {
			f := strings.SplitN(l, "\t", keyFields[l[0]]+1)
			k := strings.Join(f[:len(f)-1], "\t")
			if v, ok := again.get(k); !ok || k+"\t"+v != l {
				t.Fatalf("line %q written, but looking %q up finds %q, %v", l, k, v, ok)
			}
		}
	})
}

// Bisection by byte offset finds what a scan of the lines finds, for keys
// present, absent, before the first line and after the last.
func TestCacheSearchMatchesAScan(t *testing.T) {
	var keys []string
	for i := range 300 {
		keys = append(keys, fmt.Sprintf("f\tdir%03d/file%d.go", i*7%1000, i%3))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var b strings.Builder
	for i, k := range keys {
		b.WriteString(k + "\t" + strings.Repeat("v", i%40) + "\n")
	}
	c := &cache{data: b.String(), added: map[string]string{}}
	lines := c.lines()
	probes := append(slices.Clone(keys), "", "a", "f\t", "f\tdir500", "z", "f\tdir999/zzz")
	for _, k := range probes {
		want := len(c.data)
		off := 0
		for _, l := range lines {
			if l >= k {
				want = off
				break
			}
			off += len(l) + 1
		}
		if got := c.search(k); got != want {
			t.Errorf("search(%q) = %d, want %d", k, got, want)
		}
	}
}

func TestCommitterTime(t *testing.T) {
	for _, c := range []struct {
		commit string
		want   int64 // 0: zero time
	}{
		{"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 100 +0000\ncommitter C D <c@x> 981173106 +0100\n\nmsg\n", 981173106},
		{"tree x\ncommitter <odd> name> <c@x> 7 -0700\n\n", 7},
		{"tree x\nauthor A <a@x> 100 +0000\n\ncommitter C <c@x> 5 +0000\n", 0}, // in the message
		{"tree x\ncommitter C <c@x>\n\n", 0},
		{"tree x\ncommitter C <c@x> 0 +0000\n\n", 0},
		{"", 0},
	} {
		got := committerTime(c.commit)
		if (c.want == 0) != got.IsZero() || (c.want != 0 && got.Unix() != c.want) {
			t.Errorf("committerTime(%q) = %v, want %d", c.commit, got, c.want)
		}
	}
}

// A changed submodule is dated by its commit only for a checker asked to
// date links: the hooks, which show no date, run no git for it.
func TestDateLinksOnlyWhenAsked(t *testing.T) {
	ctx := context.Background()
	lib := gitRepo(t, map[string]string{"a": "a\n"})
	sup := gitRepo(t, map[string]string{"s": "s\n"})
	run(t, sup.Root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.Root, "lib")
	run(t, sup.Root, "commit", "-qm", "sub")
	as, err := sup.Resolve(ctx, sup.Root, []Spec{{Path: "lib"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "bump")
	cmd.Dir = filepath.Join(sup.Root, "lib")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x",
		"GIT_COMMITTER_DATE=2001-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "HOME="+sup.Root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bump: %v\n%s", err, out)
	}
	run(t, sup.Root, "add", "lib")
	for _, dated := range []bool{false, true} {
		k := NewChecker(sup, filepath.Join(t.TempDir(), "anchors"))
		k.DateLinks = dated
		sts := k.Check(ctx, as)
		if len(sts) != 1 || sts[0].Status != Changed {
			t.Fatalf("dated %v: %+v, want lib changed", dated, sts)
		}
		if got := sts[0].When; dated && got.UTC().Year() != 2001 || !dated && !got.IsZero() {
			t.Errorf("DateLinks %v: When = %v, want the bump's 2001 date only when asked", dated, got)
		}
	}
}

// git hash-object --stdin-paths reads a line that starts with a double
// quote as a C-quoted path: a file named "q.go failed its whole batch
// ("line is badly quoted"), and one whose name holds a line break was
// read as two paths. lore quotes such names as git does.
func TestHashFilesQuotesNamesGitWouldUnquote(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no double quote or line break in a Windows file name")
	}
	names := []string{`"q.go`, "a\nb.go", `back\slash.go`, `mid"dle.go`, "tab\there.go", "plain.go"}
	files := map[string]string{}
	for i, n := range names {
		files[n] = fmt.Sprintf("content %d\n", i)
	}
	g := gitRepo(t, files)
	ids, err := g.hashFiles(context.Background(), names, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if want := strings.TrimSpace(run(t, g.Root, "hash-object", "--", n)); ids[i] != want {
			t.Errorf("%q: %s, want %s", n, ids[i], want)
		}
	}
}
