package anchor

import (
	"context"
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
	why    string    // for Unchecked: why nothing is known, when not that git gave no answer
}

// reason says why an Unchecked anchor's state is not known, after its
// name: "not checked: git gave no answer for it", or what else.
func (s State) reason() string {
	if s.why != "" {
		return s.why
	}
	return unread
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
	// Prune says the check covers every anchor the store keeps in force
	// (lore stale, doctor): Save keeps only the files and diffs it looked
	// up. Otherwise they stay, and the cache grew with every change (in
	// new-user run 17, moby's went from 583 to 778 KB over eight pulls).
	Prune     bool
	cacheFile string
	c         *cache
	dirty     bool
	now       func() time.Time
	shallow   string // $GIT_COMMON_DIR/shallow, when the clone is shallow (see treeKey)
}

// NewChecker checks anchors in repo, caching in cacheFile.
func NewChecker(repo Repo, cacheFile string) *Checker {
	return &Checker{Repo: repo, cacheFile: cacheFile, now: time.Now}
}

// Check derives the state of each anchor, in the same order.
//
// What git cannot tell (a commit missing from a shallow clone, an object
// not in the repository) is left out rather than guessed: a change it
// cannot count has no lines, and a gone path whose history a shallow
// clone cut is unchecked, not gone.
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
	if k.Prune && k.c.used == nil {
		k.c.used = map[string]bool{}
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
	if k.c != nil && k.c.unused() {
		k.dirty = true // written back without what went unused
	}
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
