package anchor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"lore/record"
)

// BenchmarkCheckWarm is a check that the cache answers in full, as the
// prompt hook's nearly always is: a new checker per check, every file's
// stat as cached. Files sit three directories deep,
// ten to a directory, so that what a check costs per directory shows.
func BenchmarkCheckWarm(b *testing.B) {
	for _, n := range []int{20, 2000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			g, as := benchRepo(b, n)
			cacheFile := filepath.Join(b.TempDir(), "anchors")
			k := NewChecker(g, cacheFile)
			for _, st := range k.Check(ctx, as) {
				if st.Status != Fresh {
					b.Fatal(st.Describe())
				}
			}
			if err := k.Save(); err != nil {
				b.Fatal(err)
			}
			// The cache read once: each read maps the file anew, for good
			// (a process reads it once), and b.Loop's thousands of
			// mappings would exhaust the process's.
			c := readCache(cacheFile)
			for b.Loop() {
				k := NewChecker(g, cacheFile)
				k.c = c
				if st := k.Stale(ctx, as); len(st) > 0 {
					b.Fatal(st[0].Describe())
				}
			}
		})
	}
}

// benchRepo is a committed repository of n files, older than the cache's
// racy window, and an anchor to each.
func benchRepo(b *testing.B, n int) (Repo, []record.Anchor) {
	dir := b.TempDir()
	specs := make([]Spec, n)
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := fmt.Sprintf("pkg%d/sub%d/file%d.go", i/100, i/10%10, i)
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(fmt.Sprintf("package x // %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			b.Fatal(err)
		}
		specs[i] = Spec{Path: p}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	g := Repo{Root: dir, Getenv: func(string) string { return "" }}
	as, err := g.Resolve(context.Background(), dir, specs)
	if err != nil {
		b.Fatal(err)
	}
	return g, as
}
