package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"lore/anchor"
	"lore/gitrepo"
	"lore/index"
	"lore/record"
	"lore/store"
)

// anchorHelp ends the help of every capture verb: what --file does.
const anchorHelp = `

--file path[:start-end] (repeatable) anchors the record to a file of the
repository, and optionally to its lines: lore remembers the file's content
(its git object ID) and later says when that code changed, moved or went
('lore stale'). Without --file, the record is anchored to the files its
text names that git tracks (anchors.auto in config.toml).`

// anchorTo sets a new record's anchors: the files given, or else the
// tracked files its text names. A --file that cannot be anchored is a
// usage error, and nothing is written.
func (e *env) anchorTo(s *store.Store, r *record.Record, files []string) error {
	ctx := context.Background()
	specs, err := parseSpecs(files)
	if err != nil {
		return e.fileError(err)
	}
	repo, err := e.anchorRepo(s)
	switch {
	case err != nil && len(specs) > 0:
		return e.fileError(&anchor.SpecError{Msg: err.Error()})
	case err != nil:
		return nil // nothing asked for, and nothing to anchor to
	case len(specs) > 0:
		base := e.cwd
		if e.toolFiles {
			base = repo.Root
		}
		r.Anchors, err = repo.Resolve(ctx, base, specs)
		if err != nil {
			return e.fileError(err)
		}
	case s.Config.Anchors.Auto && s.Origin().Commit != "":
		// Not before a first commit, as --file is not: anchors need a
		// history to be checked against.
		r.Anchors = repo.Named(ctx, r.SearchText(), s.Origin().Commit)
		if len(r.Anchors) > 0 {
			// Said, because the one file of that name may be a fixture
			// the text was not about (a wsgi.py in tests/, named by an
			// error message about the user's own).
			var paths []string
			for _, a := range r.Anchors {
				paths = append(paths, a.Path)
			}
			fmt.Fprintf(e.stderr, "lore: anchored to %s, named in the text (lore anchor %s --file PATH to choose, --none to drop)\n",
				lineSafe(strings.Join(paths, ", ")), r.Short())
		}
	}
	return nil
}

// fileError is a file that cannot be anchored as a usage error, named as
// the caller gave it: --file, or lore mcp's file.
func (e *env) fileError(err error) error {
	if !isSpecError(err) {
		return err // git failed, not the file named: exit 1
	}
	var se *anchor.SpecError
	if e.toolFiles && errors.As(err, &se) {
		return usageError("", "%s", se.Named("file"))
	}
	return usageError("", "%v", err)
}

// isSpecError reports whether err is about the --file values or the
// repository's state (no commit yet), which the user changes, rather than
// git failing (missing, too slow, refusing the repository).
func isSpecError(err error) bool {
	var se *anchor.SpecError
	return errors.As(err, &se) || errors.Is(err, anchor.ErrNoCommits)
}

