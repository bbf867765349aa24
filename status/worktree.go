package status

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"lore/gitrepo"
	"lore/index"
	"lore/record"
	"lore/store"
)

// maxPaths bounds the shards worktree names to git diff; past it, git
// diffs the whole store.
const maxPaths = 1000

// worktree is what the working tree holds beyond git's index: the records
// of the untracked shards, and git diff's output for the shards changed
// or removed since they were added.
//
// git would find both by looking at every shard: the diff stats each one
// (19 ms for 20k shards at 100k records) and listing untracked files reads
// every directory (14 ms), and the two share the machine's cores. Lore's
// index already knows each shard's size, mtime and inode (it checks them
// by directory, see index.Open), and git's index records the same of each
// file it tracks, so comparing the two names the shards git must look at,
// as git itself would: the others are as git last saw them. git looks at
// everything when lore cannot read git's index (split or sparse, or git's
// variables point at another), when lore's index is partial, and when a
// shard to ask about lies beyond a symbolic link.
func worktree(ctx context.Context, s *store.Store, open func() (*index.Snapshot, error)) ([]*record.Record, string, error) {
	repo, repoErr := gitrepo.FindRepo(s.Dir, s.Getenv)
	current := freshShards(s, repo)
	currentIgnored := startIgnored(ctx, s, current)
	gitIndex := startReadIndex(s, repo, repoErr)
	snap, err := open()
	if err != nil {
		return nil, "", err
	}
	changed, untracked, ok := compare(s, snap, gitIndex)
	if !ok {
		return walked(ctx, s)
	}
	var diff func() (string, error)
	if len(changed) > 0 {
		paths := []string{"."}
		if len(changed) <= maxPaths {
			paths = literal(changed)
		}
		diff = gitrepo.Start(ctx, s.Getenv, s.Dir, append([]string{"diff", "--no-color", "-U0", "--"}, paths...)...)
	}
	// The current shards were asked about in advance; if that failed
	// (one named but gone, say), they are asked about again with the rest.
	ignored := map[string]bool{}
	asked, err := currentIgnored()
	if err != nil {
		current = nil
	}
	var others []string // untracked, and not among the current shards
	for _, rel := range untracked {
		if !slices.Contains(current, rel) {
			others = append(others, rel)
		}
	}
	more, err := startIgnored(ctx, s, others)()
	if err != nil {
		return nil, "", err
	}
	for _, rel := range append(asked, more...) {
		ignored[rel] = true
	}
	untracked = slices.DeleteFunc(untracked, func(rel string) bool { return ignored[rel] })
	var out string
	if diff != nil {
		if out, err = diff(); err != nil {
			return nil, "", err
		}
	}
	recs, err := untrackedRecords(s, untracked)
	return recs, out, err
}

// walked is worktree by git's own walk of the store: every shard stat'ed
// against the index, every directory listed for untracked files.
func walked(ctx context.Context, s *store.Store) ([]*record.Record, string, error) {
	others := gitrepo.Start(ctx, s.Getenv, s.Dir, "ls-files", "--others", "--exclude-standard", "-z", "--", ".")
	diff, err := gitrepo.Run(ctx, s.Getenv, s.Dir, "diff", "--no-color", "-U0", "--", ".")
	if err != nil {
		return nil, "", err
	}
	out, err := others()
	if err != nil {
		return nil, "", err
	}
	recs, err := untrackedRecords(s, strings.Split(out, "\x00"))
	return recs, diff, err
}

// startIgnored asks git, in the background, which of the paths (relative
// to the store) its ignore rules leave out: a shard a .gitignore of the
// user's covers is not untracked for git status either.
func startIgnored(ctx context.Context, s *store.Store, paths []string) func() ([]string, error) {
	if len(paths) == 0 {
		return func() ([]string, error) { return nil, nil }
	}
	wait := gitrepo.StartInput(ctx, s.Getenv, s.Dir, strings.Join(paths, "\x00")+"\x00", "check-ignore", "-z", "--stdin")
	return func() ([]string, error) {
		out, err := wait()
		if err != nil && gitrepo.ExitCode(err) != 1 { // 1: none is ignored
			return nil, err
		}
		return strings.FieldsFunc(out, func(r rune) bool { return r == 0 }), nil
	}
}

// gitView is git's index under the store, and where the store is in the
// worktree.
type gitView struct {
	*gitrepo.GitIndex
	root   string // the top of the worktree
	prefix string // the store's path from it, with a trailing slash ("" at the top)
}

