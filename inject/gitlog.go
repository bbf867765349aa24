package inject

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
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
	out, err := gitCmd(ctx, repoDir, "status", "--porcelain=v1", "--branch", "--untracked-files=normal")
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
	out, err = gitCmd(ctx, repoDir, "log", "--format=%h %s", "-n", "51", rng)
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

func gitCmd(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	// core.fsmonitor names a program the repository's config could make
	// git run; lore never lets it.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "--no-optional-locks", "-c", "core.fsmonitor=false"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			first, _, _ := strings.Cut(msg, "\n")
			return "", &gitError{first}
		}
		return "", err
	}
	return stdout.String(), nil
}

type gitError struct{ msg string }

func (e *gitError) Error() string { return e.msg }

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
