package inject

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"lore/anchor"
	"lore/failures"
	"lore/index"
	"lore/internal/topk"
	"lore/patterns"
	"lore/record"
	"lore/transfer"
)

// How much the resume view shows of each section.
const (
	resumeDecisions = 5
	resumePatterns  = 5
	resumeFailures  = 3
	// resumeHandoffs is how many of the newest handoffs are looked
	// through for the reader's own.
	resumeHandoffs = 8
	recurringMin   = 2
)

// Resume is where the last session left off.
type Resume struct {
	Handoff *record.Record `json:"-"`
	// Own is the reader's newest handoff when a teammate's, Handoff, is
	// newer: where their own last session left off.
	Own       *record.Record   `json:"-"`
	Git       *GitChanges      `json:"git,omitempty"`
	Decisions []*record.Record `json:"-"`
	Patterns  []*record.Record `json:"-"`
	// Recent are the failures recorded since the handoff before the last
	// (in the last handoff's session and after it), but those of a
	// type Failures already shows.
	Recent   []*record.Record   `json:"-"`
	Failures []failures.Trigger `json:"recurring_failures"`
	Inbox    int                `json:"inbox"` // observations waiting for triage
	// Stale says, by record ID, how the code a shown record is anchored
	// to has changed since (see CheckAnchors).
	Stale map[string]string `json:"stale,omitempty"`
}

// ResumeOptions say what BuildResume reads besides the snapshot.
type ResumeOptions struct {
	Git *GitSource // nil leaves git out
	// FailureIDs lists the IDs of each recurring failure's occurrences,
	// which only JSON shows: at 100k records, thousands of them.
	FailureIDs bool
	// Author is who reads the view ("Name <email>"): when a teammate's
	// handoff is the newest, the reader's own newest is shown too. "":
	// the newest handoff alone.
	Author string
}

// BuildResume assembles the view from the snapshot's current records,
// decoding only those it weighs or shows.
func BuildResume(ctx context.Context, snap *index.Snapshot, o ResumeOptions) *Resume {
	git := o.Git
	v := &Resume{}
	// The failures shown are those since the handoff before the last: a
	// session records its failures before it ends with a handoff, so
	// those after the last one alone were none, by construction.
	var failuresSince int64
	hs := snap.Newest(resumeHandoffs, []record.Kind{record.Handoff}, func(_ record.Kind, status string) bool { return status == record.StatusActive })
	if len(hs) > 0 {
		v.Handoff = hs[0]
	}
	if len(hs) > 1 {
		failuresSince = hs[1].Created.UnixNano()
	}
	for i, h := range hs {
		if o.Author != "" && record.SameAuthor(h.Author, o.Author) {
			if i > 0 {
				v.Own = h
			}
			break
		}
	}
	// git's log since the handoff runs while the rest is read.
	gitDone := make(chan *GitChanges, 1)
	if git != nil {
		var from Since
		if h := v.Handoff; h != nil {
			from = Since{Commit: h.Commit, Time: h.Created, ID: h.ID, Shards: snap.Shards(h.ID)}
		}
		go func() { gitDone <- ReadGitChanges(ctx, git, from) }()
	} else {
		close(gitDone)
	}
	// The newest decisions; the patterns by confidence, then newest.
	type weighed struct {
		doc        int
		created    int64
		confidence float64
	}
	newest := func(a, b weighed) int { return cmp.Compare(b.created, a.created) }
	decisions := topk.New(resumeDecisions, newest)
	for d := range snap.OfKind(record.Decision) {
		if d.Status == record.StatusActive {
			decisions.Offer(weighed{doc: d.Doc, created: d.Created})
		}
	}
	for _, w := range decisions.Items() {
		v.Decisions = append(v.Decisions, snap.Record(w.doc))
	}
	pats := topk.New(resumePatterns, func(a, b weighed) int {
		if c := cmp.Compare(b.confidence, a.confidence); c != 0 {
			return c
		}
		return newest(a, b)
	})
	for p := range snap.OfKind(record.Pattern) {
		if p.Status == record.StatusActive {
			pats.Offer(weighed{doc: p.Doc, created: p.Created, confidence: confidence(snap.Doc(p.Doc))})
		}
	}
	for _, w := range pats.Items() {
		v.Patterns = append(v.Patterns, snap.Record(w.doc))
	}
	for o := range snap.OfKind(record.Observation) {
		if o.Status == record.StatusActive {
			v.Inbox++
		}
	}
	v.Failures = Recurring(snap, recurringMin, o.FailureIDs)
	if len(v.Failures) > resumeFailures {
		v.Failures = v.Failures[:resumeFailures]
	}
	v.Recent = recentFailures(snap, failuresSince, v.Failures)
	v.Git = <-gitDone
	return v
}