// freshShards are the shards this checkout appends to that changed since
// git last wrote its index: a capture since then may have left them
// untracked, so whether git ignores them is asked at once, beside reading
// the indexes, rather than after. Asking about the others would cost a git
// process for nothing on most runs (2.5 ms at 100k records); an untracked
// shard this misses is asked about afterwards.
func freshShards(s *store.Store, repo *gitrepo.Repo) []string {
	if repo == nil {
		return nil
	}
	gi, err := os.Stat(filepath.Join(repo.GitDir, "index"))
	var written time.Time
	if err == nil {
		written = gi.ModTime()
	}
	var fresh []string
	for _, k := range record.AllKinds() {
		rel := store.CurrentShard(s, k)
		if rel == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(s.Dir, rel)); err == nil && !fi.ModTime().Before(written) {
			fresh = append(fresh, filepath.ToSlash(rel))
		}
	}
	return fresh
}

// startReadIndex reads, in the background, the entries of git's index
// under the store.
func startReadIndex(s *store.Store, repo *gitrepo.Repo, repoErr error) func() (*gitView, error) {
	done := make(chan struct{})
	var v *gitView
	var err error
	go func() {
		defer close(done)
		if v, err = nil, repoErr; err == nil {
			v, err = readIndex(s, repo)
		}
	}()
	return func() (*gitView, error) {
		<-done
		return v, err
	}
}

func readIndex(s *store.Store, repo *gitrepo.Repo) (*gitView, error) {
	// git's variables can point its commands at another index or
	// repository than the one found from the store's directory.
	for _, v := range []string{"GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"} {
		if s.Getenv != nil && s.Getenv(v) != "" {
			return nil, fmt.Errorf("%s is set", v)
		}
	}
	prefix, err := filepath.Rel(repo.Root, s.Dir)
	if err != nil || prefix == ".." || strings.HasPrefix(prefix, "../") {
		return nil, fmt.Errorf("the store %s is outside the worktree %s", s.Dir, repo.Root)
	}
	prefix = filepath.ToSlash(prefix) + "/"
	if prefix == "./" {
		prefix = ""
	}
	gi, err := gitrepo.ReadIndex(repo, prefix)
	if err != nil {
		return nil, err
	}
	return &gitView{gi, repo.Root, prefix}, nil
}

// linked reports whether a directory on the way from the top of the
// worktree to path (from there, with slashes) is a symbolic link: git
// sees nothing beyond one, while lore's index reads through it. seen
// keeps the answer for each directory asked.
func (v *gitView) linked(path string, seen map[string]bool) bool {
	dir := pathpkg.Dir(path)
	if dir == "." || dir == "/" {
		return false
	}
	if l, ok := seen[dir]; ok {
		return l
	}
	fi, err := os.Lstat(filepath.Join(v.root, filepath.FromSlash(dir)))
	l := err == nil && fi.Mode()&fs.ModeSymlink != 0 || v.linked(dir, seen)
	seen[dir] = l
	return l
}

// compare names the store's files (relative to it, with slashes) that may
// differ from what git's index holds (a shard removed among them: git
// diff, given its path, says which records went), and those git's index
// does not hold. ok is false when it cannot tell.
func compare(s *store.Store, snap *index.Snapshot, gitIndex func() (*gitView, error)) (changed, untracked []string, ok bool) {
	gi, err := gitIndex()
	if err != nil || snap.Partial {
		return nil, nil, false
	}
	snap.Files(func(rel string, size, mtime int64, ino uint64) {
		rel = filepath.ToSlash(rel)
		e, tracked := gi.Entries[rel]
		switch {
		case !tracked:
			untracked = append(untracked, rel)
		case gi.MayDiffer(e, size, mtime, ino):
			changed = append(changed, rel)
		}
		delete(gi.Entries, rel) // what stays is what lore's index does not describe
	})
	// What git tracks in the store that lore's index does not describe
	// (config.toml, .gitattributes, a shard removed or replaced by what
	// is not a file) is stat'ed here, as git would.
	for rel, e := range gi.Entries {
		fi, err := os.Lstat(filepath.Join(s.Dir, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if isShard(rel) { // removed: its records go with it
				changed = append(changed, rel)
			}
		case err != nil || !fi.Mode().IsRegular():
			changed = append(changed, rel)
		case gi.MayDiffer(e, fi.Size(), fi.ModTime().UnixNano(), gitrepo.Inode(fi)):
			changed = append(changed, rel)
		}
	}
	// A shard beyond a symbolic link (a kind's directory linked
	// elsewhere) is one git does not see: git's walk says what it does.
	seen := map[string]bool{}
	for _, rel := range append(slices.Clip(changed), untracked...) {
		if gi.linked(gi.prefix+rel, seen) {
			return nil, nil, false
		}
	}
	return changed, untracked, true
}

// literal makes paths pathspecs that match only themselves.
func literal(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(literal)" + p
	}
	return out
}
