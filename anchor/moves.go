package anchor

// Following a gone path: where git's history says it went, and what of
// that the cache keeps across commits.

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"lore/gitrepo"
)

// treeKey names the commit and the git index that renames and commit
// times are derived from: HEAD, and the index file's stat; in a shallow
// clone, the stat of the file that lists where its history is cut too
// (see shallowPart). It notes whether the clone is shallow.
func (k *Checker) treeKey() string {
	key := gitrepo.ReadRefs(k.Root, k.Getenv).Commit
	k.shallow = ""
	if r, err := gitrepo.FindRepo(k.Root, k.Getenv); err == nil {
		if fi, err := os.Stat(filepath.Join(r.GitDir, "index")); err == nil {
			key += ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + ":" + strconv.FormatInt(fi.Size(), 10)
		}
		// Linked worktrees share the common directory's.
		f := filepath.Join(r.CommonDir, "shallow")
		if fi, err := os.Stat(f); err == nil {
			k.shallow = f
			key += shallowMark + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + ":" + strconv.FormatInt(fi.Size(), 10)
		}
	}
	return key
}

// shallowMark starts the part of a tree key that a shallow clone adds.
const shallowMark = ":shallow:"

// shallowPart is the part of a tree key that names a shallow clone's
// cut, "" for a full clone. Where it differs the history is another
// (deepened, unshallowed, or made shallow): nothing derived from the
// earlier one holds, where it was cut included (an older lore cached a
// path moved before the cut as gone).
func shallowPart(tree string) string {
	if i := strings.Index(tree, shallowMark); i >= 0 {
		return tree[i:]
	}
	return ""
}

// shallowWhy is why an anchor is unchecked in a shallow clone whose
// history is cut before the anchored path changed: where it went is in
// the history left out.
const shallowWhy = "is not here; this shallow clone's history is cut before it changed (git fetch --unshallow)"

// cutMove is what the cache says of a gone path whose move is in the
// history a shallow clone left out: no path, which holds no NUL.
const cutMove = "\x00cut"

// follow looks for the gone anchors under other paths: moved since HEAD
// (staged, or changed in tracked files), or moved by the commits of
// HEAD's history (see moved), or, where no commit of this clone held the
// path, the anchored content unchanged at another tracked path. It also
// dates each gone path's last commit.
func (k *Checker) follow(ctx context.Context, states []State, gone []int) {
	if key := k.treeKey(); key != k.c.tree {
		var still func(key, value string) bool
		if shallowPart(key) == shallowPart(k.c.tree) {
			still = k.unchangedSince(ctx, k.c.tree)
		}
		k.c.setTree(key, still)
		k.dirty = true
	}
	diffs := map[string]map[string]string{} // "from to" → old path → new, "" for deleted
	// The first walk of history for each gone path not cached runs side
	// by side with the others (a few at a time): in a long history each
	// takes a tenth of a second, one after another past the hook's
	// deadline.
	walks := map[string]func() (string, error){}
	for _, i := range gone {
		p := states[i].Anchor.Path
		if _, known := k.c.move(p, k.AllRenames); !known && walks[p] == nil && len(walks) < maxWalks {
			walks[p] = gitrepo.Start(ctx, k.Getenv, k.Root, lastTouch(p)...)
		}
	}
	lastTouched := func(p string) (string, error) {
		if w, ok := walks[p]; ok {
			delete(walks, p)
			return w()
		}
		return k.git(ctx, "", lastTouch(p)...)
	}
	var byBlob map[string]string
	for _, i := range gone {
		a := states[i].Anchor
		to, known := k.c.move(a.Path, k.AllRenames)
		if !known {
			var held, cut bool
			to, held, cut = k.moved(ctx, diffs, lastTouched, a.Path)
			if to == "" && a.Blob != emptyBlob {
				// Never committed here, or deleted: the anchored content
				// unchanged at another tracked path is where it went (a
				// copy committed apart from the deletion, which rename
				// detection never pairs), unless that path held it when
				// the anchor was made (a duplicate the deletion left).
				if byBlob == nil {
					byBlob = k.trackedByID(ctx)
				}
				if c := byBlob[a.Blob]; c != "" && (!held || a.Commit != "" && !k.inCommit(ctx, a.Commit, c)) {
					to = c
				}
			}
			if to == "" && cut && a.Commit != "" && k.inClone(ctx, a.Commit) {
				cut = false // the history since the anchor's commit is all here
			}
			if ctx.Err() != nil {
				// What git did not answer within the caller's deadline (the
				// prompt hook's) is not known to be nowhere: unchecked, and
				// not cached.
				states[i].Status, states[i].id = Unchecked, unknown
				continue
			}
			v := field(to)
			if to == "" && cut {
				to, v = cutMove, strconv.Quote(cutMove) // quoted: field leaves a NUL as is
			}
			k.c.set(moveKey(a.Path, k.AllRenames), v)
			k.dirty = true
		}
		if to == cutMove {
			// Where it went is in the history a shallow clone left out:
			// not known to be nowhere either. Cached as such while the
			// cut stays where it is (see treeKey): every prompt would
			// walk the history again.
			states[i].Status, states[i].id, states[i].why = Unchecked, unknown, shallowWhy
			continue
		}
		if to == "" {
			states[i].When = k.lastCommit(ctx, a.Path)
			continue
		}
		f := k.current(ctx, []string{to})[0]
		if f.id == "" && f.other == "" {
			states[i].When = k.lastCommit(ctx, a.Path)
			continue
		}
		states[i].Status, states[i].Path, states[i].When = Moved, to, k.changedAt(ctx, to, f)
		if f.id != a.Blob || f.other != "" {
			states[i].id, states[i].link, states[i].other = f.id, f.link, f.other
		}
	}
}