func confidence(d index.Doc) float64 {
	if math.IsNaN(d.Confidence) {
		return patterns.DefaultConfidence
	}
	return d.Confidence
}

// CheckAnchors notes how the anchored code of the records the view shows
// has changed since (k nil: not checked).
func (v *Resume) CheckAnchors(ctx context.Context, k *anchor.Checker) {
	if k == nil {
		return
	}
	v.Stale = map[string]string{}
	for id, states := range k.Records(ctx, v.Records()) {
		if c := anchor.Clause(states); c != "" {
			v.Stale[id] = c
		}
	}
	_ = k.Save() // a cache that could not be written costs the next check only
}

// Records are the records the view shows.
func (v *Resume) Records() []*record.Record {
	var out []*record.Record
	if v.Handoff != nil {
		out = append(out, v.Handoff)
	}
	if v.Own != nil {
		out = append(out, v.Own)
	}
	return append(append(append(out, v.Recent...), v.Decisions...), v.Patterns...)
}

// Entries lays the view out as block entries, most important first, so
// the budget trims from the end.
func (v *Resume) Entries() []Entry {
	var es []Entry
	if h := v.Handoff; h != nil {
		es = append(es, v.handoffEntry("Last handoff", h))
		if v.Own != nil {
			es = append(es, v.handoffEntry("Your last handoff", v.Own))
		}
	} else {
		es = append(es, Entry{ID: "handoff", Full: "No handoff yet: end a session with lore handoff \"SUMMARY\" --next \"NEXT STEP\".",
			Summary: "No handoff yet.", Notice: true})
	}
	if g := v.Git; g != nil {
		es = append(es, Entry{ID: "git", Full: g.text(), Summary: g.summary(), Notice: true})
	}
	for _, r := range append(append(slices.Clip(v.Recent), v.Decisions...), v.Patterns...) {
		es = append(es, recordEntry(r, v.Stale[r.ID]))
	}
	for _, t := range v.Failures {
		tools := ""
		if len(t.Tools) > 0 {
			tools = " (" + strings.Join(t.Tools, ", ") + ")"
		}
		line := fmt.Sprintf("[recurring failure] %d× %s%s, last %s: %s", t.Count, t.ErrorType, tools, t.Last.Format("2006-01-02"), record.OneLine(t.Example))
		es = append(es, Entry{ID: "trigger:" + t.ErrorType, Full: line, Summary: CutWords(line, 120)})
	}
	if v.Inbox > 0 {
		line := fmt.Sprintf("Inbox: %d observation%s to triage (lore list observation).", v.Inbox, plural(v.Inbox))
		es = append(es, Entry{ID: "inbox", Full: line, Summary: line, Notice: true})
	}
	return es
}

// handoffEntry is handoff h whole, under the heading what.
func (v *Resume) handoffEntry(what string, h *record.Record) Entry {
	full := fmt.Sprintf("%s %s (%s):\n  %s", what, h.Short(), v.byline(h), record.OneLine(h.Text))
	for _, l := range transfer.Detail(h) {
		full += "\n  " + record.OneLine(l)
	}
	return Entry{ID: h.ID, Full: full, Summary: what + ": " + Summary(h)}
}

// byline dates a handoff and says who made it where, and how its code
// changed since.
func (v *Resume) byline(h *record.Record) string {
	by := h.Created.UTC().Format("2006-01-02 15:04 UTC")
	if h.Author != "" {
		// The name only: an address in <angle brackets> reaches Gemini
		// CLI's model as &lt;…&gt;, and the name is what a reader needs.
		name, _, _ := strings.Cut(h.Author, " <")
		by += " by " + name
	}
	if h.Branch != "" {
		by += " on " + h.Branch
	}
	if c := v.Stale[h.ID]; c != "" {
		by += "; " + c
	}
	return by
}

