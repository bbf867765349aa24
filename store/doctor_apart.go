package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"lore/patterns"
	"lore/record"
)

// Two clones, or two branches, can each make a version of one record
// without seeing the other's: the merge keeps both, and lore serves the
// newer. When both validated a pattern, the newer counts its own
// validations only; when both revised a decision, the older revision is
// overridden without a word. Doctor reports both (--fix counts the
// validations in one new version), and lore show marks them.
//
// Whether the writer of a version saw an earlier one is git's to tell (see
// sawOracle), a lookup a pair, so it is asked only of the decisions and
// patterns whose versions come from two origins (author and branch), and
// only of what the check kept of each version (its time, shard, line and
// validations; the shard's author, branch and commit): a record is read
// again only when it was changed apart. A record only ever changed by one
// person on one branch costs nothing past the grouping ties already does.
//
// This is doctor's job, not the reader's: the one fold that picks the
// version in force runs on every prompt, without git, and without git a
// validation made apart cannot be told from a version made after it
// (re-anchored, say) with the same count: summing there would invent
// validations no one can see or undo. Doctor asks git, and its --fix
// writes a version anyone can review.

// maxApartVersions bounds the versions of one record compared pairwise:
// the newest are kept, the older taken as the common start.
const maxApartVersions = 32

// origin is where a shard's versions were written: one checkout, at one
// HEAD.
type origin struct{ author, branch, commit string }

// shardOrigin is the author and branch all of a shard's versions share,
// and their commit: whether they share those (a checkout writes a shard
// at one HEAD; only a hand or a generator mixes them). Copied: the check
// keeps it past the shard's text.
func shardOrigin(recs []*record.Record) (o origin, one, oneCommit bool) {
	if len(recs) == 0 {
		return origin{}, false, false
	}
	o, one, oneCommit = origin{recs[0].Author, recs[0].Branch, recs[0].Commit}, true, true
	for _, r := range recs[1:] {
		one = one && r.Author == o.author && r.Branch == o.branch
		oneCommit = oneCommit && r.Commit == o.commit
	}
	return origin{strings.Clone(o.author), strings.Clone(o.branch), strings.Clone(o.commit)}, one, oneCommit
}

// apartCandidates are the decisions and patterns with versions from
// shards of two origins (or from a shard of several), in the order read.
// Only decisions and patterns say something a later version can change:
// the other kinds are only re-anchored, and an observation's triage made
// apart is triagedTwice's.
func apartCandidates(results []shardCheck, byID map[string][]versionRef) [][]versionRef {
	var out [][]versionRef
	for id, refs := range byID {
		if len(refs) < 2 {
			continue
		}
		first := &results[refs[0].shard]
		two := false
		for _, r := range refs[1:] {
			o := &results[r.shard]
			if r.shard != refs[0].shard && (!o.oneOrigin || !first.oneOrigin ||
				o.origin.author != first.origin.author || o.origin.branch != first.origin.branch) {
				two = true
				break
			}
		}
		if k, _ := record.KindOfID(id); two && (k == record.Decision || k == record.Pattern) {
			out = append(out, refs)
		}
	}
	slices.SortFunc(out, func(a, b []versionRef) int { return compareRefs(a[0], b[0]) })
	return out
}

// light is the history of refs made from what the check kept (the
// envelope, the validations, no content), oldest first; nil when that is
// not enough: a shard of several origins or commits, or two versions at
// one time (which only their content orders, as ties does).
func (rr *rereader) light(refs []versionRef) []*record.Record {
	id := rr.results[refs[0].shard].versions[refs[0].j].id
	kind, _ := record.KindOfID(id)
	h := make([]*record.Record, 0, len(refs))
	for _, ref := range refs {
		c := &rr.results[ref.shard]
		if !c.oneOrigin || !c.oneCommit {
			return nil
		}
		v := c.versions[ref.j]
		r := &record.Record{V: record.FormatVersion, ID: id, Kind: kind, Time: v.time, Validations: int(v.valid),
			Author: c.origin.author, Branch: c.origin.branch, Commit: c.origin.commit,
			Source: record.Pos{File: rr.s.Rel(rr.files[ref.shard]), Line: int(v.line)}}
		if v.purged {
			r.Status = record.StatusPurged
		}
		h = append(h, r)
	}
	slices.SortFunc(h, func(a, b *record.Record) int { return a.Time.Compare(b.Time) })
	for i := 1; i < len(h); i++ {
		if h[i].Time.Equal(h[i-1].Time) {
			return nil
		}
	}
	if len(h) > maxApartVersions {
		h = h[len(h)-maxApartVersions:]
	}
	return h
}

// history is the versions refs name, read again, oldest first, each once
// (the same version can reach the store twice), the newest
// maxApartVersions of them.
func (rr *rereader) history(refs []versionRef) []*record.Record {
	var h []*record.Record
	for _, ref := range refs {
		if r := rr.get(ref); r != nil {
			h = append(h, r)
		}
	}
	return oldestFirst(h)
}

