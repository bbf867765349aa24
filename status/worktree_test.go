package status

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lore/gitrepo"
	"lore/index"
	"lore/record"
	"lore/store"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// line is one decision record as a shard holds it.
func line(id, text string) string {
	return `{"v":1,"id":"` + id + `","kind":"decision","ts":"2026-11-22T13:48:07Z","created":"2026-11-22T13:48:07Z","text":"` + text + `"}` + "\n"
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// compare reads git's index and names the changed and untracked shards
// itself, without git's walk, wherever the store sits: at the top of a
// worktree, below it, or in a linked worktree (whose index is its own).
func TestCompareReadsGitIndex(t *testing.T) {
	for _, layout := range []string{"top", "nested", "linked"} {
		t.Run(layout, func(t *testing.T) {
			root := t.TempDir()
			git(t, root, "init", "-q", "-b", "main")
			git(t, root, "commit", "-q", "--allow-empty", "-m", "init")
			worktree, dir := root, ".lore"
			switch layout {
			case "nested":
				dir = "sub/dir/.lore"
			case "linked":
				worktree = filepath.Join(t.TempDir(), "linked")
				git(t, root, "worktree", "add", "-q", worktree, "-b", "linked")
			}
			storeDir := filepath.Join(worktree, dir)
			if _, err := store.Init(storeDir); err != nil {
				t.Fatal(err)
			}
			committed := filepath.Join(storeDir, record.Decision.Dir(), "2026-11", "main-a.jsonl")
			appendTo(t, committed, line("dec-aaaaaaaa", "committed"))
			// Older than git's index by more than a timestamp's tick, so
			// that no file is "racily clean" (which compare, as git,
			// would rightly report as possibly changed).
			past := time.Now().Add(-time.Minute)
			filepath.WalkDir(storeDir, func(path string, _ fs.DirEntry, _ error) error { return os.Chtimes(path, past, past) })
			git(t, worktree, "add", "-A")
			git(t, worktree, "commit", "-q", "-m", "store")

			s, err := store.Open(storeDir)
			if err != nil {
				t.Fatal(err)
			}
			repo, err := gitrepo.FindRepo(storeDir, nil)
			if err != nil {
				t.Fatal(err)
			}
			compared := func() (changed, untracked []string) {
				t.Helper()
				snap, err := index.Open(context.Background(), s, index.SnapshotOptions{Tokenizer: index.Tokenizer{Version: "test", Terms: func(*record.Record) ([]string, []string) { return nil, nil }}})
				if err != nil {
					t.Fatal(err)
				}
				changed, untracked, ok := compare(s, snap, startReadIndex(s, repo, nil))
				if !ok {
					t.Fatalf("compare could not tell: git's index unread")
				}
				slices.Sort(changed)
				slices.Sort(untracked)
				return changed, untracked
			}
			check := func(wantChanged, wantUntracked []string) {
				t.Helper()
				if changed, untracked := compared(); !slices.Equal(changed, wantChanged) || !slices.Equal(untracked, wantUntracked) {
					t.Errorf("changed %q, untracked %q; want %q and %q", changed, untracked, wantChanged, wantUntracked)
				}
			}
			check(nil, nil)
			appendTo(t, committed, line("dec-bbbbbbbb", "appended"))
			appendTo(t, filepath.Join(storeDir, record.Decision.Dir(), "2026-11", "main-b.jsonl"), line("dec-cccccccc", "new"))
			// The append changed the file and not its directory: lore's
			// index sees it here because the new shard changed the
			// directory, as a capture's does.
			check([]string{"journal/2026-11/main-a.jsonl"}, []string{"journal/2026-11/main-b.jsonl"})
			// A shard removed (rm, not git rm) is named too: git diff,
			// given its path, says which records went with it. A file
			// of the store that is no shard holds no record to lose.
			git(t, worktree, "add", "-A")
			git(t, worktree, "commit", "-q", "-m", "more")
			for _, rel := range []string{"journal/2026-11/main-b.jsonl", ".gitattributes"} {
				if err := os.Remove(filepath.Join(storeDir, filepath.FromSlash(rel))); err != nil {
					t.Fatal(err)
				}
			}
			// (The shard appended to may be named too: git's index was
			// written within a timestamp's tick of it.)
			changed, untracked := compared()
			if !slices.Contains(changed, "journal/2026-11/main-b.jsonl") || slices.Contains(changed, ".gitattributes") || len(untracked) > 0 {
				t.Errorf("changed %q, untracked %q; want the removed shard changed, and not .gitattributes", changed, untracked)
			}
		})
	}
}
