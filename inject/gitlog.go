package inject

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/gitrepo"
	"lore/store"
)

// GitChanges is what git says happened since a commit.
type GitChanges struct {
	Branch    string    `json:"branch"`
	Since     string    `json:"since,omitempty"`     // the handoff's commit
	SinceTime time.Time `json:"since_time,omitzero"` // or its time, made before the first commit
	Commits   []string  `json:"commits"`             // "abc1234 subject", newest first
	// Missing counts the commits of the handoff's history that HEAD
	// lacks (made on another branch, or HEAD reset since), up to 51:
	// the handoff speaks of work that is not checked out.
	Missing int `json:"missing_from_head,omitempty"`
	// Brought is the commit of HEAD's history that brought the handoff,
	// counted from when the handoff's own commit is not in HEAD's history
	// because it was rewritten (amended, rebased, squashed, cherry-picked).
	Brought     string   `json:"brought_by,omitempty"`
	Uncommitted []string `json:"uncommitted"` // porcelain lines, such as "M lore/store.go"
	// StoreUncommitted counts the store's files not committed: records
	// that no teammate gets until they are, whatever the code's state.
	StoreUncommitted int    `json:"store_uncommitted"`
	Note             string `json:"note,omitempty"`
	noStatus         bool   // git status failed: nothing is known of the working tree
	store            string // the store's path in the repository, for the hint
}

const maxListed = 10

const logTimedOut = "git log did not answer in time: the commits since the handoff are not known"

// GitSource is where the resume view reads git: one status of the
// repository outside the store, started in the background while the store
// is read, and the repository to ask for the log.
type GitSource struct {
	Dir    string
	Store  string              // the store's directory, where the handoff is recorded
	Getenv func(string) string // git's variables, as gitrepo.Run takes them
	Status func() (*gitrepo.Status, error)
}

// StartGit starts git status of repoDir, leaving out the store at storeDir:
// the view is about the code; lore status counts the records.
func StartGit(ctx context.Context, getenv func(string) string, repoDir, storeDir string) *GitSource {
	return &GitSource{Dir: repoDir, Store: storeDir, Getenv: getenv, Status: gitrepo.StartStatus(ctx, getenv, repoDir, storeDir)}
}

// Since is what the view counts git's changes from: the handoff's commit
// (or its time, when it was made before the first commit), and where the
// handoff is recorded, to find the commit that brought it when its own
// commit was rewritten.
type Since struct {
	Commit string
	Time   time.Time
	ID     string   // the handoff's record ID
	Shards []string // the store files holding it, relative to the store
}

// ReadGitChanges asks the git binary rather than go-git: go-git's status
// hashes the whole worktree (hundreds of milliseconds on a large
// repository), while git's uses the index's stat cache; both calls are
// bounded by ctx. Without git, the view says so and carries on.
func ReadGitChanges(ctx context.Context, src *GitSource, from Since) *GitChanges {
	since, sinceTime := from.Commit, from.Time
	g := &GitChanges{Since: since, Commits: []string{}, Uncommitted: []string{}} // [] in JSON, not null
	// After a rebase the handoff's commit is no longer HEAD's ancestor, and
	// since..HEAD would also list the rebased copies of the commits it
	// came after: --cherry-pick drops a commit whose change the handoff's
	// side already holds. With the handoff's commit in HEAD's history the
	// left side is empty and git compares nothing.
	// The left side is what the handoff's history holds and HEAD lacks,
	// rebased copies aside: Missing.
	rng := []string{"--left-right", "--cherry-pick", since + "...HEAD"}
	if since == "" {
		rng = []string{fmt.Sprintf("--since=@%d", sinceTime.Unix())}
		g.SinceTime = sinceTime
	}
	// The log runs alongside the status.
	type result struct {
		out string
		err error
	}
	logged := make(chan result, 1)
	code, storeRel := codePaths(src)
	if since != "" || !sinceTime.IsZero() {
		go func() {
			out, err := gitrepo.Run(ctx, src.Getenv, src.Dir, append(append(logArgs("%m%h %s", 102), rng...), code...)...)
			logged <- result{out, err}
		}()
	} else {
		close(logged)
	}
	storeUncommitted := func() int { return 0 }
	if storeRel != "" {
		storeUncommitted = startStoreUncommitted(ctx, src, storeRel)
		g.store = storeRel
	}
	st, err := src.Status()
	if err != nil {
		g.noStatus = true
		g.Note = "git status unavailable: " + err.Error()
		if _, ferr := gitrepo.FindRepo(src.Dir, src.Getenv); gitrepo.IsNotRepo(ferr) {
			g.Note = "the store is in no git repository"
		}
		return g
	}
	g.Branch = st.Branch
	if g.Branch == "(detached HEAD)" {
		// As lore status and every capture name it: the branch a rebase in
		// progress rewrites (HEAD is detached meanwhile).
		if b := gitrepo.ReadRefs(src.Dir, src.Getenv).Branch; b != "" {
			g.Branch = b + " (rebasing)"
		}
	}
	for _, c := range st.Changes {
		g.Uncommitted = append(g.Uncommitted, strings.TrimSpace(c))
	}
	g.StoreUncommitted = storeUncommitted()
	log, ok := <-logged
	switch {
	case !ok || st.Head == "":
		return g // nothing to log from, or no commit yet
	case log.err != nil && ctx.Err() != nil:
		g.Note = logTimedOut
		return g
	case log.err == nil:
		for _, l := range strings.Split(strings.TrimRight(log.out, "\n"), "\n") {
			switch {
			case l == "":
			case l[0] == '<':
				g.Missing = min(g.Missing+1, 51)
			case len(g.Commits) < 51:
				g.Commits = append(g.Commits, l[1:]) // after its mark, '>'
			}
		}
		if g.Missing == 0 {
			return g
		}
	}
	if log.err != nil && ctx.Err() == nil && shallow(ctx, src) {
		// The history is cut: what brought the handoff may be the cut
		// itself, which would pass for a rewrite.
		g.Note = "the handoff's commit " + short(since) + " is not in this shallow clone's history (git fetch --unshallow)"
		return g
	}
	// The handoff's commit is gone from this clone, or HEAD lacks some of
	// its history. If the handoff is in HEAD's history all the same, its
	// commit was rewritten (an amend, rebase or squash merge that also
	// brought the handoff), and the commits since are those after the one
	// that brought it.
	if b := broughtBy(ctx, src, from); b != "" {
		out, err := gitrepo.Run(ctx, src.Getenv, src.Dir, append(append(logArgs("%h %s", 51), b+"..HEAD"), code...)...)
		if err == nil {
			g.Brought, g.Missing, g.Commits = b, 0, []string{}
			for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				if l != "" {
					g.Commits = append(g.Commits, l)
				}
			}
			return g
		}
	}
	switch {
	case ctx.Err() != nil:
		g.Note = logTimedOut
	case log.err == nil:
	default:
		g.Note = "the handoff's commit " + short(since) + " is not in this clone's history"
	}
	return g
}

