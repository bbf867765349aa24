package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"lore/gitrepo"
	"lore/index"
	"lore/inject"
	"lore/record"
	"lore/store"
)

const forgetHelp = `Usage: lore forget <id> --purge [--yes]

Remove every version of a record from the store's files: the one rewrite
lore does, for a record captured by mistake (a secret that slipped past the
scrubber, say). To retire a record normally, append instead: lore journal
abandon, lore patterns deprecate, lore inbox dismiss.

A tombstone (the ID, nothing the record said) stays, so that a version
another branch holds, merged later, stays purged: lore doctor names it,
and forget --purge again removes it.

Promotion copies a record's text into the record it becomes, so the records
derived from it (the record it was promoted to, any record made from it, and
theirs in turn) are purged with it, every version of each. Other records
that contain its text are named in a warning and left alone.

It lists what it will purge and asks for confirmation on stdin; --yes skips
that for scripts. Git history still holds the records afterwards: lore names
the commits and how to purge them.`

func cmdForget(_ context.Context, e *env, args []string) error {
	fs := newFlags("forget")
	purge := fs.Bool("purge", false, "remove every version of the record, and of those derived from it, from the files")
	yes := fs.Bool("yes", false, "do not ask for confirmation")
	if err := e.parse(fs, forgetHelp, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError(helpHint("forget"), "forget: want one record ID")
	}
	if !*purge {
		return usageError("to retire a record without deleting it, use 'lore journal abandon', 'lore patterns deprecate' or 'lore inbox dismiss'",
			"forget deletes history, so it needs --purge")
	}
	set, id, err := e.loadRecord(fs.Arg(0))
	if err != nil {
		return err
	}
	ids := set.Lineage(id)
	if len(set.Content(id)) == 0 {
		return &store.NotFoundError{Ref: record.ShortID(id), Purged: true}
	}
	if !*yes {
		lines := make([]string, len(ids))
		for i, d := range ids {
			vs := set.Content(d)
			n := len(vs)
			title := ""
			if n > 0 {
				title = vs[n-1].Title()
			}
			lines[i] = fmt.Sprintf("%s (%q, %d version%s", record.ShortID(d), record.CutText(title, 60), n, plural(n))
			if d != id {
				lines[i] += ", derived from " + record.ShortID(id)
			}
			lines[i] += ")"
		}
		if len(ids) == 1 {
			fmt.Fprintf(e.stderr, "lore: purge %s from the store's files? Type yes: ", lines[0])
		} else {
			fmt.Fprintf(e.stderr, "lore: purge these %d records from the store's files?\nlore:   %s\nlore: Type yes: ", len(ids), strings.Join(lines, "\nlore:   "))
		}
		answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
		if strings.TrimSpace(answer) != "yes" {
			return &cliError{code: exitFailure, msg: "not purged: no confirmation", hint: "type yes at the prompt, or pass --yes"}
		}
	}
	purged, err := e.store.Purge(ids...)
	if err != nil {
		return err
	}
	if err := index.Drop(e.store); err != nil { // its segments still hold the text
		// The purge itself is done: say so, and what is left to do.
		e.warn("purged from the shards, but the index, which may hold a copy, could not be removed (%v): delete %s by hand", err, filepath.Join(e.store.Dir, store.LocalDir, "index*"))
	}
	for _, p := range purged {
		if p.Versions == 0 {
			continue
		}
		fmt.Fprintf(e.stderr, "lore: purged %s: %d version%s from %s\n", record.ShortID(p.ID), p.Versions, plural(p.Versions), lineSafe(strings.Join(p.Files, ", ")))
	}
	// Other records are the user's to judge: a quote may be deliberate,
	// and rewriting them would destroy what else they say.
	if others := set.Quoting(ids); len(others) > 0 {
		for i, o := range others {
			others[i] = record.ShortID(o)
		}
		e.warn("the purged text is still in %s, left untouched: purge (lore forget <id> --purge) or revise them", strings.Join(others, ", "))
	}
	// An export (AGENTS.md, CLAUDE.md) is committed and pushed as the store
	// is: one holding the text must be written again.
	for _, f := range exportsHolding(filepath.Dir(e.store.Dir), set.Texts(ids)) {
		e.warn("the purged text is still in %s, which holds a lore export: run 'lore export --out %s' again", f, f)
	}
	the := "the record"
	if len(ids) > 1 {
		the = "the records"
	}
	fmt.Fprintln(e.stderr, "lore: git history still holds "+the+e.commitsHolding(filepath.Dir(e.store.Dir), ids)+".")
	fmt.Fprintln(e.stderr, "lore: to purge it from history too, rewrite those commits (git filter-repo, or an interactive rebase before pushing),")
	fmt.Fprintln(e.stderr, "lore: force-push, and have collaborators re-clone; if it held a secret, rotate the secret now.")
	return nil
}

// commitsHolding names the commits that added or removed any of ids, if
// any: one git log, the IDs (letters, digits and "-") as alternatives.
func (e *env) commitsHolding(repo string, ids []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := gitrepo.Run(ctx, e.getenv, repo, "log", "--all", "--format=%h", "--pickaxe-regex", "-S"+strings.Join(ids, "|"), "--", ".")
	if err != nil || len(strings.TrimSpace(out)) == 0 {
		return " if it was ever committed"
	}
	return " in commit(s) " + strings.Join(strings.Fields(out), ", ")
}

// exportsHolding lists the Markdown files at the top of the repository at
// root (and in .github/) that hold a lore export quoting one of texts: the
// places lore export writes to. A text is looked for by its first line,
// as an export lays a record out.
func exportsHolding(root string, texts []string) []string {
	var needles []string
	for _, t := range texts {
		first, _, _ := strings.Cut(t, "\n")
		if first = strings.TrimSpace(first); len(first) >= 8 {
			needles = append(needles, first)
		}
	}
	var out []string
	for _, dir := range []string{".", ".github"} {
		names, _ := filepath.Glob(filepath.Join(root, dir, "*.md"))
		for _, name := range names {
			// A committed link to /dev/zero is not read.
			if fi, err := os.Lstat(name); err != nil || !fi.Mode().IsRegular() || fi.Size() > 4<<20 {
				continue
			}
			b, err := os.ReadFile(name)
			data := string(b)
			if err != nil || !strings.Contains(data, inject.ExportTitle) {
				continue
			}
			if slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(data, n) }) {
				rel, _ := filepath.Rel(root, name)
				out = append(out, rel)
			}
		}
	}
	return out
}
