package main

import (
	"context"
	"fmt"
	"path/filepath"

	"lore/failures"
	"lore/inject"
)

const resumeHelp = `Usage: lore resume [--json] [--budget N] [--no-git]

Where the last session left off: the latest handoff (summary, next steps,
blockers; and yours, when a teammate's is newer), what git says happened since it (commits since the handoff's
commit, the branch, uncommitted files), the failures recorded since it,
recent decisions, the most trusted patterns, recurring failures and the
inbox. With --budget, the view is the
block the SessionStart hook injects, cut to N tokens.`

func cmdResume(ctx context.Context, e *env, args []string) error {
	fs := newFlags("resume")
	asJSON := fs.Bool("json", false, "print JSON")
	budget := fs.Int("budget", 0, "fit the view into `N` tokens, as the session-start hook does")
	noGit := fs.Bool("no-git", false, "skip the git changes")
	if err := e.parse(fs, resumeHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("resume"), "resume takes no arguments")
	}
	if err := checkBudget(fs, "resume", *budget, inject.MinBudget, "block"); err != nil {
		return err
	}
	if *asJSON && fs.Changed("budget") {
		return usageError(helpHint("resume"), "resume: --budget cuts the text block to size; --json is the whole view: use one")
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	var git *inject.GitSource
	if !*noGit {
		git = inject.StartGit(ctx, e.getenv, filepath.Dir(s.Dir), s.Dir) // git works while the index is read
	}
	snap, err := e.snapshotOf(ctx, s)
	if err != nil {
		return err
	}
	v := inject.BuildResume(ctx, snap, inject.ResumeOptions{Git: git, FailureIDs: *asJSON, Author: s.Origin().Author})
	v.CheckAnchors(ctx, e.codeChecker(s))
	if *asJSON {
		out := map[string]any{
			"handoff":            nil,
			"git":                v.Git,
			"decisions":          recordsJSON(v.Decisions),
			"patterns":           recordsJSON(v.Patterns),
			"recent_failures":    recordsJSON(v.Recent),
			"recurring_failures": append([]failures.Trigger{}, v.Failures...), // [], not null
			"inbox":              v.Inbox,
			"stale":              v.Stale,
		}
		if v.Handoff != nil {
			out["handoff"] = recordJSON(v.Handoff)
		}
		if v.Own != nil {
			out["own_handoff"] = recordJSON(v.Own)
		}
		return e.printJSON(out)
	}
	if *budget > 0 {
		r := inject.ResumeContext(v, *budget, false, s.Config.Loop.Teach)
		fmt.Fprintln(e.stdout, r.Text)
		return nil
	}
	for i, en := range v.Entries() {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintln(e.stdout, inject.Sanitize(en.Full))
	}
	if s.Config.Loop.Teach {
		fmt.Fprintln(e.stdout)
		fmt.Fprintln(e.stdout, inject.Teach)
	}
	return nil
}
