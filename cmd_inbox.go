package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"lore/failures"
	"lore/inbox"
	"lore/patterns"
	"lore/record"
	"lore/store"
)

func cmdInbox(_ context.Context, e *env, args []string) error {
	verbs := map[string]subcommand{
		"promote": {"lore inbox promote <id> --to decision|pattern|failure [its flags]   turn an observation into a record", promoteVerb},
		"dismiss": {"lore inbox dismiss <id>   the observation needs no record", func(e *env, help string, args []string) error {
			err := idVerb("inbox dismiss", "", "dismissed", "is already dismissed", record.Observation, inbox.Dismiss).run(e, help, args)
			var pe *inbox.PromotedError
			if errors.As(err, &pe) {
				// The record it became may have been purged since (its
				// text held a secret): then the observation is what is left.
				s, serr := e.openStore()
				k, _ := record.KindOfID(pe.To)
				var nf *store.NotFoundError
				pe.Purged = serr == nil && errors.As(s.Transact(func(tx *store.Tx) error {
					_, err := tx.Current(k, pe.To)
					return err
				}), &nf) && nf.Purged
			}
			return err
		}},
	}
	return e.dispatch("inbox", "", verbs, args)
}

// promoteHelp is what lore inbox promote --help says after its usage line.
const promoteHelp = `

The record keeps the observation's text, tags and anchors. The flags of
the kind it becomes fill that kind's fields, as the kind's own capture
verb takes them: --rationale and --alternatives a decision's; --context,
--solution, --anti and --confidence a pattern's; --error-type and --tool a
failure's. Another kind's flags are refused.`

// promoteVerb is lore inbox promote.
func promoteVerb(e *env, help string, args []string) error {
	var o captureOptions
	fs := newFlags("inbox promote")
	to := fs.String("to", "", "what the observation becomes: decision, pattern or failure")
	o.decisionFlags(fs)
	o.patternFlags(fs)
	o.errorTypeFlag(fs)
	o.failureFlags(fs)
	if err := e.parse(fs, help+promoteHelp, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *to == "" {
		return usageError("", "inbox promote: want an observation ID and --to decision|pattern|failure")
	}
	k, err := record.ParseKind(*to)
	if err != nil || inbox.CanPromoteTo(k) != nil {
		return usageError("", "inbox promote: --to must be decision, pattern or failure, not %q", *to)
	}
	if err := otherKindsFlag(fs, k); err != nil {
		return err
	}
	switch {
	case k == record.Pattern:
		if err := patterns.CheckConfidence(o.confidence); err != nil {
			return usageError("", "inbox promote: %v", err)
		}
	case k == record.Failure && o.errorType != "":
		if err := failures.CheckNewErrorType(o.errorType); err != nil {
			return usageError("", "inbox promote: %v", err)
		}
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	r, err := promote(s, fs.Arg(0), k, &o)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "lore: promoted %s to %s %s\n", record.ShortID(r.From), r.Kind, r.Short())
	e.recorded = r.Short()
	fmt.Fprintln(e.stdout, r.Short())
	return nil
}

// otherKindsFlag refuses the first flag given that fills a field of a
// kind other than k: it would be dropped without a word.
func otherKindsFlag(fs *pflag.FlagSet, k record.Kind) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if fk, ok := flagKinds[f.Name]; ok && fk != k && err == nil {
			err = usageError("", "inbox promote: --%s applies to --to %s, not %s", f.Name, fk, k)
		}
	})
	return err
}

// promote makes a record of kind to from the observation ref names, its
// fields filled from o as the kind's capture verb fills them (a failure
// without an error type gets failures.PromotedErrorType), and appends the
// observation's next version marked promoted to it: both under one lock.
func promote(s *store.Store, ref string, to record.Kind, o *captureOptions) (*record.Record, error) {
	if err := inbox.CanPromoteTo(to); err != nil {
		return nil, err
	}
	o.errorType = cmp.Or(o.errorType, failures.PromotedErrorType)
	fill := map[record.Kind]func(*record.Record) error{
		record.Decision: o.decision, record.Pattern: o.pattern, record.Failure: o.failure,
	}[to]
	var made *record.Record
	err := s.Transact(func(tx *store.Tx) error {
		obs, err := tx.Current(record.Observation, ref)
		if err != nil {
			return err
		}
		next := tx.Next(obs)
		if made, err = s.New(to, obs.Text, record.FoldTags(obs.Tags)); err != nil {
			return err
		}
		if err := inbox.Promoted(next, made.ID); err != nil {
			return err
		}
		made.From = obs.ID
		// The code it is about comes with it, as its text and tags do: the
		// promoted observation is out of lore stale.
		made.Anchors = slices.Clone(obs.Anchors)
		if err := fill(made); err != nil {
			return err
		}
		// The new record first: a crash between the two writes leaves the
		// observation unpromoted, never a promotion pointing nowhere.
		if err := tx.Append(made); err != nil {
			return err
		}
		return tx.Append(next)
	})
	return made, err
}
