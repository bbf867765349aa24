package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"lore/index"
	"lore/record"
	"lore/status"
)

const statusHelp = `Usage: lore status [--json]

What the store gained that git does not have yet: record versions added
since the last commit, and those not yet on the upstream branch, by kind
(new records, revisions, and versions edited by hand), and the versions
git would lose there (removed from the shards: a revert, git rm, a shard
deleted, a line edited out); then what the upstream branch gained since
HEAD left it, not pulled yet. It asks git about the store's own path only,
and finds the shards changed since git last looked by comparing lore's
index with git's, so it stays cheap in a large repository and store.`

func cmdStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlags("status")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, statusHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("status"), "status takes no arguments")
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	st, err := status.Of(ctx, s, func() (*index.Snapshot, error) { return e.snapshotOf(ctx, s) })
	if errors.Is(err, status.ErrNoRepo) {
		return &cliError{code: exitFailure, msg: "status: " + err.Error(), hint: "lore list shows the records"}
	}
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	if *asJSON {
		return e.printJSON(st)
	}
	if st.Detached() {
		fmt.Fprint(e.stdout, "On a detached HEAD")
	} else {
		fmt.Fprintf(e.stdout, "On branch %s", st.Branch)
	}
	if st.Upstream != "" {
		fmt.Fprintf(e.stdout, ", tracking %s", st.Upstream)
	}
	if st.Note != "" {
		fmt.Fprintf(e.stdout, " (%s)", st.Note)
	}
	fmt.Fprintln(e.stdout)
	if n := len(st.Conflicted); n > 0 {
		fmt.Fprintf(e.stdout, "In conflict: %d shard%s (%s); counted as the working tree holds them: resolve, then git add\n",
			n, plural(n), strings.Join(st.Conflicted, ", "))
	}
	e.printCounts("Since the last commit", st.Uncommitted)
	if st.Upstream != "" {
		e.printCounts("Not yet on "+st.Upstream, st.Unpushed)
	}
	if len(st.NotPulled) > 0 {
		e.printCounts("On "+st.Upstream+", not pulled yet", st.NotPulled)
	}
	return nil
}

func (e *env) printCounts(title string, c status.Counts) {
	if len(c) == 0 {
		fmt.Fprintf(e.stdout, "%s: nothing new\n", title)
		return
	}
	fmt.Fprintf(e.stdout, "%s:\n", title)
	for _, k := range record.AllKinds() {
		if kc := c[k]; kc != nil {
			fmt.Fprintf(e.stdout, "  %-12s %d new, %d revised", k, kc.New, kc.Revised)
			if kc.Edited > 0 {
				fmt.Fprintf(e.stdout, ", %d edited by hand", kc.Edited)
			}
			if kc.Removed > 0 {
				fmt.Fprintf(e.stdout, ", %d removed", kc.Removed)
			}
			fmt.Fprintln(e.stdout)
		}
	}
}