// codePaths limits a log to the code: the repository but the store, so
// the commits that only record memory (lore: handoff) are not listed among
// the work since the handoff. It also returns the store's path in the
// repository; both are empty when the store is not inside it.
func codePaths(src *GitSource) (pathspec []string, store string) {
	rel, err := filepath.Rel(src.Dir, src.Store)
	if src.Store == "" || err != nil || !filepath.IsLocal(rel) {
		return nil, ""
	}
	store = filepath.ToSlash(rel)
	return []string{"--", ".", ":(exclude)" + store}, store
}

// startStoreUncommitted counts, in the background, the shards this
// checkout wrote to (store.WrittenShards: its current ones and those it
// wrote before HEAD last moved, which a commit of the code alone leaves
// behind) that are not committed as they are. Git's index, as lore reads
// it, tells the shards git holds as they were added, without running git;
// and when the tree it would write is HEAD's, nothing is staged either: a
// clean store, the usual state at a session's start, costs a few stats.
// Only the shards it cannot vouch for are asked of git status (all of the
// store, should lore not read git's index).
func startStoreUncommitted(ctx context.Context, src *GitSource, storeRel string) func() int {
	done := make(chan int, 1)
	go func() {
		shards := store.WrittenShards(src.Store)
		if len(shards) == 0 {
			done <- 0 // this checkout never captured
			return
		}
		ask := []string{storeRel}
		if repo, err := gitrepo.FindRepo(src.Dir, src.Getenv); err == nil {
			slashed := make([]string, len(shards))
			for i, rel := range shards {
				slashed[i] = filepath.ToSlash(rel)
			}
			if idx, err := gitrepo.ReadIndexOf(repo, storeRel+"/", slashed); err == nil {
				ask = nil
				// A shard added to git's index (git add) but not committed
				// matches it all the same: unless the index holds HEAD's
				// tree, git says which are staged.
				head, ok := repo.HeadTree()
				staged := !ok || idx.Tree != head
				for _, rel := range shards {
					fi, err := os.Lstat(filepath.Join(src.Store, rel))
					if err != nil {
						continue // gone: a checkout removed it
					}
					e, ok := idx.Entries[filepath.ToSlash(rel)]
					if !ok || staged || idx.MayDiffer(e, fi.Size(), fi.ModTime().UnixNano(), gitrepo.Inode(fi)) {
						ask = append(ask, storeRel+"/"+filepath.ToSlash(rel))
					}
				}
			}
		}
		if len(ask) == 0 {
			done <- 0
			return
		}
		out, err := gitrepo.Run(ctx, src.Getenv, src.Dir, append([]string{"status", "--porcelain", "-z", "--untracked-files=all", "--"}, ask...)...)
		if err != nil {
			done <- 0
			return
		}
		done <- strings.Count(out, "\x00")
	}()
	return func() int { return <-done }
}

// logArgs starts a git log of at most n commits in format, in UTF-8
// whatever i18n.logOutputEncoding says: the view is written in UTF-8.
func logArgs(format string, n int) []string {
	return []string{"log", "--encoding=UTF-8", "--format=" + format, "-n", fmt.Sprint(n)}
}

// broughtBy is the oldest commit of HEAD's history that added the handoff's
// ID to a file that holds it ("" if none does, as when the handoff was
// never committed).
func broughtBy(ctx context.Context, src *GitSource, from Since) string {
	if from.ID == "" || len(from.Shards) == 0 || src.Store == "" {
		return ""
	}
	args := []string{"log", "--format=%H", "-S" + from.ID, "HEAD", "--"}
	for _, sh := range from.Shards {
		args = append(args, filepath.Join(src.Store, sh))
	}
	out, err := gitrepo.Run(ctx, src.Getenv, src.Dir, args...)
	lines := strings.Fields(out)
	if err != nil || len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1]
}

// shallow reports a clone whose history was cut (git clone --depth).
func shallow(ctx context.Context, src *GitSource) bool {
	out, err := gitrepo.Run(ctx, src.Getenv, src.Dir, "rev-parse", "--is-shallow-repository")
	return err == nil && strings.TrimSpace(out) == "true"
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
