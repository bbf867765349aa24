package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"lore/anchor"
	"lore/index"
	"lore/inject"
	"lore/kinds"
	"lore/record"
	"lore/store"

	"github.com/spf13/pflag"
)

const listHelp = `Usage: lore list [kind] [--author NAME] [--since DATE|AGE] [--limit N] [--all] [--json]

List records, newest first: short ID, date, kind, headline. kind is one of
decision, pattern, failure, handoff, observation (or their plurals).
Dismissed and promoted observations are hidden unless --all is given.` + filterHelp

func cmdList(ctx context.Context, e *env, args []string) error {
	fs := newFlags("list")
	var filter recordFilter
	filter.flags(fs)
	limit := fs.IntP("limit", "n", 0, "show at most `N` records (0: all)")
	all := fs.Bool("all", false, "include dismissed and promoted observations")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, listHelp, args); err != nil {
		return err
	}
	var kinds []record.Kind
	for _, a := range fs.Args() {
		k, err := record.ParseKind(a)
		if err != nil {
			return usageError("", "list: %v", err)
		}
		if !slices.Contains(kinds, k) { // lore list decision decisions: once each
			kinds = append(kinds, k)
		}
	}
	if *limit < 0 {
		return usageError("", "list: --limit must not be negative")
	}
	s, snap, err := e.filteredSnapshot(ctx, fs, &filter)
	if err != nil {
		return err
	}
	keep := func(_ record.Kind, status string) bool {
		return *all || status != record.StatusDismissed && status != record.StatusPromoted
	}
	recs := snap.NewestOf(*limit, kinds, keep, filter.versions())
	if *asJSON {
		return e.printJSON(recordsJSON(recs))
	}
	if len(recs) == 0 && filter.active() {
		fmt.Fprintf(e.stderr, "lore: no record matches %s\n", termSafe(filter.String()))
	}
	by := e.byWhom(s)
	for _, r := range recs {
		fmt.Fprintln(e.stdout, e.listLine(r)+by(r))
	}
	return nil
}

// filteredSnapshot opens the store and its index for list and search,
// once their --author and --since read well.
func (e *env) filteredSnapshot(ctx context.Context, fs *pflag.FlagSet, filter *recordFilter) (*store.Store, *index.Snapshot, error) {
	s, err := e.openStore()
	if err != nil {
		return nil, nil, err
	}
	if err := filter.check(fs, s.Clock()); err != nil {
		return nil, nil, err
	}
	snap, err := e.snapshotOf(ctx, s)
	return s, snap, err
}

// byWhom returns what ends a listed record whose latest version someone
// other than the reader (git's author here) wrote: " (by NAME on
// BRANCH)", or "" for the reader's own. It goes after every column, so a
// script that cuts the columns reads them as before, and a person working
// alone sees the listing as it was; a teammate's records say whose they
// are. A reader without a git identity sees every author.
func (e *env) byWhom(s *store.Store) func(*record.Record) string {
	reader, known := "", false
	return func(r *record.Record) string {
		if r.Author == "" {
			return ""
		}
		if !known { // git is asked only when a record has an author
			reader, known = s.Origin().Author, true
		}
		if record.SameAuthor(r.Author, reader) {
			return ""
		}
		name, _, _ := strings.Cut(r.Author, " <")
		if name = strings.TrimSpace(name); name == "" {
			name = r.Author
		}
		on := ""
		if r.Branch != "" {
			on = " on " + r.Branch
		}
		return " (by " + termSafe(record.OneLine(name+on)) + ")"
	}
}

const showHelp = `Usage: lore show <id> [--json]

Show a record's current version and its version history, oldest first. The
ID can be any unique prefix of it, such as dec-a1b2.`

