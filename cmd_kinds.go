package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"lore/anchor"
	"lore/failures"
	"lore/inject"
	"lore/internal/spell"
	"lore/journal"
	"lore/patterns"
	"lore/record"
	"lore/store"
)

// subcommand is one verb of a kind command, such as journal revise.
type subcommand struct {
	usage string                                         // the verb's usage line, also its help
	run   func(e *env, help string, args []string) error // help: "Usage: " + usage
}

// dispatch runs the verb args[0] of a command made of verbs (the kind
// commands, hooks). Its help is the verbs' usage lines, then about.
func (e *env) dispatch(name, about string, verbs map[string]subcommand, args []string) error {
	order := groupVerbs[name]
	if len(order) != len(verbs) || slices.ContainsFunc(order, func(v string) bool { return verbs[v].run == nil }) {
		// A verb missing from groupVerbs would run but never be listed;
		// one listed without a verb, fail when asked for.
		panic(fmt.Sprintf("lore %s: verbs %v, but groupVerbs lists %v", name, slices.Sorted(maps.Keys(verbs)), order))
	}
	var help strings.Builder
	fmt.Fprintf(&help, "Usage:\n")
	for _, v := range order {
		fmt.Fprintf(&help, "  %s\n", verbs[v].usage)
	}
	if about != "" {
		fmt.Fprintf(&help, "\n%s\n", about)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			return usageError(helpHint(name), "%s: want one of: %s", name, strings.Join(order, ", "))
		}
		fmt.Fprint(e.stdout, help.String())
		return nil
	}
	v, ok := verbs[args[0]]
	if !ok && strings.HasPrefix(args[0], "-") { // a flag before the verb
		return usageError(helpHint(name)+"; a verb's flags come after it", "%s: unknown flag %s", name, args[0])
	}
	if !ok {
		hint := helpHint(name)
		if s := spell.Closest(args[0], order, 2); s != "" {
			hint = fmt.Sprintf("did you mean 'lore %s %s'?", name, s)
		}
		return usageError(hint, "%s: unknown verb %q", name, args[0])
	}
	return v.run(e, "Usage: "+v.usage, args[1:])
}

// idVerb is a verb that takes one record ID of kind k and appends the
// version change derives from the current one; when the record is already
// so (change returns record.ErrUnchanged), it says unchanged and writes
// nothing.
func idVerb(name, usage, did, unchanged string, k record.Kind, change func(r *record.Record) error) subcommand {
	return subcommand{usage, func(e *env, help string, args []string) error {
		fs := newFlags(name)
		if err := e.parse(fs, help, args); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return usageError("", "%s: want one record ID", name)
		}
		s, err := e.openStore()
		if err != nil {
			return err
		}
		return e.update(s, k, fs.Arg(0), change, did, unchanged)
	}}
}

// update appends the version change derives from the current one of the
// record ref names and reports the outcome: the new version's short ID, or
// that the record was already so. A change that makes a retired record
// active again (validating a deprecated pattern, revising an abandoned
// decision) says so: the user may not have known it was retired.
func (e *env) update(s *store.Store, k record.Kind, ref string, change func(*record.Record) error, did, unchanged string) error {
	was := ""
	r, err := s.Update(k, ref, func(r *record.Record) error {
		was = r.Status
		return change(r)
	})
	switch {
	case errors.Is(err, record.ErrUnchanged):
		fmt.Fprintf(e.stderr, "lore: %s %s; nothing written\n", r.Short(), unchanged)
	case err != nil:
		return err
	case was != record.StatusActive && r.Active():
		fmt.Fprintf(e.stderr, "lore: %s %s; it was %s, and is active again\n", did, r.Short(), was)
	default:
		fmt.Fprintf(e.stderr, "lore: %s %s\n", did, r.Short())
	}
	fmt.Fprintln(e.stdout, r.Short())
	return nil
}