func (g *GitChanges) text() string {
	if g.noStatus {
		return "Git: " + g.Note
	}
	var b strings.Builder
	branch := g.Branch
	if branch == "" {
		branch = "(unknown branch)"
	}
	fmt.Fprintf(&b, "Git on %s:", branch)
	label := short(g.Since)
	if g.Brought != "" {
		label += " was rewritten; counting after " + short(g.Brought) + ", which brought the handoff"
	}
	if label == "" && !g.SinceTime.IsZero() {
		label = "made " + g.SinceTime.UTC().Format("2006-01-02 15:04 UTC")
	}
	switch {
	case g.Note != "":
		fmt.Fprintf(&b, "\n  %s", g.Note)
	case label != "" && len(g.Commits) == 0:
		fmt.Fprintf(&b, "\n  no commits since the handoff (%s)", label)
	case label != "":
		n := len(g.Commits)
		more := ""
		if n > 50 {
			more, n = "50+", 50
		} else {
			more = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, "\n  %s commit%s since the handoff (%s):", more, plural(len(g.Commits)), label)
		for i, c := range g.Commits[:n] {
			if i == maxListed {
				plus := ""
				if len(g.Commits) > n { // the log stops at 51: there are more
					plus = "+"
				}
				fmt.Fprintf(&b, "\n    … %d%s more (git log)", n-maxListed, plus)
				break
			}
			fmt.Fprintf(&b, "\n    %s", c)
		}
	}
	if g.Missing > 0 {
		more := fmt.Sprint(g.Missing)
		if g.Missing > 50 {
			more = "50+"
		}
		fmt.Fprintf(&b, "\n  HEAD lacks %s commit%s of the handoff's history: its work is on another branch, or HEAD was reset since (git log HEAD..%s)",
			more, plural(g.Missing), short(g.Since))
	}
	if len(g.Uncommitted) == 0 && g.StoreUncommitted == 0 {
		b.WriteString("\n  working tree clean")
	} else if len(g.Uncommitted) == 0 {
		b.WriteString("\n  no uncommitted code")
	} else {
		fmt.Fprintf(&b, "\n  %d uncommitted file%s:", len(g.Uncommitted), plural(len(g.Uncommitted)))
		for i, f := range g.Uncommitted {
			if i == maxListed {
				fmt.Fprintf(&b, "\n    … %d more (git status)", len(g.Uncommitted)-maxListed)
				break
			}
			fmt.Fprintf(&b, "\n    %s", f)
		}
	}
	if n := g.StoreUncommitted; n > 0 {
		fmt.Fprintf(&b, "\n  %d file%s of lore's memory not committed (git status %s): teammates get the records once they are", n, plural(n), g.store)
	}
	return b.String()
}

func (g *GitChanges) summary() string {
	s := fmt.Sprintf("Git on %s: %d commits since the handoff, %d uncommitted files.", g.Branch, len(g.Commits), len(g.Uncommitted))
	if g.Missing > 0 {
		s += fmt.Sprintf(" HEAD lacks %d of the handoff's commits.", g.Missing)
	}
	return s
}

// Recurring is failures.Triggers over the snapshot's active failures,
// decoding only the messages it reports; with ids, each trigger lists its
// failures' IDs.
func Recurring(snap *index.Snapshot, min int, ids bool) []failures.Trigger {
	seen := func(yield func(int, failures.Occurrence) bool) {
		for f := range snap.OfKind(record.Failure) {
			if f.Status != record.StatusActive {
				continue
			}
			o := failures.Occurrence{Created: time.Unix(0, f.Created).UTC()}
			o.ErrorType, o.Tool = snap.ErrorTool(f.Doc)
			if ids {
				o.ID = snap.ID(f.Doc)
			}
			if !yield(f.Doc, o) {
				return
			}
		}
	}
	return failures.Triggers(seen, min, func(i int) string { return snap.Record(i).Text })
}

// recentFailures are the newest active failures created after since (the
// handoff: what went wrong in the last session), but those of an error
// type a recurring failure already shows with its last occurrence.
func recentFailures(snap *index.Snapshot, since int64, recurring []failures.Trigger) []*record.Record {
	shown := map[string]bool{}
	for _, t := range recurring {
		shown[strings.ToLower(t.ErrorType)] = true
	}
	var best []index.KindRow // newest first, at most resumeFailures
	for f := range snap.OfKind(record.Failure) {
		if f.Status != record.StatusActive || f.Created <= since ||
			len(best) == resumeFailures && f.Created <= best[len(best)-1].Created {
			continue
		}
		if et, _ := snap.ErrorTool(f.Doc); shown[strings.ToLower(et)] {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, f.Created, func(r index.KindRow, c int64) int { return cmp.Compare(c, r.Created) })
		best = slices.Insert(best, i, f)
		if len(best) > resumeFailures {
			best = best[:resumeFailures]
		}
	}
	out := make([]*record.Record, len(best))
	for i, f := range best {
		out[i] = snap.Record(f.Doc)
	}
	return out
}
