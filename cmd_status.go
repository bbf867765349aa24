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

const statusHelp = `Usage: lore status [--verbose] [--json]

What the store gained that git does not have yet: record versions added
since the last commit, and those not yet on the upstream branch, by kind
(new records, revisions, and versions edited by hand), and the versions
git would lose there (removed from the shards: a revert, git rm, a shard
deleted, a line edited out); then what the upstream branch gained since
HEAD left it, not pulled yet. It asks git about the store's own path only,
and finds the shards changed since git last looked by comparing lore's
index with git's, so it stays cheap in a large repository and store.

Under each kind not pulled yet are its records (ID, what changed,
headline), as the upstream has them: a pull brings them, and until then
no other command can show them. --verbose lists the records behind every
count. Up to 10 records of a kind are listed; --json lists them all.`

func cmdStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlags("status")
	verbose := fs.BoolP("verbose", "v", false, "list the records behind every count, not only those not pulled yet")
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
	// The records behind the counts of one's own side are in this
	// checkout (lore list shows them): listed on request. Those not
	// pulled yet are nowhere else to be seen.
	by := e.byWhom(s)
	e.printCounts("Since the last commit", st.Uncommitted, *verbose, by)
	if st.Upstream != "" {
		e.printCounts("Not yet on "+st.Upstream, st.Unpushed, *verbose, by)
	}
	if len(st.NotPulled) > 0 {
		e.printCounts("On "+st.Upstream+", not pulled yet", st.NotPulled, true, by)
	}
	return nil
}

// maxStatusRecords bounds the records listed under a kind's counts.
const maxStatusRecords = 10

// printCounts prints a section's counts by kind, and with records the
// records behind them, under their kind; by ends a line with who wrote the
// version, when another person did.
func (e *env) printCounts(title string, c status.Counts, records bool, by func(*record.Record) string) {
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
			if records {
				e.printChanges(kc.Records, by)
			}
		}
	}
}

// printChanges lists the records behind a kind's counts, the first
// maxStatusRecords of them.
func (e *env) printChanges(chs []*status.Change, by func(*record.Record) string) {
	for i, ch := range chs {
		if i == maxStatusRecords {
			fmt.Fprintf(e.stdout, "    … %d more (lore status --json lists them all)\n", len(chs)-i)
			return
		}
		status := ""
		if ch.Status != record.StatusActive && ch.Status != record.StatusPurged {
			status = " [" + termSafe(record.OneLine(ch.Status)) + "]" // as lore list marks it
		}
		fmt.Fprintf(e.stdout, "    %-13s %-7s %s%s%s\n", termSafe(record.ShortID(ch.ID)), ch.Change,
			termSafe(record.CutText(ch.Title, maxListTitle)), status, by(ch.Rec))
	}
}