func parseSpecs(files []string) ([]anchor.Spec, error) {
	var specs []anchor.Spec
	for _, f := range files {
		sp, err := anchor.ParseSpec(f)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	return specs, nil
}

// anchorRepo is the repository the store's records are anchored in: the
// one that holds the store.
func (e *env) anchorRepo(s *store.Store) (anchor.Repo, error) {
	r, err := gitrepo.FindRepo(s.Dir, e.getenv)
	if err != nil {
		return anchor.Repo{}, fmt.Errorf("the store %s is not inside a git repository", s.Dir)
	}
	return anchor.Repo{Root: r.Root, Getenv: e.getenv}, nil
}

// codeChecker checks the anchors of s's records (nil outside git).
func (e *env) codeChecker(s *store.Store) *anchor.Checker {
	k := anchor.ForStore(s.Dir, e.getenv)
	if k != nil {
		k.DateLinks = true // stale and show print when the code changed
		// A command may take the time to find every move; the hooks keep
		// git's rename limit (see anchor.Checker.AllRenames).
		k.AllRenames = true
	}
	return k
}

const anchorCmdHelp = `Usage: lore anchor <id> [--file path[:start-end]]... | --none

Re-anchor a record to the code as it is now, as a new version of it. With
--file, the record is anchored to those files instead. Without, each of its
anchors moves to where its file is now (a rename git sees) and to the
file's current content, its line range following its lines past the lines
added and removed above and within it; a file or range that is gone must
be replaced with --file (or the record retired). --none drops its anchors:
the code it was about is gone, and the record stands without it (a
failure or a handoff, which no verb retires).`

func cmdAnchor(ctx context.Context, e *env, args []string) error {
	var o captureOptions
	fs := newFlags("anchor")
	fs.StringArrayVar(&o.files, "file", nil, "anchor to this `path[:start-end]` instead (repeatable)")
	none := fs.Bool("none", false, "drop the record's anchors")
	if err := e.parse(fs, anchorCmdHelp, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError(helpHint("anchor"), "anchor: want one record ID")
	}
	if *none && len(o.files) > 0 {
		return usageError(helpHint("anchor"), "anchor: --none drops the anchors; --file sets them: give one")
	}
	ref := fs.Arg(0)
	kind, ok := record.KindOfID(ref)
	if !ok { // every ID starts with its kind's prefix: no record matches
		return &cliError{code: exitNotFound, hint: "anchor takes a record ID (dec-…, pat-…, fail-…, ho-…, obs-…); to anchor one to other code: lore anchor ID --file PATH",
			msg: fmt.Sprintf("no record matches %q", ref)}
	}
	specs, err := parseSpecs(o.files)
	if err != nil {
		return e.fileError(err)
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	repo, err := e.anchorRepo(s)
	if err != nil {
		return usageError("", "anchor: %v", err)
	}
	var anchors []record.Anchor
	if len(specs) > 0 {
		if anchors, err = repo.Resolve(ctx, e.cwd, specs); err != nil {
			if !isSpecError(err) {
				return fmt.Errorf("anchor: %w", err)
			}
			return usageError("", "anchor: %v", err)
		}
	}
	k := e.codeChecker(s)
	return e.update(s, kind, ref, func(r *record.Record) error {
		next := anchors
		if !*none && len(specs) == 0 {
			var err error
			if next, err = reanchor(ctx, repo, k, r); err != nil {
				return err
			}
		}
		if slices.Equal(next, r.Anchors) {
			return record.ErrUnchanged
		}
		r.Anchors = next
		return nil
	}, "re-anchored", "is anchored to the code as it is")
}

// reanchor follows r's anchors to where their code is now; one that
// cannot be followed is a usage error.
func reanchor(ctx context.Context, repo anchor.Repo, k *anchor.Checker, r *record.Record) ([]record.Anchor, error) {
	if len(r.Anchors) == 0 {
		return nil, usageError("name its files with --file", "anchor: %s has no anchors", r.Short())
	}
	fol := follow(ctx, k, r)
	specs := make([]anchor.Spec, len(fol))
	for i, f := range fol {
		if f.lost != "" {
			return nil, usageError(f.hint, "anchor: %s: %s", r.Short(), f.lost)
		}
		specs[i] = f.spec
	}
	out, err := repo.Resolve(ctx, repo.Root, specs)
	if err != nil {
		return nil, usageError("anchor it with --file", "anchor: %s: %v", r.Short(), err)
	}
	return out, nil
}

// followed is where one of a record's anchors is now: the file and lines
// to anchor it to, or, when those cannot be told, why (lost) and what the
// user can do (hint).
type followed struct {
	spec       anchor.Spec
	lost, hint string
}

// follow follows each of r's anchors to where its file is now (a rename
// git sees) and its line range past the lines added and removed above and
// within it.
func follow(ctx context.Context, k *anchor.Checker, r *record.Record) []followed {
	states := k.Records(ctx, []*record.Record{r})[r.ID]
	_ = k.Save()
	out := make([]followed, len(states))
	for i, st := range states {
		f := &out[i]
		f.spec = anchor.Spec{Path: st.Path, Start: st.Anchor.Start, End: st.Anchor.End}
		if st.Status == anchor.Gone {
			f.lost, f.hint = st.Anchor.Path+" is gone", "anchor it to what replaced it with --file, or "+retireHint(r)
			continue
		}
		if st.Edited() && st.Anchor.HasLines() && !st.Lines.Known {
			// Without a comparison with the anchored content there is
			// nothing to follow the lines through: keeping the range
			// would point at other lines.
			why := "lore could not compare it with the content it was anchored to"
			if st.Lines.Lost {
				why = "the content it was anchored to is not in this clone's git (never committed, or pruned since)"
			}
			f.lost = fmt.Sprintf("%s changed, and %s, so where lines %d-%d are now cannot be told", st.Anchor.Path, why, st.Anchor.Start, st.Anchor.End)
			f.hint = fmt.Sprintf("name the lines it is about now with --file %s:START-END, or %s", st.Path, retireHint(r))
			continue
		}
		if l := st.Lines; l.Known && !l.Binary && st.Anchor.Start > 0 {
			// The lines moved with the edits above and within them.
			if l.NowStart == 0 {
				f.lost = fmt.Sprintf("lines %d-%d of %s are gone", st.Anchor.Start, st.Anchor.End, st.Path)
				f.hint = "anchor it to what replaced them with --file, or " + retireHint(r)
				continue
			}
			f.spec.Start, f.spec.End = l.NowStart, l.NowEnd
		}
	}
	return out
}

const staleHelp = `Usage: lore stale [--json]

List the records whose anchored code changed, moved or vanished since they
were written, the newest change first, each with what changed and the
commands to revise, re-anchor or retire it. Only records in force are
listed (not abandoned, deprecated or triaged ones).`

// staleRecord is a record with anchored code that is not as anchored.
type staleRecord struct {
	rec    *record.Record
	states []anchor.State
	when   time.Time // the newest change
}

func cmdStale(ctx context.Context, e *env, args []string) error {
	fs := newFlags("stale")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, staleHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("stale"), "stale: takes no arguments")
	}
	s, snap, err := e.snapshot(ctx)
	if err != nil {
		return err
	}
	k := e.codeChecker(s)
	if k == nil {
		return fmt.Errorf("stale: the store %s is not inside a git repository", s.Dir)
	}
	out, anchored := staleRecords(ctx, snap, k)
	if *asJSON {
		return e.printJSON(staleJSON(out))
	}
	w := bufio.NewWriter(e.stdout) // a line per write costs a system call each
	for _, sr := range out {
		fmt.Fprintln(w, e.listLine(sr.rec))
		for _, st := range sr.states {
			if st.Stale() {
				fmt.Fprintf(w, "    %s%s\n", termSafe(st.Describe()), since(st.When))
			}
		}
		fmt.Fprintf(w, "    %s\n", strings.Join(retire(sr.rec, sr.states), "  |  "))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "lore: %d of %d anchored records have code that changed, moved or vanished\n", len(out), anchored)
	return nil
}

