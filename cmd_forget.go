package main

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"lore/gitrepo"
	"lore/record"
)

const forgetHelp = `Usage: lore forget <id> --purge [--yes]

Remove every version of a record from the store's files: the one rewrite
lore does, for a record captured by mistake (a secret that slipped past the
scrubber, say). To retire a record normally, append instead: lore journal
abandon, lore patterns deprecate, lore inbox dismiss.

It asks for confirmation on stdin; --yes skips that for scripts. Git history
still holds the record afterwards: lore names the commits and how to purge
them.`

func cmdForget(_ context.Context, e *env, args []string) error {
	fs := newFlags("forget")
	purge := fs.Bool("purge", false, "remove every version of the record from the files")
	yes := fs.Bool("yes", false, "do not ask for confirmation")
	if err := e.parse(fs, forgetHelp, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError("run 'lore forget --help'", "forget: want one record ID")
	}
	if !*purge {
		return usageError("to retire a record without deleting it, use 'lore journal abandon', 'lore patterns deprecate' or 'lore inbox dismiss'",
			"forget deletes history, so it needs --purge")
	}
	set, id, err := e.loadRecord(fs.Arg(0))
	if err != nil {
		return err
	}
	hist := set.History(id)
	if !*yes {
		fmt.Fprintf(e.stderr, "lore: purge %s (%q, %d version%s) from the store's files? Type yes: ", record.ShortID(id),
			record.CutText(set.Get(id).Title(), 60), len(hist), plural(len(hist)))
		answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
		if strings.TrimSpace(answer) != "yes" {
			return &cliError{code: exitFailure, msg: "not purged: no confirmation", hint: "type yes at the prompt, or pass --yes"}
		}
	}
	p, err := e.store.Purge(id)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "purged %s: %d version%s from %s\n", record.ShortID(id), p.Versions, plural(p.Versions), strings.Join(p.Files, ", "))
	fmt.Fprintln(e.stderr, "lore: git history still holds the record"+commitsHolding(filepath.Dir(e.store.Dir), id)+".")
	fmt.Fprintln(e.stderr, "lore: to purge it from history too, rewrite those commits (git filter-repo, or an interactive rebase before pushing),")
	fmt.Fprintln(e.stderr, "lore: force-push, and have collaborators re-clone; if it held a secret, rotate the secret now.")
	return nil
}

// commitsHolding names the commits that added or removed id, if any.
func commitsHolding(repo, id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := gitrepo.Run(ctx, repo, "log", "--all", "--format=%h", "-S"+id, "--", ".")
	if err != nil || len(strings.TrimSpace(out)) == 0 {
		return " if it was ever committed"
	}
	return " in commit(s) " + strings.Join(strings.Fields(out), ", ")
}