func oldestFirst(h []*record.Record) []*record.Record {
	record.SortOldestFirst(h)
	h = slices.CompactFunc(h, func(a, b *record.Record) bool { return a.Time.Equal(b.Time) && sameVersion(a, b) })
	if len(h) > maxApartVersions {
		h = h[len(h)-maxApartVersions:]
	}
	return h
}

// apartness is what one record's versions (oldest first, the last in
// force) tell of the ones made apart.
type apartness struct {
	h []*record.Record
	// saw[i][j], j < i: the writer of version i saw version j, itself or
	// through a version it saw.
	saw [][]bool
	// unseen: made apart from the version in force, whose writer did not
	// see it. overridden: unseen, the newest of its line, and what its line
	// changed is not what the version in force says.
	unseen, overridden []bool
	// own is the validations each version made itself: its count, less
	// those of the versions it saw. joins: a version with none of its own
	// that counts more than any version it saw (what doctor --fix writes).
	own   []int
	joins []bool
	made  int // validations made in all
}

// analyse tells apartness from saw(w, v): whether the writer of v saw w,
// an older version. What the versions say is compared only by
// findOverridden, so h may hold envelopes alone (rereader.light).
func analyse(h []*record.Record, saw func(w, v *record.Record) bool) *apartness {
	k := len(h)
	a := &apartness{h: h, saw: make([][]bool, k), unseen: make([]bool, k), overridden: make([]bool, k), own: make([]int, k), joins: make([]bool, k)}
	for i := range k {
		a.saw[i] = make([]bool, k)
		for j := i - 1; j >= 0; j-- {
			if !a.saw[i][j] && saw(h[j], h[i]) {
				a.saw[i][j] = true
				for l := range j {
					a.saw[i][l] = a.saw[i][l] || a.saw[j][l]
				}
			}
		}
		sum, most := 0, 0
		for j := range i {
			if a.saw[i][j] {
				sum += a.own[j]
				most = max(most, h[j].Validations)
			}
		}
		a.own[i] = max(0, h[i].Validations-sum)
		a.joins[i] = a.own[i] == 0 && h[i].Validations > most && i > 0
		a.made += a.own[i]
	}
	for j := range k - 1 {
		a.unseen[j] = !a.saw[k-1][j]
	}
	return a
}

// apart reports whether any version was made apart from the one in force,
// or the one in force counts fewer validations than were made.
func (a *apartness) apart() bool { return slices.Contains(a.unseen, true) || a.lost() > 0 }

// findOverridden marks the versions the one in force overrides: unseen by
// it, the newest of their line, and their line changed what it says.
func (a *apartness) findOverridden() {
	h, n := a.h, len(a.h)-1
	for j := range n {
		if !a.unseen[j] || h[j].Purged() || saysTheSame(h[j], h[n], false) {
			continue
		}
		newest := true // of the unseen versions, none saw it
		for i := j + 1; i < n && newest; i++ {
			newest = !(a.unseen[i] && a.saw[i][j])
		}
		// Its line changed something: it says otherwise than the newest
		// version the one in force saw too (a line that only re-anchored,
		// or only validated, loses no words).
		base := -1
		for i := j - 1; i >= 0 && base < 0; i-- {
			if a.saw[j][i] && a.saw[n][i] {
				base = i
			}
		}
		a.overridden[j] = newest && (base < 0 || !saysTheSame(h[j], h[base], false))
	}
}

// lost is how many validations the version in force does not count.
func (a *apartness) lost() int {
	n := a.h[len(a.h)-1]
	if n.Kind != record.Pattern {
		return 0
	}
	return max(0, a.made-n.Validations)
}

// saysTheSame reports whether two versions say the same, their envelope
// (time, author, branch, commit) and anchors aside (a revision follows
// them to the code each checkout has); with counts false, their
// confidence and validations aside too: what a person wrote or decided.
func saysTheSame(a, b *record.Record, counts bool) bool {
	return said(a, counts) == said(b, counts)
}

func said(r *record.Record, counts bool) string {
	c := *r
	c.V, c.Time, c.Created, c.Source = 0, time.Time{}, time.Time{}, record.Pos{}
	c.Author, c.Branch, c.Commit, c.Anchors = "", "", "", nil
	if !counts {
		c.Confidence, c.Validations = nil, 0
	}
	b, _ := c.MarshalLine()
	return string(b)
}

// SaysTheSame reports whether two versions of a record say the same, where
// and when they were written and their anchors aside, counts included:
// two such versions cannot be one after the other (a verb that changes
// nothing writes nothing), so they were made apart from an earlier one.
func SaysTheSame(a, b *record.Record) bool { return saysTheSame(a, b, true) }

