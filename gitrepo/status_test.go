package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStatusListsChangesOutsideTheExcludedStore(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	st, err := StartStatus(context.Background(), os.Getenv, dir, filepath.Join(dir, ".lore"))()
	if err != nil || st.Head != "" || st.Branch != "main" || len(st.Changes) != 0 {
		t.Fatalf("unborn: %+v, %v", st, err)
	}

	write(t, filepath.Join(dir, "a.go"), "package a\n")
	write(t, filepath.Join(dir, "gone.txt"), "x\n")
	write(t, filepath.Join(dir, ".lore", "journal", "x.jsonl"), "{}\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "one")
	head := git(t, dir, "rev-parse", "HEAD")

	write(t, filepath.Join(dir, "a.go"), "package a // changed\n")
	write(t, filepath.Join(dir, "new dir", "b c.txt"), "new\n")
	write(t, filepath.Join(dir, ".lore", "journal", "x.jsonl"), "{}\n{}\n")
	write(t, filepath.Join(dir, ".lore", "journal", "y.jsonl"), "{}\n")
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "a.go")

	st, err = StartStatus(context.Background(), os.Getenv, dir, filepath.Join(dir, ".lore"))()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"M  a.go", " D gone.txt", "?? new dir/b c.txt"}
	slices.Sort(st.Changes)
	slices.Sort(want)
	if st.Head != head || st.Branch != "main" || !slices.Equal(st.Changes, want) {
		t.Errorf("status %+v, want head %s, branch main, changes %q", st, head, want)
	}

	git(t, dir, "checkout", "-q", "--detach")
	if st, err = StartStatus(context.Background(), os.Getenv, dir, "")(); err != nil || st.Branch != "(detached HEAD)" || !slices.Contains(st.Changes, "?? .lore/journal/y.jsonl") {
		t.Errorf("detached, nothing excluded: %+v, %v", st, err)
	}
}

// The store's subtree is left out by two commands (see StartStatus); they
// must report what one git status with an exclude pathspec reports.
func TestStatusOutsideTheStoreMatchesOneGitStatus(t *testing.T) {
	for _, c := range []struct{ in, store string }{{"", ".lore"}, {"", "docs/.lore"}, {"docs", "docs/.lore"}} {
		store := c.store
		t.Run(c.in+":"+store, func(t *testing.T) {
			root := t.TempDir()
			git(t, root, "init", "-q", "-b", "main")
			for _, f := range []string{"a.go", "gone.txt", "gone dir/x.go", "docs/guide.md", store + "/journal/x.jsonl", "kept/deep/y.go"} {
				write(t, filepath.Join(root, f), "x\n")
			}
			write(t, filepath.Join(root, ".gitignore"), "/build/\n*.log\n")
			git(t, root, "add", "-A")
			git(t, root, "commit", "-qm", "one")

			for _, f := range []string{"new.go", "new dir/sub/b c.txt", "build/out.bin", "kept/deep/z.log", "kept/deep/new.go",
				":odd*name", ".lorex/b", "docs/draft.md", "docs/sub/new.md", "docs/guide.md", store + "/journal/y.jsonl", store + "/patterns/p.toml"} {
				write(t, filepath.Join(root, f), "new\n")
			}
			write(t, filepath.Join(root, "a.go"), "changed\n")
			write(t, filepath.Join(root, "staged.go"), "s\n")
			git(t, root, "add", "staged.go")
			for _, f := range []string{"gone.txt", "gone dir", "staged.go"} {
				if err := os.RemoveAll(filepath.Join(root, f)); err != nil {
					t.Fatal(err)
				}
			}

			dir := filepath.Join(root, c.in)
			st, err := StartStatus(context.Background(), os.Getenv, dir, filepath.Join(root, store))()
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, filepath.Join(root, store))
			out, err := Run(context.Background(), os.Getenv, dir, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames", "--", ".", ":(exclude)"+rel)
			if err != nil {
				t.Fatal(err)
			}
			want := parseStatus(out)
			if len(want.Changes) < 3 {
				t.Fatalf("the fixture should change at least 3 paths: %q", want.Changes)
			}
			got := slices.Sorted(slices.Values(st.Changes))
			if w := slices.Sorted(slices.Values(want.Changes)); !slices.Equal(got, w) || st.Branch != want.Branch || st.Head != want.Head {
				t.Errorf("status outside %s:\n got %q\nwant %q", store, got, w)
			}
		})
	}
}
