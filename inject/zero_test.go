package inject

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/anchor"
	"lore/index"
	"lore/record"
)

// A kind weighted 0 in config.toml is never injected, even when it is all
// that matches (the best score is 0 too, and 0 is within any share of it),
// and the reason names the weight.
func TestZeroWeightIsNeverInjected(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	recs := []*record.Record{
		{V: 1, ID: "dec-roundxxx", Kind: record.Decision, Text: "Round invoice totals half-up", Rationale: "matches the ledger", Time: now, Created: now},
		{V: 1, ID: "obs-roundxxx", Kind: record.Observation, Text: "Invoice totals were rounded half-up in the ledger export", Time: now, Created: now},
	}
	for _, c := range []struct {
		weights map[string]float64
		zero    string // the record weighted 0
	}{
		{map[string]float64{"decision": 0, "observation": 0}, "dec-roundxxx"}, // the best is 0 as well
		{map[string]float64{"decision": 0}, "dec-roundxxx"},
		{map[string]float64{"observation": 0}, "obs-roundxxx"},
	} {
		cfg := defaultConfig(t)
		for k, w := range c.weights {
			cfg.Weights[k] = w
		}
		ix := NewIndex(index.SnapshotOf(recs, Tokenizer()), cfg)
		res := ix.Rank("round invoice totals half-up in the ledger", Options{Now: now})
		found := false
		for _, sc := range res {
			if sc.Rec.ID != c.zero {
				continue
			}
			found = true
			if sc.Score != 0 {
				t.Fatalf("%v: %s scores %v, the test needs 0", c.weights, sc.Rec.ID, sc.Score)
			}
			if sc.Inject {
				t.Errorf("%v: %s, weighted 0, is injected: %s", c.weights, sc.Rec.ID, sc.Why)
			}
			if want := "the weight of " + string(sc.Rec.Kind) + " is 0"; !strings.Contains(sc.Why, want) {
				t.Errorf("%v: reason %q does not say %q", c.weights, sc.Why, want)
			}
		}
		if !found {
			t.Errorf("%v: %s is no candidate", c.weights, c.zero)
		}
		r := PromptContext(ix, cfg, "round invoice totals half-up in the ledger", DefaultBudget, now, nil)
		if strings.Contains(r.Text, c.zero) {
			t.Errorf("%v: the block shows %s:\n%s", c.weights, c.zero, r.Text)
		}
	}
}

// Ranking checks anchored code under Options.Context: the prompt hook's
// deadline bounds the git runs. Past it, git is not asked, and the code is
// not claimed unchanged.
func TestRankChecksCodeUnderTheContext(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "invoice.go"), []byte("package billing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "init")
	repo := anchor.Repo{Root: dir, Getenv: func(string) string { return "" }}
	as, err := repo.Resolve(context.Background(), dir, []anchor.Spec{{Path: "invoice.go"}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	recs := []*record.Record{{V: 1, ID: "dec-roundxxx", Kind: record.Decision, Text: "Round invoice totals half-up",
		Anchors: as, Time: now, Created: now}}
	cfg := defaultConfig(t)
	rank := func(ctx context.Context) Scored {
		t.Helper()
		ix := NewIndex(index.SnapshotOf(recs, Tokenizer()), cfg).CheckAnchors(anchor.NewChecker(repo, filepath.Join(t.TempDir(), "anchors")))
		res := ix.Rank("round invoice totals", Options{Now: now, Context: ctx})
		if len(res) != 1 {
			t.Fatalf("%d results", len(res))
		}
		return res[0]
	}
	if sc := rank(nil); sc.Stale != "" {
		t.Errorf("no context: the code is %q, want unchanged", sc.Stale)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if sc := rank(done); sc.Stale != "invoice.go not checked: git gave no answer for it" {
		t.Errorf("past the deadline: the code is %q, want not checked", sc.Stale)
	}
}