// apart reports the records changed apart, and the patterns validated
// apart, among the candidates; with fix, it writes for each such pattern
// a version that counts every validation, when this checkout holds them
// all in its commit. Each record is first told from what the check kept;
// only one found apart is read again, to compare what its versions say.
func (s *Store) apart(ctx context.Context, cands [][]versionRef, rr *rereader, fix bool) ([]Problem, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	o := s.newSawOracle()
	hs := make([][]*record.Record, len(cands))
	for i, refs := range cands {
		h := rr.light(refs)
		if h == nil {
			h = rr.history(refs)
		}
		hs[i] = h
		if len(h) >= 2 && !h[len(h)-1].Purged() {
			o.needFor(h)
		}
	}
	o.ask(ctx)
	var found []int
	for i, h := range hs {
		if len(h) >= 2 && !h[len(h)-1].Purged() && analyse(h, o.sawOrUnknown).apart() {
			found = append(found, i)
		}
	}
	for _, i := range found {
		hs[i] = rr.history(cands[i])
		o.needAll(hs[i])
	}
	o.ask(ctx)
	var probs []Problem
	var short []*apartness
	for _, i := range found {
		h := hs[i]
		if len(h) < 2 || h[len(h)-1].Purged() {
			continue // a purged record's versions are backFromPurge's
		}
		a := analyse(h, o.sawOrUnknown)
		a.findOverridden()
		n := h[len(h)-1]
		for j, v := range h {
			if a.overridden[j] {
				probs = append(probs, Problem{File: v.Source.File, Line: v.Source.Line, Kind: "changed-apart", Message: changedApart(v, n)})
			}
		}
		if a.lost() > 0 {
			short = append(short, a)
		}
	}
	if len(short) == 0 {
		return probs, nil
	}
	// A version doctor writes is read, later, as having seen the versions
	// whose shards its commit holds: it counts them only if this checkout's
	// HEAD holds them all, as it does once the merge is committed.
	here := s.writtenHere()
	for _, a := range short {
		o.needSeenBy(a.h, here)
	}
	o.ask(ctx)
	for _, a := range short {
		n := a.h[len(a.h)-1]
		p := Problem{File: n.Source.File, Line: n.Source.Line, Kind: "validated-apart", Fixable: true}
		all := o.sawAll(a.h, here)
		count := n.Derive(n.Time, record.Origin{})
		patterns.Count(count, a.lost())
		p.Message = fmt.Sprintf("%s was validated in two places apart (%s): the version in force counts %d validation%s of the %d made, confidence %s (%s with all)",
			n.Short(), whereApart(a), n.Validations, plural(n.Validations), a.made, patterns.ConfidenceText(n), patterns.ConfidenceText(count))
		switch {
		case !all:
			p.Fixable = false
			p.Message += ": commit the merge that brought them together, then run 'lore doctor --fix' to count them all"
		case fix:
			now := s.Clock()
			if !now.After(n.Time) { // as Tx.Next: after the version in force
				now = n.Time.Add(time.Millisecond)
			}
			next := n.Derive(now, s.Origin())
			patterns.Count(next, a.lost())
			if err := s.appendLocked(next); err != nil {
				return nil, err
			}
			p.Fixed = true
			p.Message += fmt.Sprintf("; wrote a version that counts all %d", a.made)
		}
		probs = append(probs, p)
	}
	return probs, nil
}

// changedApart is the message for v, a version the one in force, n, was
// made without seeing, and overrides.
func changedApart(v, n *record.Record) string {
	settle := "revise it to say what holds (lore journal revise " + v.Short() + ")"
	if v.Kind == record.Pattern {
		settle = "validate or deprecate it to say which holds (lore patterns validate|deprecate " + v.Short() + ")"
	}
	return fmt.Sprintf("%s was changed in two places apart: this version (%s) and the one in force (%s, %s) were each made without seeing the other, and lore serves that one alone; 'lore show %s' lists both: %s",
		v.Short(), madeBy(v), madeBy(n), n.Source, v.Short(), settle)
}

// whereApart names where the versions that counted validations apart
// were made: the origins of the unseen ones and of the one in force.
func whereApart(a *apartness) string {
	var where []string
	for j, v := range a.h {
		if (a.unseen[j] && a.own[j] > 0 || j == len(a.h)-1) && !slices.Contains(where, madeBy(v)) {
			where = append(where, madeBy(v))
		}
	}
	return strings.Join(where, "; ")
}

// madeBy is who made a version and on which branch: "Bob on bob/golden".
func madeBy(v *record.Record) string {
	who, _, _ := strings.Cut(v.Author, " <")
	who = cmp.Or(strings.TrimSpace(who), "someone")
	if v.Branch == "" {
		return who + " on a detached HEAD"
	}
	return who + " on " + v.Branch
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