// emptyBlob is the object ID of an empty file: many files hold it, and
// none of them is where an empty anchored file went.
const emptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"

// unchangedSince reports, of the move and date entries derived under
// tree (a treeKey), those that still hold now: their paths, the gone one
// and where it went, are the same in the working tree as in that tree's
// HEAD (git diff --name-status from it), and, for a path found gone, no
// file was added since. Nil when that cannot be told: all are derived
// again.
func (k *Checker) unchangedSince(ctx context.Context, tree string) func(key, value string) bool {
	head, _, _ := strings.Cut(tree, ":")
	if head == "" {
		return nil
	}
	args := []string{"diff", "--name-status", "--no-renames", "-z", head, "--"}
	if k.Exclude != "" {
		args = append(args, ".", ":(exclude)"+k.Exclude)
	}
	out, err := k.git(ctx, "", args...)
	if err != nil {
		return nil
	}
	changed, added := map[string]bool{}, false
	f := strings.Split(out, "\x00")
	for i := 0; i+1 < len(f); i += 2 { // status, path
		changed[f[i+1]] = true
		added = added || f[i] == "A"
	}
	return func(key, value string) bool {
		_, path, _ := strings.Cut(key, "\t")
		if changed[unfield(path)] {
			return false
		}
		to := unfield(value)
		switch {
		case key[0] == 'w':
			return true
		case to == "" || to == cutMove:
			// Gone, or not known, as far as was known: a file added
			// since may be where it went (a commit amended to add the
			// renamed file, a branch that renamed it).
			return !added
		}
		return !changed[to]
	}
}

// maxWalks bounds the walks of history follow starts at once.
const maxWalks = 4

// lastTouch is git log's arguments for the last commit of HEAD's history
// that touched path: its time, ID and parents.
func lastTouch(path string) []string {
	return []string{"log", "-1", "--format=%ct %H %P", "--", ":(literal)" + path}
}

// maxHops bounds how many renames of one file moved follows: each costs
// a walk of history (git log -1 -- path).
const maxHops = 8

// moved is where path is now ("" if it was deleted, or git did not tell),
// whether a commit of this clone held it, and whether the answer "" may
// be for want of history: a shallow clone's walk found no commit that
// touched the path, or stopped at a commit whose parents it left out. A path gone since HEAD is looked for in what
// changed since HEAD. Otherwise the last commit of HEAD's history that
// touched it removed or renamed it: rename detection runs on that commit
// alone (its parents to it), and a new path that a later commit moved
// again is followed the same way. One commit at a time, not the range
// from the anchor's commit: a range of months pairs a deleted file with
// any file added since that looks like it (half the lines alike is
// enough for git), crosses git's rename limit, and costs the prompt hook
// a whole-tree diff after a large checkout.
func (k *Checker) moved(ctx context.Context, diffs map[string]map[string]string, lastTouched func(path string) (string, error), path string) (to string, held, cut bool) {
	diff := func(from, to string) map[string]string {
		r, ok := diffs[from+" "+to]
		if !ok {
			r = k.renames(ctx, from, to)
			diffs[from+" "+to] = r
		}
		return r
	}
	p, since := path, ""
	for hop := 0; hop < maxHops; hop++ {
		if to, ok := diff("HEAD", "")[p]; ok {
			return to, true, false
		}
		var out string
		var err error
		if since == "" {
			out, err = lastTouched(p)
		} else {
			// The last commit since the move that touched the new path:
			// from HEAD alone, git's history simplification follows a
			// merge's first parent where neither parent holds the path
			// (a branch that merged upstream's moves), and finds none.
			out, err = k.git(ctx, "", "log", "-1", "--format=%ct %H %P", "--ancestry-path", since+"..HEAD", "--", ":(literal)"+p)
		}
		if err != nil {
			return "", hop > 0, false
		}
		f := strings.Fields(out)
		if hop == 0 {
			// The date lastCommit would ask git for next: kept (0 if no
			// commit touched it).
			when := "0"
			if len(f) > 0 {
				when = f[0]
			}
			k.c.set(whenKey(path), when)
			k.dirty = true
		}
		if len(f) < 2 && hop > 0 {
			return p, true, false // no commit since the move touched it: there at HEAD
		}
		if len(f) < 2 {
			return "", false, k.shallow != ""
		}
		commit, next, found := f[1], "", false
		if len(f) == 2 && k.cutAt(commit) {
			return "", true, true
		}
		for _, parent := range f[2:] {
			if next, found = diff(parent, commit)[p]; found {
				break
			}
		}
		switch {
		case !found && hop == 0:
			return "", true, false // held at HEAD, yet gone: nothing says where
		case !found:
			return p, true, false // no later commit touched it: there at HEAD
		case next == "":
			// Deleted: dated by the commit that deleted it, which a moved
			// path's own last commit (the move) is not.
			k.c.set(whenKey(path), f[0])
			return "", true, false
		}
		// A file at the new path is where it went: a later commit that
		// moved it away and put another file there is rare, and each
		// hop's history walk costs the prompt hook tens of milliseconds.
		if _, err := os.Lstat(filepath.Join(k.Root, filepath.FromSlash(next))); err == nil {
			return next, true, false
		}
		p, since = next, commit
	}
	return "", true, false
}

