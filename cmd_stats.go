package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"lore/inject"
	"lore/receipts"
	"lore/record"
)

const statsHelp = `Usage: lore stats [--since 7d|2026-11-01] [--json]

Receipts: what lore injected into agent sessions on this machine, and which
of it the agents used. A record counts as used in a session when the agent
named its ID, ran lore show on it, or wrote one of its distinctive phrases
again; a record merely injected is not used. Receipts live in
.lore/.local/receipts/ and never enter git.

It shows sessions and injections, the share of injected records used, the
records injected most and never used (candidates to revise, deprecate or
abandon), the records used most, and the prompts that got nothing.`

func cmdStats(ctx context.Context, e *env, args []string) error {
	fs := newFlags("stats")
	sinceFlag := fs.String("since", "", "only receipts from this `date` (2026-11-01) or age (7d, 12h) on")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, statsHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("stats"), "stats takes no arguments")
	}
	s, snap, err := e.snapshot(ctx)
	if err != nil {
		return err
	}
	since, err := parseSince(*sinceFlag, s.Clock())
	if err != nil {
		return usageError("", "stats: --since: %v", err)
	}
	evs, warns := receipts.ReadAll(s.Dir)
	for _, w := range warns {
		e.warn("%s", w)
	}
	r := receipts.Summarize(evs, since)
	if *asJSON {
		return e.printJSON(r)
	}
	byID := map[string]*record.Record{}
	for _, rec := range snap.Records() {
		byID[rec.ID] = rec
	}
	line := func(st receipts.RecordStats) string {
		if rec := byID[st.ID]; rec != nil {
			return inject.Summary(rec)
		}
		return st.ID + " (no longer in the store)"
	}
	when := "all receipts"
	if !since.IsZero() {
		when = "since " + since.UTC().Format("2006-01-02 15:04 UTC")
	}
	fmt.Fprintf(e.stdout, "%s: %d session%s, %d injection%s (%d at session start, %d on prompts), %d handoff%s asked for\n",
		when, r.Sessions, plural(r.Sessions), r.Injections, plural(r.Injections), r.AtStart, r.OnPrompt, r.Asked, plural(r.Asked))
	share := 0.0
	if r.Shown > 0 {
		share = 100 * float64(r.UsedShown) / float64(r.Shown)
	}
	fmt.Fprintf(e.stdout, "records injected: %d, used: %d (%.0f%%)\n", r.Shown, r.UsedShown, share)
	var never, used []receipts.RecordStats
	for _, st := range r.Records {
		if st.Used == 0 && st.Injected > 0 {
			never = append(never, st)
		}
		if st.Used > 0 {
			used = append(used, st)
		}
	}
	const top = 10
	if len(never) > 0 {
		fmt.Fprintln(e.stdout, "\ninjected most, never used (revise, deprecate or abandon them?):")
		for _, st := range never[:min(top, len(never))] {
			fmt.Fprintf(e.stdout, "  %3d×  %s\n", st.Injected, inject.Sanitize(line(st)))
		}
	}
	if len(used) > 0 {
		fmt.Fprintln(e.stdout, "\nused:")
		for _, st := range used[:min(top, len(used))] {
			fmt.Fprintf(e.stdout, "  %3d× injected, used in %d session%s  %s\n", st.Injected, st.Used, plural(st.Used), inject.Sanitize(line(st)))
		}
	}
	if n := len(r.Nothing); n > 0 {
		fmt.Fprintf(e.stdout, "\nprompts that got nothing (%d; the newest):\n", n)
		for _, p := range r.Nothing[max(0, n-top):] {
			// Quoted as typed: strconv.Quote would escape an emoji's joiner.
			fmt.Fprintf(e.stdout, "  \"%s\"\n", termSafe(record.OneLine(p)))
		}
	}
	return nil
}

// maxSinceDays bounds --since's age: a century holds every receipt and
// record, and more only makes absurd dates.
const maxSinceDays = 36500

// parseSince reads --since (of lore stats, list and search): a date, or
// an age in days (7d) or any Go duration (12h) before now.
func parseSince(v string, now time.Time) (time.Time, error) {
	switch {
	case v == "":
		return time.Time{}, nil
	case strings.HasSuffix(v, "d"):
		days, err := strconv.Atoi(strings.TrimSuffix(v, "d"))
		if err != nil || days < 0 {
			return time.Time{}, fmt.Errorf("%q is not a number of days", v)
		}
		if days > maxSinceDays {
			return time.Time{}, fmt.Errorf("%q is more than %d days; leave out --since for all of them", v, maxSinceDays)
		}
		return now.AddDate(0, 0, -days), nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a date (2026-11-01) nor an age (7d, 12h)", v)
}