// staleRecords are the records in force whose anchored code is not as
// anchored, the newest change first, and how many records in force are
// anchored at all. Handoffs are not among them: each is a moment's
// history, whose files change as work goes on (resume says so of the
// last one), and listing them grew lore stale with every session.
func staleRecords(ctx context.Context, snap *index.Snapshot, k *anchor.Checker) ([]staleRecord, int) {
	k.Prune = true // every anchor in force is checked: what else the cache holds goes
	// Sized once: tens of thousands of anchors, grown by doubling, cost
	// more than checking them.
	n := snap.Anchors()
	anchors := make([]record.Anchor, 0, n)
	docs := make([]int, 0, n) // docs[i]: the record of anchors[i]
	records := 0
	snap.Anchored(func(doc int, as []record.Anchor) {
		if kind, st := snap.KindStatus(doc); st == record.StatusActive && kind != record.Handoff {
			anchors = append(anchors, as...)
			for range as {
				docs = append(docs, doc)
			}
			records++
		}
	})
	states := k.Stale(ctx, anchors)
	_ = k.Save() // a cache that could not be written costs the next check only
	var out []staleRecord
	for i := 0; i < len(states); {
		doc := docs[states[i].Index]
		j := i
		for j < len(states) && docs[states[j].Index] == doc {
			j++
		}
		sr := staleRecord{rec: snap.Record(doc)}
		// Every anchor of the record, the fresh ones too: docs ascend,
		// so its anchors start where its doc number first appears.
		first, _ := slices.BinarySearch(docs, doc)
		for p := first; p < len(docs) && docs[p] == doc; p++ {
			st := anchor.State{Anchor: anchors[p], Path: anchors[p].Path, Index: p}
			if i < j && states[i].Index == p {
				st = states[i]
				i++
			}
			if st.When.After(sr.when) {
				sr.when = st.When
			}
			sr.states = append(sr.states, st)
		}
		out = append(out, sr)
	}
	slices.SortStableFunc(out, func(a, b staleRecord) int {
		if c := b.when.Compare(a.when); c != 0 {
			return c
		}
		return strings.Compare(a.rec.ID, b.rec.ID)
	})
	return out, records
}