func cmdShow(ctx context.Context, e *env, args []string) error {
	fs := newFlags("show")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, showHelp, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || strings.TrimSpace(fs.Arg(0)) == "" {
		return usageError(helpHint("show"), "show: want one record ID")
	}
	s, snap, err := e.snapshot(ctx)
	if err != nil {
		return err
	}
	id, err := snap.Resolve(fs.Arg(0))
	if err != nil {
		return err
	}
	doc, _ := snap.Lookup(id)
	r, hist := snap.Record(doc), snap.History(id)
	apart := s.MadeApart(ctx, hist) // asks git only of a record changed in two places
	var code []anchor.State
	if k := e.codeChecker(s); k != nil && len(r.Anchors) > 0 {
		code = k.Records(ctx, []*record.Record{r})[r.ID]
		_ = k.Save()
	}
	if *asJSON {
		out := map[string]any{"record": recordJSON(r), "history": recordsJSON(hist), "anchors": statesJSON(code)}
		if apart.Any() {
			out["apart"] = apartJSON(apart)
		}
		return e.printJSON(out)
	}
	// Every record-derived string goes through termSafe, so its text cannot
	// drive the terminal; only the kind's colour is lore's own escape.
	status := ""
	if r.Anti {
		status = "  [anti-pattern]"
	}
	if r.Status != record.StatusActive {
		status += "  [" + termSafe(r.Status) + "]"
	}
	fmt.Fprintf(e.stdout, "%s %s%s\n", e.paint(r.Kind, string(r.Kind)), termSafe(r.ID), status)
	e.printIndented("  ", r.Title())
	for _, l := range kinds.Detail(r) {
		e.printIndented("  ", l)
	}
	if apart != nil && apart.Made > r.Validations {
		fmt.Fprintf(e.stdout, "  Validations: %d of the %d made; those made apart are not counted (lore doctor --fix counts them)\n", r.Validations, apart.Made)
	}
	if r.From != "" {
		fmt.Fprintf(e.stdout, "  Promoted from: %s\n", termSafe(record.ShortID(r.From)))
	}
	if r.PromotedTo != "" {
		fmt.Fprintf(e.stdout, "  Promoted to: %s\n", termSafe(record.ShortID(r.PromotedTo)))
	}
	if len(r.Tags) > 0 {
		fmt.Fprintf(e.stdout, "  Tags: %s\n", termSafe(record.OneLine(strings.Join(r.Tags, ", "))))
	}
	for _, st := range code {
		fmt.Fprintf(e.stdout, "  Code: %s%s\n", termSafe(st.Describe()), since(st.When))
	}
	fmt.Fprintf(e.stdout, "  Created: %s\n", r.Created.Format("2006-01-02 15:04:05 UTC"))
	fmt.Fprintf(e.stdout, "\nHistory (%d version%s):\n", len(hist), plural(len(hist)))
	if len(hist) > 0 && !firstVersion(hist[0]) {
		// A rebase that dropped the commit creating it, or a checkout
		// that never had it: the oldest version here is a later one.
		fmt.Fprintln(e.stdout, "  earlier versions are not in this checkout")
	}
	for i, v := range hist {
		fmt.Fprintf(e.stdout, "  %s  %-10s %s\n", v.Time.Format("2006-01-02 15:04:05"), termSafe(versionLabel(hist, i, apart)), termSafe(origin(v)))
		fmt.Fprintf(e.stdout, "      %s\n", termSafe(record.OneLine(v.Title())))
		fmt.Fprintf(e.stdout, "      %s\n", termSafe(v.Source.String()))
		switch {
		case apart == nil:
		case apart.Overridden[i]:
			fmt.Fprintln(e.stdout, "      made apart from the version in force, which overrides it (lore doctor)")
		case apart.Uncounted[i]:
			fmt.Fprintln(e.stdout, "      made apart from the version in force, which does not count its validations (lore doctor --fix)")
		}
	}
	return nil
}

// apartJSON is what show --json tells of the versions made apart: the
// indexes in the history of those overridden or not counted, and of those
// that count validations made apart, and the validations made in all when
// the version in force counts fewer.
func apartJSON(a *store.Apart) map[string]any {
	idx := func(marks []bool) []int {
		out := []int{}
		for i, m := range marks {
			if m {
				out = append(out, i)
			}
		}
		return out
	}
	out := map[string]any{"overridden": idx(a.Overridden), "uncounted": idx(a.Uncounted), "counted": idx(a.Counts)}
	if a.Made > 0 {
		out["validations_made"] = a.Made
	}
	return out
}

// printIndented prints each line of s (a record's text may hold several;
// a CRLF is one break) under prefix, so none reads as a field of its own.
func (e *env) printIndented(prefix, s string) {
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		fmt.Fprintf(e.stdout, "%s%s\n", prefix, termSafe(l))
	}
}

// firstVersion reports whether v is a record's creating version: the one
// written when it was created.
func firstVersion(v *record.Record) bool { return !v.Time.After(v.Created) }

// versionLabel says what a version did relative to the one it was made
// from (see madeFrom); the oldest version held that is not the creating
// one says what it is. A version that counts validations made apart
// (lore doctor --fix's) is "counted", when apart tells it.
func versionLabel(hist []*record.Record, i int, apart *store.Apart) string {
	v := hist[i]
	if i == 0 {
		switch {
		case firstVersion(v):
			return "created"
		case v.Status != record.StatusActive:
			return v.Status
		}
		return "revised"
	}
	prev := hist[madeFrom(hist, i)]
	switch {
	case v.Status != record.StatusActive && (v.Status != prev.Status || v.PromotedTo != prev.PromotedTo):
		return v.Status // two clones that each promoted an observation: promoted twice
	case v.Validations > prev.Validations && apart != nil && apart.Counts[i]:
		return "counted"
	case v.Validations > prev.Validations:
		return "validated"
	case v.Status != prev.Status:
		return "restored"
	}
	return "revised"
}

