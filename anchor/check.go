package anchor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"lore/gitrepo"
	"lore/record"
	"lore/store"
)

// Status is how an anchor's code stands today.
type Status uint8

const (
	Fresh     Status = iota // the file still has the anchored content
	Changed                 // the file's content changed
	Moved                   // git's rename detection finds it under another path
	Gone                    // not in the working tree, and not found elsewhere
	Unchecked               // git could not read the file (no git, a timeout, no permission): nothing is known
)

func (s Status) String() string {
	return [...]string{"fresh", "changed", "moved", "gone", "unchecked"}[s]
}

// State is one anchor as it stands.
type State struct {
	Anchor record.Anchor
	Status Status
	Path   string    // where the code is now: the anchor's path, or where it moved
	Lines  Lines     // what changed: for Changed, and Moved with a changed content
	When   time.Time // when it changed, as far as known; zero if not
	Index  int       // the anchor's position in what was checked
	id     string    // the object ID at Path now, when it differs; unknown if git could not read it
	link   bool      // Path is a submodule: a commit, no lines to count
	other  string    // what Path is now when it is no file ("a symbolic link"): no content, no lines
}

// Stale reports whether the code is not as anchored.
func (s State) Stale() bool { return s.Status != Fresh }

// Edited reports whether the file's content is not the anchored one: it
// changed, or moved and changed, or git could not read it to tell. Its
// Lines are unknown when the anchored content is not in this clone's
// object database. A path that is no longer a file (a symbolic link) has
// no content to compare: not Edited, though Changed.
func (s State) Edited() bool { return s.id != "" }

// Checker derives anchors' states in one repository, through a cache (see
// cache.go). It is not safe for concurrent use.
type Checker struct {
	Repo
	// Exclude is a directory (relative to the root) rename detection
	// leaves out: the store's own, whose shards only ever come and go.
	Exclude string
	// DateLinks dates a changed submodule (linkTime: a git run per
	// submodule). Only commands that show the date ask for it: the hooks
	// never show one and run on every prompt.
	DateLinks bool
	// AllRenames looks for moved files however many files the commit
	// that moved them adds (git diff -l0): git gives up on renames past
	// diff.renameLimit (1,000 files), and a file moved by a commit that
	// reorganised a large tree reads "gone". The commands that show moves
	// set it; the hooks keep git's limit, which bounds their time, and
	// cache apart.
	AllRenames bool
	cacheFile  string
	c          *cache
	dirty      bool
	now        func() time.Time
}

// NewChecker checks anchors in repo, caching in cacheFile.
func NewChecker(repo Repo, cacheFile string) *Checker {
	return &Checker{Repo: repo, cacheFile: cacheFile, now: time.Now}
}

// Check derives the state of each anchor, in the same order.
//
// What git cannot tell (a commit missing from a shallow clone, an object
// not in the repository) is left out rather than guessed: a moved file
// whose rename git does not see is gone, a change it cannot count has no
// lines.
func (k *Checker) Check(ctx context.Context, anchors []record.Anchor) []State {
	states := make([]State, len(anchors))
	for i, a := range anchors {
		states[i] = State{Anchor: a, Path: a.Path, Index: i}
	}
	for _, st := range k.Stale(ctx, anchors) {
		states[st.Index] = st
	}
	return states
}

// Stale is Check for the anchors whose code is not as anchored alone, in
// order: lore stale checks tens of thousands, nearly all fresh.
func (k *Checker) Stale(ctx context.Context, anchors []record.Anchor) []State {
	if k.c == nil {
		k.c = readCache(k.cacheFile)
	}
	// Many anchors name the same few files: each file is looked at once.
	at := make(map[string]int32, 64)
	of := make([]int32, len(anchors)) // of[i]: anchors[i]'s path in paths
	var paths []string
	for i, a := range anchors {
		j, ok := at[a.Path]
		if !ok {
			j = int32(len(paths))
			at[a.Path] = j
			paths = append(paths, a.Path)
		}
		of[i] = j
	}
	cur := k.current(ctx, paths)
	var states []State
	var gone []int                   // indices in states
	var linkWhen map[int32]time.Time // a changed submodule's date, by path: asked of git once
	for i, a := range anchors {
		f := cur[of[i]]
		switch {
		case f.other != "":
			// Checked before the ID: a link whose target path happens to
			// hash as the anchored content is still no file.
			states = append(states, State{Anchor: a, Status: Changed, Path: a.Path, Index: i, When: k.changedAt(ctx, a.Path, f), other: f.other})
		case f.id == unknown:
			states = append(states, State{Anchor: a, Status: Unchecked, Path: a.Path, Index: i, id: unknown, link: f.link})
		case f.id == a.Blob:
		case f.id == "":
			gone = append(gone, len(states))
			states = append(states, State{Anchor: a, Status: Gone, Path: a.Path, Index: i})
		default:
			when, ok := linkWhen[of[i]]
			if !ok {
				when = k.changedAt(ctx, a.Path, f)
				if f.link {
					if linkWhen == nil {
						linkWhen = map[int32]time.Time{}
					}
					linkWhen[of[i]] = when
				}
			}
			states = append(states, State{Anchor: a, Status: Changed, Path: a.Path, Index: i, When: when, id: f.id, link: f.link})
		}
	}
	if len(gone) > 0 {
		k.follow(ctx, states, gone)
	}
	k.count(ctx, states)
	return states
}

