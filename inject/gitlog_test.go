package inject

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"lore/gitrepo"
)

// The log stops at 51 commits: past 50, the count of those not listed is
// a floor too ("50+ commits … 40 more" read as if there were 50, where a
// rebase onto upstream had brought 723).
func TestCommitsPastTheLogSayTheyAreMore(t *testing.T) {
	for _, c := range []struct {
		n          int
		head, tail string
	}{
		{12, "12 commits since the handoff", "… 2 more (git log)"},
		{50, "50 commits since the handoff", "… 40 more (git log)"},
		{51, "50+ commits since the handoff", "… 40+ more (git log)"},
	} {
		g := &GitChanges{Branch: "main", Since: "abc1234def"}
		for i := range c.n {
			g.Commits = append(g.Commits, fmt.Sprintf("c%06d subject %d", i, i))
		}
		got := g.text()
		if !strings.Contains(got, c.head) || !strings.Contains(got, c.tail) {
			t.Errorf("%d commits:\n%s\nwant %q and %q", c.n, got, c.head, c.tail)
		}
	}
}

// A git log cut off by the deadline says so; it said the handoff's commit
// was not in the clone's history, which the agent took as fact.
func TestGitLogPastTheDeadlineSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := &GitSource{Dir: t.TempDir(), Getenv: func(string) string { return "" },
		Status: func() (*gitrepo.Status, error) { return &gitrepo.Status{Branch: "main", Head: "abc1234"}, nil }}
	g := ReadGitChanges(ctx, src, Since{Commit: "abc1234def"})
	if !strings.Contains(g.Note, "did not answer in time") || strings.Contains(g.text(), "not in this clone") {
		t.Errorf("past the deadline: %q", g.text())
	}
}
