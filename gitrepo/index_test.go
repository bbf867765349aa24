package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indexRepo makes a repository with a.txt outside the store and three
// shards in it, all added to the index, and returns it found.
func indexRepo(t *testing.T, initArgs ...string) *Repo {
	t.Helper()
	root := t.TempDir()
	git(t, root, append([]string{"init", "-q", "-b", "main"}, initArgs...)...)
	write(t, filepath.Join(root, "a.txt"), "outside\n")
	write(t, filepath.Join(root, ".lore/decisions/2026-11/main-1.jsonl"), "{\"id\":\"dec-1\"}\n")
	write(t, filepath.Join(root, ".lore/decisions/2026-11/main-2.jsonl"), "{\"id\":\"dec-2\"}\n{\"id\":\"dec-3\"}\n")
	write(t, filepath.Join(root, ".lore/patterns/2026-11/a long name with spaces and ünïcode.toml"), "[[pattern]]\n")
	git(t, root, "add", ".")
	r, err := FindRepo(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkIndex compares what ReadIndex read with each file's lstat: the
// store's three shards, none of them different from the index.
func checkIndex(t *testing.T, r *Repo) *GitIndex {
	t.Helper()
	g, err := ReadIndex(r, ".lore/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, e := range g.Entries {
		if e.Recheck {
			continue // added with -N: git records no stat data for it
		}
		names = append(names, name)
		fi, err := os.Lstat(filepath.Join(r.Root, ".lore", name))
		if err != nil {
			t.Fatal(err)
		}
		ino := Inode(fi)
		if e.Size != uint32(fi.Size()) || e.Ino != uint32(ino) || e.MtimeSec != uint32(fi.ModTime().Unix()) {
			t.Errorf("%s: entry %+v, file size %d ino %d mtime %d", name, e, fi.Size(), ino, fi.ModTime().Unix())
		}
	}
	if len(names) != 3 {
		t.Errorf("entries under .lore/: %q, want the 3 shards", names)
	}
	return g
}

// The index as git writes it in each version reads the same.
func TestReadIndexVersions(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := indexRepo(t)
			git(t, r.Root, "update-index", "--index-version", version)
			if version == "3" { // git writes version 3 only for an entry that needs it
				write(t, filepath.Join(r.Root, ".lore/x"), "")
				git(t, r.Root, "add", "-N", ".lore/x")
			}
			g := checkIndex(t, r)
			data, err := os.ReadFile(filepath.Join(r.GitDir, "index"))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(data[7]); got != version {
				t.Errorf("git wrote index version %s, want %s", got, version)
			}
			if version == "3" && !g.Entries["x"].Recheck {
				t.Errorf("intent-to-add entry %+v: want Recheck", g.Entries["x"])
			}
		})
	}
	t.Run("sha256", func(t *testing.T) {
		checkIndex(t, indexRepo(t, "--object-format=sha256"))
	})
}

// A file changed after git add may differ; one git does not look at
// (skip-worktree) and one only intended to add (-N) are told apart; a
// file touched in the same tick the index was written is checked again.
func TestIndexMayDiffer(t *testing.T) {
	r := indexRepo(t)
	shard := "decisions/2026-11/main-1.jsonl"
	stat := func(rel string) (int64, int64, uint64) {
		fi, err := os.Lstat(filepath.Join(r.Root, ".lore", rel))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size(), fi.ModTime().UnixNano(), Inode(fi)
	}
	g := checkIndex(t, r)
	size, mtime, ino := stat(shard)
	g.WrittenMtime = mtime // the index written in the tick the file was: racy
	if !g.MayDiffer(g.Entries[shard], size, mtime, ino) {
		t.Errorf("a file modified as late as the index was written must be checked again")
	}
	g.WrittenMtime = mtime + 1
	if g.MayDiffer(g.Entries[shard], size, mtime, ino) {
		t.Errorf("a file as the index has it may differ?")
	}
	if !g.MayDiffer(g.Entries[shard], size+10, mtime, ino) {
		t.Errorf("a file grown since git add does not differ?")
	}

	write(t, filepath.Join(r.Root, ".lore/decisions/2026-11/main-9.jsonl"), "{}\n")
	git(t, r.Root, "add", "-N", ".lore/decisions/2026-11/main-9.jsonl")
	git(t, r.Root, "update-index", "--skip-worktree", ".lore/decisions/2026-11/main-2.jsonl")
	g, err := ReadIndex(r, ".lore/")
	if err != nil {
		t.Fatal(err)
	}
	if e := g.Entries["decisions/2026-11/main-9.jsonl"]; !e.Recheck {
		t.Errorf("intent-to-add entry %+v: want Recheck", e)
	}
	if e := g.Entries["decisions/2026-11/main-2.jsonl"]; !e.Unchanged || g.MayDiffer(e, 0, 0, 0) {
		t.Errorf("skip-worktree entry %+v: want Unchanged", e)
	}
}

// A split index keeps most entries in another file; ReadIndex says it does
// not read it rather than return part of the entries. So does a damaged
// index; a missing one is empty.
func TestReadIndexRefuses(t *testing.T) {
	r := indexRepo(t)
	git(t, r.Root, "update-index", "--split-index")
	if _, err := ReadIndex(r, ".lore/"); !errors.Is(err, ErrIndexFormat) {
		t.Errorf("split index: err = %v, want ErrIndexFormat", err)
	}
	data, err := os.ReadFile(filepath.Join(r.GitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseIndex(data[:40], 20, ""); err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("truncated index: err = %v", err)
	}
	if err := os.Remove(filepath.Join(r.GitDir, "index")); err != nil {
		t.Fatal(err)
	}
	if g, err := ReadIndex(r, ".lore/"); err != nil || len(g.Entries) != 0 {
		t.Errorf("no index: %+v, %v; want no entries", g, err)
	}
}