// Save writes the cache if a check added to it; a failure only costs the
// next check its work.
func (k *Checker) Save() error {
	if !k.dirty {
		return nil
	}
	k.dirty = false
	return k.c.write(k.cacheFile, k.now())
}

// changedAt is when the code at path, which current found as f, changed,
// as far as known; zero if not: a file's modification time, a submodule's
// date from linkTime. (A submodule has no modification time of its own:
// its entry's would read as 1970.)
func (k *Checker) changedAt(ctx context.Context, path string, f fileEntry) time.Time {
	switch {
	case f.link && k.DateLinks:
		return k.linkTime(ctx, path, f.id)
	case f.link:
		return time.Time{}
	case f.mtime == 0:
		return time.Time{}
	}
	return time.Unix(0, f.mtime)
}

// linkTime is when the submodule at path came to record commit, as far as
// known: the commit's committer time, from the submodule's own repository
// (the commit a submodule is moved to is there once it is checked out);
// else, in a clone that has not checked the submodule out, the time of
// the last commit here that touched path, when HEAD records commit for it
// (the change was committed); else zero. Only the objects are read: cat-
// file runs nothing the submodule's config could name.
func (k *Checker) linkTime(ctx context.Context, path, commit string) time.Time {
	if commit == "" || commit == unknown {
		return time.Time{}
	}
	dir := filepath.Join(k.Root, filepath.FromSlash(path))
	if out, err := gitrepo.Run(ctx, k.Getenv, dir, "cat-file", "commit", commit); err == nil {
		if t := committerTime(out); !t.IsZero() {
			return t
		}
	}
	if out, err := k.git(ctx, "", "rev-parse", "--verify", "--quiet", "HEAD:"+path); err != nil || strings.TrimSpace(out) != commit {
		return time.Time{}
	}
	out, err := k.git(ctx, "", "log", "-1", "--format=%ct", "--", ":(literal)"+path)
	if err != nil {
		return time.Time{}
	}
	if t, _ := strconv.ParseInt(strings.TrimSpace(out), 10, 64); t > 0 {
		return time.Unix(t, 0)
	}
	return time.Time{}
}

// committerTime is the time on the committer line of a commit object as
// cat-file prints it ("committer NAME <EMAIL> SECONDS ZONE"), or zero.
func committerTime(commit string) time.Time {
	for l := range strings.SplitSeq(commit, "\n") {
		if l == "" {
			break // the end of the headers
		}
		rest, ok := strings.CutPrefix(l, "committer ")
		if !ok {
			continue
		}
		f := strings.Fields(rest[strings.LastIndexByte(rest, '>')+1:])
		if len(f) != 2 {
			return time.Time{}
		}
		if t, err := strconv.ParseInt(f[0], 10, 64); err == nil && t > 0 {
			return time.Unix(t, 0)
		}
		return time.Time{}
	}
	return time.Time{}
}

// A submodule is judged, at capture and after, by the commit the
// repository records for it (git's index), not by what is checked out
// inside it: a submodule moved to another commit is changed once that is
// staged, and one not checked out (a clone without --recurse-submodules)
// is not gone.

// treeKey names the commit and the git index that renames and commit
// times are derived from: HEAD, and the index file's stat.
func (k *Checker) treeKey() string {
	head := gitrepo.ReadHead(k.Root, k.Getenv).Commit
	key := head
	if r, err := gitrepo.FindRepo(k.Root, k.Getenv); err == nil {
		if fi, err := os.Stat(filepath.Join(r.GitDir, "index")); err == nil {
			key += ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + ":" + strconv.FormatInt(fi.Size(), 10)
		}
	}
	return key
}

