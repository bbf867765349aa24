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
	Branch      string    `json:"branch"`
	Since       string    `json:"since,omitempty"`     // the handoff's commit
	SinceTime   time.Time `json:"since_time,omitzero"` // or its time, made before the first commit
	Commits     []string  `json:"commits"`             // "abc1234 subject", newest first
	Uncommitted []string  `json:"uncommitted"`         // porcelain lines, such as "M lore/store.go"
	Note        string    `json:"note,omitempty"`
}

const maxListed = 10

// ReadGitChanges asks the git binary rather than go-git: go-git's status
// hashes the whole worktree (hundreds of milliseconds on a large
// repository), while git's uses the index's stat cache; both calls are
// bounded by ctx. Without git, the view says so and carries on.
// since is the handoff's commit; when the handoff was made before the first
// commit, sinceTime (its timestamp) stands in.
func ReadGitChanges(ctx context.Context, repoDir, since string, sinceTime time.Time) *GitChanges {
	g := &GitChanges{Since: since}
	out, err := gitrepo.Run(ctx, repoDir, "status", "--porcelain=v1", "--branch", "--untracked-files=normal")
	if err != nil {
		g.Note = "git status unavailable: " + err.Error()
		return g
	}
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if i == 0 && strings.HasPrefix(line, "## ") {
			b := strings.TrimPrefix(line, "## ")
			b, _, _ = strings.Cut(b, "...")
			b = strings.TrimPrefix(b, "No commits yet on ")
			if strings.HasPrefix(b, "HEAD (no branch)") {
				b = "(detached HEAD)"
			}
			g.Branch = b
			continue
		}
		if line != "" {
			g.Uncommitted = append(g.Uncommitted, strings.TrimSpace(line))
		}
	}
	rng := since + "..HEAD"
	if since == "" {
		if sinceTime.IsZero() {
			return g
		}
		rng = fmt.Sprintf("--since=@%d", sinceTime.Unix())
		g.SinceTime = sinceTime
	}
	out, err = gitrepo.Run(ctx, repoDir, "log", "--format=%h %s", "-n", "51", rng)
	if err != nil {
		g.Note = "the handoff's commit " + short(since) + " is not in this clone's history"
		return g
	}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if l != "" {
			g.Commits = append(g.Commits, l)
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