// madeFrom is the version hist[i] is labelled against: the one before it,
// passing over those from other shards that say just what it says. Two
// versions that say the same cannot be one after the other (a verb that
// changes nothing writes nothing): they were made apart, both from an
// earlier one, as two clones that each validated a pattern do.
func madeFrom(hist []*record.Record, i int) int {
	j := i - 1
	for j > 0 && hist[j].Source.File != hist[i].Source.File && store.SaysTheSame(hist[j], hist[i]) {
		j--
	}
	return j
}

func origin(r *record.Record) string {
	var parts []string
	if r.Author != "" {
		parts = append(parts, r.Author)
	}
	if r.Branch != "" {
		parts = append(parts, "on "+r.Branch)
	}
	if len(r.Commit) >= 7 {
		parts = append(parts, "at "+r.Commit[:7])
	}
	return strings.Join(parts, " ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

const searchHelp = `Usage: lore search <query> [--kind K] [--author NAME] [--since DATE|AGE] [--limit N] [--json]

Search records with the same ranking the prompt hook uses: keywords from the
query match record headlines, tags and bodies fuzzily (word forms, typos,
synonyms from config.toml), weighted by kind and age. Unlike the hook,
search shows weak matches too, and every record that holds each word of
the query.` + filterHelp

// searchMinEvidence lets search show weaker matches than the hook would
// inject, but not records that share one common word of a longer query.
const searchMinEvidence = 0.3

func cmdSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlags("search")
	kindFlag := fs.StringP("kind", "k", "", "only records of this `kind`")
	var filter recordFilter
	filter.flags(fs)
	limit := fs.IntP("limit", "n", 20, "show at most `N` results (0: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, searchHelp, args); err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if query == "" {
		return usageError(helpHint("search"), "search: the query is empty")
	}
	if *limit < 0 {
		return usageError("", "search: --limit must not be negative")
	}
	var kinds []record.Kind
	if *kindFlag != "" {
		k, err := record.ParseKind(*kindFlag)
		if err != nil {
			return usageError("", "search: %v", err)
		}
		kinds = append(kinds, k)
	}
	s, snap, err := e.filteredSnapshot(ctx, fs, &filter)
	if err != nil {
		return err
	}
	ix := inject.NewIndex(snap, s.Config).CheckAnchors(e.codeChecker(s))
	o := inject.Options{Now: s.Clock(), MinEvidence: searchMinEvidence, Kinds: kinds, Limit: *limit}
	if filter.active() {
		o.Limit = 0 // the filter comes after the ranking: the limit, after it
	}
	res := ix.Rank(query, o)
	if filter.active() {
		v := filter.versions()
		res = slices.DeleteFunc(res, func(sc inject.Scored) bool { return !snap.HasVersion(sc.Rec.ID, v) })
		if *limit > 0 && len(res) > *limit {
			res = res[:*limit]
		}
	}
	out := make([]map[string]any, 0, len(res))
	for _, sc := range res {
		out = append(out, map[string]any{"record": recordJSON(sc.Rec), "score": sc})
	}
	if *asJSON {
		return e.printJSON(out)
	}
	e.structured(out)
	if len(res) == 0 {
		if filter.active() {
			fmt.Fprintf(e.stderr, "lore: nothing matches %q with %s\n", cutQuery(query), termSafe(filter.String()))
			return nil
		}
		fmt.Fprintf(e.stderr, "lore: nothing matches %q\n", cutQuery(query))
		return nil
	}
	by := e.byWhom(s)
	for _, sc := range res {
		fmt.Fprintf(e.stdout, "%s  %.2f", e.listLine(sc.Rec), sc.Score)
		if sc.Stale != "" {
			fmt.Fprint(e.stdout, " ", termSafe(parenthesised(sc.Stale)))
		}
		fmt.Fprintln(e.stdout, by(sc.Rec))
	}
	return nil
}

// cutQuery is a query as a message quotes it: cut at a word past 80
// bytes, or inside the one word that is longer.
func cutQuery(q string) string {
	if c := inject.CutWords(q, 80); c != "" || q == "" {
		return c
	}
	return record.Prefix(q, 77) + "…"
}