// follow looks for the gone anchors under other paths: moved since HEAD
// (staged, or changed in tracked files), or moved by the commits of
// HEAD's history (see moved), or, where no commit of this clone held the
// path, the anchored content unchanged at another tracked path. It also
// dates each gone path's last commit.
func (k *Checker) follow(ctx context.Context, states []State, gone []int) {
	if key := k.treeKey(); key != k.c.tree {
		k.c.setTree(key, k.unchangedSince(ctx, k.c.tree))
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
			var held bool
			to, held = k.moved(ctx, diffs, lastTouched, a.Path)
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
			if ctx.Err() != nil {
				// What git did not answer within the caller's deadline (the
				// prompt hook's) is not known to be nowhere: unchecked, and
				// not cached.
				states[i].Status, states[i].id = Unchecked, unknown
				continue
			}
			k.c.set(moveKey(a.Path, k.AllRenames), field(to))
			k.dirty = true
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
// HEAD (git diff --name-only from it). Nil when that cannot be told: all
// are derived again.
func (k *Checker) unchangedSince(ctx context.Context, tree string) func(key, value string) bool {
	head, _, _ := strings.Cut(tree, ":")
	if head == "" {
		return nil
	}
	args := []string{"diff", "--name-only", "--no-renames", "-z", head, "--"}
	if k.Exclude != "" {
		args = append(args, ".", ":(exclude)"+k.Exclude)
	}
	out, err := k.git(ctx, "", args...)
	if err != nil {
		return nil
	}
	changed := map[string]bool{}
	for p := range strings.SplitSeq(out, "\x00") {
		changed[p] = true
	}
	return func(key, value string) bool {
		_, path, _ := strings.Cut(key, "\t")
		if changed[unfield(path)] {
			return false
		}
		to := unfield(value)
		return key[0] == 'w' || to == "" || !changed[to]
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
// and whether a commit of this clone held it. A path gone since HEAD is looked for in what
// changed since HEAD. Otherwise the last commit of HEAD's history that
// touched it removed or renamed it: rename detection runs on that commit
// alone (its parents to it), and a new path that a later commit moved
// again is followed the same way. One commit at a time, not the range
// from the anchor's commit: a range of months pairs a deleted file with
// any file added since that looks like it (half the lines alike is
// enough for git), crosses git's rename limit, and costs the prompt hook
// a whole-tree diff after a large checkout.
func (k *Checker) moved(ctx context.Context, diffs map[string]map[string]string, lastTouched func(path string) (string, error), path string) (to string, held bool) {
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
			return to, true
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
			return "", hop > 0
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
			return p, true // no commit since the move touched it: there at HEAD
		}
		if len(f) < 2 {
			return "", false
		}
		commit, next, found := f[1], "", false
		for _, parent := range f[2:] {
			if next, found = diff(parent, commit)[p]; found {
				break
			}
		}
		switch {
		case !found && hop == 0:
			return "", true // held at HEAD, yet gone: nothing says where
		case !found:
			return p, true // no later commit touched it: there at HEAD
		case next == "":
			// Deleted: dated by the commit that deleted it, which a moved
			// path's own last commit (the move) is not.
			k.c.set(whenKey(path), f[0])
			return "", true
		}
		// A file at the new path is where it went: a later commit that
		// moved it away and put another file there is rare, and each
		// hop's history walk costs the prompt hook tens of milliseconds.
		if _, err := os.Lstat(filepath.Join(k.Root, filepath.FromSlash(next))); err == nil {
			return next, true
		}
		p, since = next, commit
	}
	return "", true
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

// unknown is the object ID of a file git failed to hash (no git, a
// timeout, a file it may not read): such an anchor is Unchecked, neither
// fresh nor changed, as nothing is known of it.
const unknown = "?"

// ForStore is the checker for the records of the store in dir: anchors
// are relative to the git repository holding it, and the cache is the
// store's own (.local/anchors). It is nil outside a git repository.
func ForStore(dir string, getenv func(string) string) *Checker {
	r, err := gitrepo.FindRepo(dir, getenv)
	if err != nil {
		return nil
	}
	k := NewChecker(Repo{Root: r.Root, Getenv: getenv}, filepath.Join(dir, store.LocalDir, "anchors"))
	if rel, err := filepath.Rel(r.Root, dir); err == nil && record.CleanRepoPath(filepath.ToSlash(rel)) {
		k.Exclude = filepath.ToSlash(rel)
	}
	return k
}