func since(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " (" + t.UTC().Format("2006-01-02") + ")"
}

// retire is what can be done about a record whose code moved on: revise
// it, re-anchor it (to other code, when its file or lines are gone), or
// retire it as its kind allows; a failure or a handoff, which no verb
// retires, can drop its anchors.
func retire(r *record.Record, states []anchor.State) []string {
	id := r.Short()
	reanchor := "lore anchor " + id
	if slices.ContainsFunc(states, lost) {
		reanchor += " --file NEWPATH[:START-END]"
	}
	cmds := []string{reanchor, retireVerb(r)}
	if r.Kind == record.Decision {
		cmds = append([]string{fmt.Sprintf(`lore journal revise %s "…"`, id)}, cmds...)
	}
	return cmds
}

// lost: the anchored file, or the anchored lines, are gone; lore anchor
// alone cannot follow them.
func lost(st anchor.State) bool {
	return st.Status == anchor.Gone || st.Lines.Known && st.Anchor.HasLines() && st.Lines.NowStart == 0
}

// retireVerb is the command that takes r out of use, as its kind allows.
func retireVerb(r *record.Record) string {
	id := r.Short()
	switch r.Kind {
	case record.Decision:
		return "lore journal abandon " + id
	case record.Pattern:
		return "lore patterns deprecate " + id
	case record.Observation:
		return "lore inbox dismiss " + id
	}
	return "lore anchor " + id + " --none"
}

// retireHint is retireVerb for a hint: how to stop tying r to code.
func retireHint(r *record.Record) string {
	switch r.Kind {
	case record.Failure, record.Handoff:
		return "drop its anchors (" + retireVerb(r) + ")"
	}
	return "retire it (" + retireVerb(r) + ")"
}

func staleJSON(out []staleRecord) []map[string]any {
	list := make([]map[string]any, 0, len(out))
	for _, sr := range out {
		list = append(list, map[string]any{"record": recordJSON(sr.rec), "anchors": statesJSON(sr.states), "commands": retire(sr.rec, sr.states)})
	}
	return list
}

func statesJSON(states []anchor.State) []map[string]any {
	list := make([]map[string]any, 0, len(states))
	for _, st := range states {
		m := map[string]any{"path": st.Anchor.Path, "blob": st.Anchor.Blob, "state": st.Status.String()}
		if st.Anchor.HasLines() {
			m["start"], m["end"] = st.Anchor.Start, st.Anchor.End
		}
		if st.Status == anchor.Moved {
			m["moved_to"] = st.Path
		}
		if st.Lines.Known {
			m["lines_in_range"], m["lines_elsewhere"], m["binary"] = st.Lines.InRange, st.Lines.Elsewhere, st.Lines.Binary
		}
		if !st.When.IsZero() {
			m["changed"] = st.When.UTC().Format(time.RFC3339)
		}
		list = append(list, m)
	}
	return list
}