// cutAt reports whether commit is where a shallow clone's history is cut
// (listed in $GIT_COMMON_DIR/shallow): git shows it without parents,
// though it has some.
func (k *Checker) cutAt(commit string) bool {
	if k.shallow == "" {
		return false
	}
	data, err := os.ReadFile(k.shallow)
	if err != nil {
		return true // shallow, and git's list unread: the cut may be here
	}
	for l := range strings.SplitSeq(string(data), "\n") {
		if strings.TrimSpace(l) == commit {
			return true
		}
	}
	return false
}

// inClone reports whether commit is in this clone's object database (a
// shallow clone lacks those before its cut).
func (k *Checker) inClone(ctx context.Context, commit string) bool {
	_, err := k.git(ctx, "", "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// renames maps the paths git sees renamed or deleted from one commit to
// another (to "" for the working tree: what is committed, staged or
// changed in tracked files) to their new paths ("" if deleted); nil if
// git cannot tell (a commit not in this clone).
func (k *Checker) renames(ctx context.Context, from, to string) map[string]string {
	args := []string{"diff", "--find-renames", "--name-status", "-z"}
	if k.AllRenames {
		args = append(args, "-l0")
	}
	args = append(args, from)
	if to != "" {
		args = append(args, to)
	}
	args = append(args, "--")
	if k.Exclude != "" {
		args = append(args, ".", ":(exclude)"+k.Exclude)
	}
	out, err := k.git(ctx, "", args...)
	if err != nil {
		return nil
	}
	m := map[string]string{}
	f := strings.Split(out, "\x00")
	for i := 0; i < len(f); i++ {
		switch {
		case strings.HasPrefix(f[i], "R") || strings.HasPrefix(f[i], "C"):
			if i+2 < len(f) && f[i][0] == 'R' {
				m[f[i+1]] = f[i+2]
			}
			i += 2
		case f[i] != "":
			if f[i] == "D" && i+1 < len(f) {
				m[f[i+1]] = ""
			}
			i++
		}
	}
	return m
}

// inCommit reports whether commit's tree holds path (false if git cannot
// tell: a commit missing from a shallow clone).
func (k *Checker) inCommit(ctx context.Context, commit, path string) bool {
	_, err := k.git(ctx, "", "cat-file", "-e", commit+":"+path)
	return err == nil
}

// trackedByID maps object IDs in git's index to a path holding each.
func (k *Checker) trackedByID(ctx context.Context) map[string]string {
	out, err := k.git(ctx, "", "ls-files", "--stage", "-z")
	m := map[string]string{}
	if err != nil {
		return m
	}
	for _, e := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 {
			if _, dup := m[f[1]]; !dup {
				m[f[1]] = p
			}
		}
	}
	return m
}

// lastCommit is when the last commit that touched path was made (for a
// path that is gone, when it went), or zero.
func (k *Checker) lastCommit(ctx context.Context, path string) time.Time {
	v, ok := k.c.get(whenKey(path))
	t, _ := strconv.ParseInt(v, 10, 64)
	if !ok {
		out, err := k.git(ctx, "", "log", "-1", "--format=%ct", "--", ":(literal)"+path)
		t, _ = strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err == nil {
			k.c.set(whenKey(path), strconv.FormatInt(t, 10))
			k.dirty = true
		}
	}
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(t, 0)
}