func cmdJournal(_ context.Context, e *env, args []string) error {
	verbs := map[string]subcommand{
		"revise": {`lore journal revise <id> "<new text>"|- [--rationale R] [--alternatives A] [--file F]...   append a new version of a decision`, func(e *env, help string, args []string) error {
			var o captureOptions
			fs := newFlags("journal revise")
			o.decisionFlags(fs)
			files := fs.StringArray("file", nil, "anchor it to this `path[:start-end]` instead (repeatable); without, its anchors follow their code to where it is now")
			if err := e.parse(fs, help+reviseHelp, args); err != nil {
				return err
			}
			if fs.NArg() < 2 {
				return usageError("", "journal revise: want a decision ID and the new text")
			}
			text, err := e.textArgs(fs, 1, "new text")
			if err != nil {
				return err
			}
			v := journal.Revision{Text: text, Rationale: o.rationale}
			if fs.Changed("alternatives") {
				v.Alternatives = &o.alternatives
			}
			s, err := e.openStore()
			if err != nil {
				return err
			}
			anchors, err := e.textAnchors(context.Background(), s, "journal revise", *files)
			if err != nil {
				return err
			}
			return e.update(s, record.Decision, fs.Arg(0), withAnchors(journal.Revise(v), anchors), "revised", "already says that")
		}},
		"abandon": {"lore journal abandon <id> [--for ID]                                                       mark a decision abandoned (for the one that replaces it)", abandon},
	}
	return e.dispatch("journal", "", verbs, args)
}

// abandonHelp is what lore journal abandon --help says after its usage.
const abandonHelp = `

--for names the decision that replaces it: lore show and the context
agents are given name that one beside the abandoned decision, so that a
reader follows it rather than the old one. An abandoned decision can be
given its successor later, by abandoning it again with --for.`

