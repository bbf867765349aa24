package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"lore/gitrepo"
	"lore/index"
	"lore/store"
)

const doctorHelp = `Usage: lore doctor [--fix] [--json]

Check the store: every shard reads and parses (file:line), no torn last lines or git
conflict markers, no two different versions of a record at the same
timestamp, no record from a newer lore, none dated over an hour ahead of
this machine's clock, lore's .gitattributes and .gitignore in place, no
rule that keeps the store from git, no store file git left unmerged, no
shard that is a Git LFS pointer, no leftover temporary files, no secret
already stored, no version a merge made apart from the one in force (a
revision on another branch that the one in force overrides unseen, a
pattern's validations that are not counted).

--fix takes out of a shard only what it can prove is not a record: a JSONL
shard's torn last line (no newline, JSON cut short: an interrupted write)
and its conflict-marker lines (the records on both sides stay), moved to
.lore/.local/quarantine/. It joins a record a formatter spread over several
lines back into one line, and separates a record appended after a torn
fragment on its line. It keeps both sides of a patterns file in merge
conflict when each side only added tables, writes one version of a pattern
that counts the validations made apart (once the merge is committed), writes
lore's missing attribute lines (keeping the file's own) and removes old
temporary files. A line or [[pattern]] table that does not
parse or validate may be a record with a typo, and shards are committed: it
is never removed. Doctor names its file:line and what is wrong; edit it by
hand, then run lore doctor again. Every rewrite is atomic and is refused if
it would lose a record.

It also counts the records whose anchored code changed, moved or vanished
('lore stale' lists them); those are not problems of the store. And it
checks every shard against lore's index, which other commands trust by
directory: a shard edited in place by hand is read again.

Exits 1 while problems remain.`

func cmdDoctor(ctx context.Context, e *env, args []string) error {
	fs := newFlags("doctor")
	fix := fs.Bool("fix", false, "repair what is safe to repair")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, doctorHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("doctor"), "doctor takes no arguments")
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	probs, err := s.Doctor(*fix)
	if err != nil {
		return err
	}
	if p, ok := e.leftOut(ctx, s); ok {
		probs = append(probs, p)
	}
	// Doctor reads every shard; it brings the index up to date as
	// thoroughly, so that a shard edited in place by hand (which no other
	// command looks for, see index.SnapshotOptions.Thorough) is read again.
	thorough := indexOptions
	thorough.Thorough = true
	snap, snapErr := index.Open(ctx, s, thorough)
	stale, anchored := 0, 0
	if snapErr == nil {
		// What the index held wrongly, doctor set right: said, as a
		// repair is (it printed "no problems" over a damaged index).
		for _, r := range snap.Repaired {
			probs = append(probs, store.Problem{File: r.File, Kind: r.Kind, Message: r.Message, Fixed: true})
		}
		stale, anchored = e.countStale(ctx, s, snap)
	}
	// An index that cannot be written serves every command from the
	// shards it reads again: correct, and slower as the store grows. (One
	// that cannot be opened is a store problem doctor names above.)
	if snapErr == nil && snap.Unsaved != nil {
		probs = append(probs, store.Problem{File: s.Rel(filepath.Join(s.Dir, store.LocalDir, store.IndexDir)), Kind: "index-unwritable",
			Message: "the index cannot be written (" + snap.Unsaved.Error() + "): every command reads again what changed since it was; free the disk, make the index writable, or remove what is in the way"})
	}
	open, notes := 0, 0
	for _, p := range probs {
		switch {
		case p.Fixed:
		case p.Note:
			notes++
		default:
			open++
		}
	}
	if *asJSON {
		if probs == nil {
			probs = []store.Problem{}
		}
		if err := e.printJSON(map[string]any{"ok": open == 0, "problems": probs, "anchored": anchored, "stale": stale}); err != nil {
			return err
		}
	} else {
		fixable := 0
		for _, p := range probs {
			switch {
			case p.Fixed:
				// What doctor did, not what it found: a diagnostic.
				fmt.Fprintf(e.stderr, "lore: fixed: %s\n", lineSafe(p.String()))
			case p.Note && p.Fixable:
				fmt.Fprintf(e.stdout, "note: %s (--fix repairs it)\n", p)
			case p.Note:
				fmt.Fprintf(e.stdout, "note: %s\n", p)
			case p.Fixable:
				fixable++
				fmt.Fprintf(e.stdout, "%s (--fix repairs it)\n", p)
			default:
				fmt.Fprintln(e.stdout, p)
			}
		}
		if stale > 0 {
			fmt.Fprintf(e.stderr, "lore: doctor: %d of %d anchored records have code that changed, moved or vanished (lore stale lists them)\n", stale, anchored)
		}
		switch fixed := len(probs) - open - notes; {
		case open == 0 && fixed == 0:
			fmt.Fprintln(e.stderr, "lore: doctor: no problems")
		case open == 0:
			fmt.Fprintf(e.stderr, "lore: doctor: fixed %d problem%s\n", fixed, plural(fixed))
		default:
			fmt.Fprintf(e.stderr, "lore: doctor: %d problem%s, %d repairable with --fix\n", open, plural(open), fixable)
		}
	}
	if open > 0 {
		return &cliError{code: exitFailure, msg: fmt.Sprintf("doctor found %d problem%s", open, plural(open))}
	}
	return nil
}

// leftOut reports the store's tracked files a sparse checkout leaves out
// (git ls-files -t tags them S): every command then reads part of the
// memory as if it were all of it, and --fix would write where git does not
// look. Without git, nothing is reported.
func (e *env) leftOut(ctx context.Context, s *store.Store) (store.Problem, bool) {
	out, err := gitrepo.Run(ctx, e.getenv, s.Dir, "ls-files", "-t", "-z", "--", ".")
	if err != nil {
		return store.Problem{}, false
	}
	tracked, skipped := 0, 0
	for _, entry := range strings.Split(out, "\x00") {
		if entry == "" {
			continue
		}
		tracked++
		if strings.HasPrefix(entry, "S ") {
			skipped++
		}
	}
	if skipped == 0 {
		return store.Problem{}, false
	}
	name := filepath.Base(s.Dir)
	return store.Problem{File: name + "/", Kind: "sparse", Message: fmt.Sprintf(
		"this checkout leaves out %d of the store's %d tracked files (sparse checkout), so lore reads part of the memory: git sparse-checkout add %s", skipped, tracked, name)}, true
}

// countStale is how many records in force have anchored code that moved
// on, of how many are anchored; zeros when that cannot be told.
func (e *env) countStale(ctx context.Context, s *store.Store, snap *index.Snapshot) (stale, anchored int) {
	k := e.codeChecker(s)
	if k == nil {
		return 0, 0
	}
	out, anchored := staleRecords(ctx, snap, k)
	return len(out), anchored
}
