package inject

import (
	"context"
	"fmt"
	"strings"
	"time"

	"lore/gitrepo"
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
	Missing     int      `json:"missing_from_head,omitempty"`
	Uncommitted []string `json:"uncommitted"` // porcelain lines, such as "M lore/store.go"
	Note        string   `json:"note,omitempty"`
	noStatus    bool     // git status failed: nothing is known of the working tree
}

const maxListed = 10

// GitSource is where the resume view reads git: one status of the
// repository outside the store, started in the background while the store
// is read, and the repository to ask for the log.
type GitSource struct {
	Dir    string
	Getenv func(string) string // git's variables, as gitrepo.Run takes them
	Status func() (*gitrepo.Status, error)
}

// StartGit starts git status of repoDir, leaving out the store at storeDir:
// the view is about the code; lore status counts the records.
func StartGit(ctx context.Context, getenv func(string) string, repoDir, storeDir string) *GitSource {
	return &GitSource{Dir: repoDir, Getenv: getenv, Status: gitrepo.StartStatus(ctx, getenv, repoDir, storeDir)}
}

// ReadGitChanges asks the git binary rather than go-git: go-git's status
// hashes the whole worktree (hundreds of milliseconds on a large
// repository), while git's uses the index's stat cache; both calls are
// bounded by ctx. Without git, the view says so and carries on.
// since is the handoff's commit; when the handoff was made before the first
// commit, sinceTime (its timestamp) stands in.
func ReadGitChanges(ctx context.Context, src *GitSource, since string, sinceTime time.Time) *GitChanges {
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
	if since != "" || !sinceTime.IsZero() {
		go func() {
			out, err := gitrepo.Run(ctx, src.Getenv, src.Dir, append([]string{"log", "--format=%m%h %s", "-n", "102"}, rng...)...)
			logged <- result{out, err}
		}()
	} else {
		close(logged)
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
		if b := gitrepo.ReadHead(src.Dir, src.Getenv).Branch; b != "" {
			g.Branch = b + " (rebasing)"
		}
	}
	for _, c := range st.Changes {
		g.Uncommitted = append(g.Uncommitted, strings.TrimSpace(c))
	}
	log, ok := <-logged
	switch {
	case !ok || st.Head == "":
		return g // nothing to log from, or no commit yet
	case log.err != nil && ctx.Err() != nil:
		g.Note = "git log did not answer in time: the commits since the handoff are not known"
		return g
	case log.err != nil:
		g.Note = "the handoff's commit " + short(since) + " is not in this clone's history"
		return g
	}
	for _, l := range strings.Split(strings.TrimRight(log.out, "\n"), "\n") {
		switch {
		case l == "":
		case l[0] == '<':
			g.Missing = min(g.Missing+1, 51)
		case len(g.Commits) < 51:
			g.Commits = append(g.Commits, l[1:]) // after its mark, '>'
		}
	}
	return g
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