// abandon is lore journal abandon: the decision's next version, abandoned,
// naming the decision that replaces it if --for is given.
func abandon(e *env, help string, args []string) error {
	fs := newFlags("journal abandon")
	forRef := fs.String("for", "", "the decision that replaces it (an `ID` or unique prefix)")
	if err := e.parse(fs, help+abandonHelp, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError("", "journal abandon: want one decision ID")
	}
	if fs.Changed("for") && strings.TrimSpace(*forRef) == "" {
		return usageError("", "journal abandon: --for needs the ID of the decision that replaces it")
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	successor := ""
	if *forRef != "" {
		var cur, next *record.Record
		err := s.Transact(func(tx *store.Tx) error {
			var err error
			if cur, err = tx.Current(record.Decision, fs.Arg(0)); err != nil {
				return err
			}
			if next, err = tx.Current(record.Decision, strings.TrimSpace(*forRef)); err != nil {
				return fmt.Errorf("journal abandon: --for: %w", err)
			}
			return nil
		})
		switch {
		case err != nil:
			return err
		case cur.ID == next.ID:
			return usageError("", "journal abandon: --for: %v", journal.ErrSelfSuccessor)
		case !next.Active():
			e.warn("%s, which replaces %s, is %s too", next.Short(), cur.Short(), next.Status)
		}
		successor = next.ID
	}
	return e.update(s, record.Decision, fs.Arg(0), journal.AbandonFor(successor), "abandoned", "is already abandoned")
}

// reviseHelp is what lore journal revise --help says after its usage
// line: what becomes of the decision's anchors.
const reviseHelp = `

The new version is anchored to the code as it is now: each anchor follows
its file and lines as 'lore anchor' does, except that one whose file or
lines are gone stays as it was (lore stale goes on listing it). --file
anchors it to those files instead.`

// withAnchors is change, then the anchors of the version it makes from
// new text (textAnchors). The same text on code that moved on is still
// a new version: the user says it holds for the code as it is.
func withAnchors(change func(*record.Record) error, anchors func(*record.Record) []record.Anchor) func(*record.Record) error {
	return func(r *record.Record) error {
		err := change(r)
		if err != nil && !errors.Is(err, record.ErrUnchanged) {
			return err
		}
		next := anchors(r)
		if err != nil && slices.Equal(next, r.Anchors) {
			return err // unchanged, anchors and all
		}
		r.Anchors = next
		return nil
	}
}

// textAnchors prepares the anchors of a version made from the user's new
// text (lore journal revise): the files given, resolved now, or else the
// record's own anchors followed to the code as it is now. New text is
// written against the code as it is: kept on the old content, the fresh
// revision would be called stale at once. A --file that cannot be
// anchored is a usage error, before anything is read under the lock.
func (e *env) textAnchors(ctx context.Context, s *store.Store, verb string, files []string) (func(*record.Record) []record.Anchor, error) {
	specs, err := parseSpecs(files)
	if err != nil {
		return nil, e.fileError(err)
	}
	if len(specs) > 0 {
		repo, err := e.anchorRepo(s)
		if err != nil {
			return nil, usageError("", "%s: %v", verb, err)
		}
		anchors, err := repo.Resolve(ctx, e.cwd, specs)
		if err != nil {
			if !isSpecError(err) {
				return nil, fmt.Errorf("%s: %w", verb, err)
			}
			return nil, usageError("", "%s: %v", verb, err)
		}
		return func(*record.Record) []record.Anchor { return anchors }, nil
	}
	return func(r *record.Record) []record.Anchor {
		if len(r.Anchors) == 0 {
			return nil // no git run for a record about no code
		}
		repo, err := e.anchorRepo(s)
		k := e.codeChecker(s)
		if err != nil || k == nil {
			return r.Anchors // nothing to follow them in
		}
		return e.followKept(ctx, repo, k, r)
	}, nil
}

// followKept is r's anchors followed to the code as it is now, as lore
// anchor follows them, except that one that cannot be followed (its file
// or its lines gone) stays as it was, and lore stale goes on listing it:
// the new text is recorded either way, and a warning says what to do.
func (e *env) followKept(ctx context.Context, repo anchor.Repo, k *anchor.Checker, r *record.Record) []record.Anchor {
	out := slices.Clone(r.Anchors)
	kept := func(why string) {
		e.warn("%s: %s; that anchor is kept as it was (lore anchor %s --file PATH[:START-END] moves it)", r.Short(), why, r.Short())
	}
	var specs []anchor.Spec
	var at []int // at[j]: the anchor specs[j] follows
	for i, f := range follow(ctx, k, r) {
		if f.lost != "" {
			kept(f.lost)
			continue
		}
		specs, at = append(specs, f.spec), append(at, i)
	}
	if got, err := repo.Resolve(ctx, repo.Root, specs); err == nil {
		for j, i := range at {
			out[i] = got[j]
		}
		return out
	}
	// One anchor that does not resolve must not keep the others on old
	// code: each on its own.
	for j, i := range at {
		got, err := repo.Resolve(ctx, repo.Root, specs[j:j+1])
		if err != nil {
			kept(err.Error())
			continue
		}
		out[i] = got[0]
	}
	return out
}

func cmdPatterns(_ context.Context, e *env, args []string) error {
	verbs := map[string]subcommand{
		"validate":  idVerb("patterns validate", "lore patterns validate <id>    the pattern proved right again: confidence +0.1", "validated", "is already at confidence 1.0", record.Pattern, patterns.Validate),
		"deprecate": idVerb("patterns deprecate", "lore patterns deprecate <id>   the pattern no longer applies", "deprecated", "is already deprecated", record.Pattern, patterns.Deprecate),
	}
	return e.dispatch("patterns", "", verbs, args)
}

func cmdFailures(ctx context.Context, e *env, args []string) error {
	verbs := map[string]subcommand{
		"triggers": {"lore failures triggers [--min N] [--json]   error types (Timeout = timeout) seen at least N times (default 3)", func(e *env, help string, args []string) error {
			fs := newFlags("failures triggers")
			minCount := fs.Int("min", 3, "report error types seen at least `N` times")
			asJSON := fs.Bool("json", false, "print JSON")
			if err := e.parse(fs, help, args); err != nil {
				return err
			}
			if *minCount < 1 {
				return usageError("", "failures triggers: --min must be at least 1")
			}
			_, snap, err := e.snapshot(ctx)
			if err != nil {
				return err
			}
			ts := inject.Recurring(snap, *minCount, *asJSON)
			if *asJSON {
				if ts == nil {
					ts = []failures.Trigger{}
				}
				return e.printJSON(ts)
			}
			if len(ts) == 0 {
				fmt.Fprintf(e.stderr, "lore: no error type seen %d or more times\n", *minCount)
			}
			for _, t := range ts {
				tools := ""
				if len(t.Tools) > 0 {
					tools = " (" + strings.Join(t.Tools, ", ") + ")"
				}
				fmt.Fprintf(e.stdout, "%3d× %s, last %s: %s\n", t.Count, termSafe(t.ErrorType+tools), t.Last.Format("2006-01-02"), termSafe(record.OneLine(t.Example)))
			}
			return nil
		}},
	}
	return e.dispatch("failures", "", verbs, args)
}
