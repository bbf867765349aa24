package store

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"lore/kinds"
	"lore/record"
)

// seenVersion is all doctor keeps of a version once its shard is checked:
// doctor streams. Holding every record to the end for the tie check made
// the heap grow with the store, past what the collector is allowed at 300k
// records (doctor took 1.9 s there against 0.49 s at 100k).
type seenVersion struct {
	id     string
	time   time.Time
	line   int32
	valid  int16 // validations (of a pattern), at most 32767: in the padding
	purged bool  // a purge's tombstone
	active bool  // in the padding after purged: no bigger per version
}

// triaged is an observation's version that promoted it (to the record
// promotedTo) or dismissed it (""), the j-th of its shard: two clones can
// each triage one observation, which one clone refuses but a merge keeps
// (triagedTwice). Few versions are, so they are kept apart.
type triaged struct {
	j          int
	promotedTo string
}

// versionRef is the j-th record read from shard i.
type versionRef struct{ shard, j int32 }

// versionsByID is every version doctor kept, by ID, each ID's in the order
// read: the ties and the versions made apart are looked for in it.
func versionsByID(results []shardCheck) map[string][]versionRef {
	byID := map[string][]versionRef{}
	for i, r := range results {
		for j, v := range r.versions {
			byID[v.id] = append(byID[v.id], versionRef{int32(i), int32(j)})
		}
	}
	return byID
}

// rereader reads again the shards of the few versions a check needs whole,
// each shard once.
type rereader struct {
	s       *Store
	files   []string
	results []shardCheck
	read    map[int32][]*record.Record
}

func (s *Store) rereader(files []string, results []shardCheck) *rereader {
	return &rereader{s: s, files: files, results: results, read: map[int32][]*record.Record{}}
}

// get is the version ref names, or nil if its shard changed since it was
// checked.
func (rr *rereader) get(ref versionRef) *record.Record {
	recs, ok := rr.read[ref.shard]
	if !ok {
		if data, err := os.ReadFile(rr.files[ref.shard]); err == nil {
			recs, _, _ = kinds.ParseShard(rr.s.Rel(rr.files[ref.shard]), data)
		}
		rr.read[ref.shard] = recs
	}
	want := rr.results[ref.shard].versions[ref.j]
	if int(ref.j) >= len(recs) || recs[ref.j].ID != want.id || !recs[ref.j].Time.Equal(want.time) {
		return nil
	}
	return recs[ref.j]
}

// ties reports the versions of one ID with the same timestamp but
// different content. Candidates (same ID, same timestamp) are found from
// what the check kept; only their shards are read again, to compare
// content: the same version reached the store twice is harmless.
func (s *Store) ties(results []shardCheck, byID map[string][]versionRef, rr *rereader) []Problem {
	var pairs [][2]versionRef
	for _, refs := range byID {
		for b, rb := range refs {
			for _, ra := range refs[:b] {
				if results[ra.shard].versions[ra.j].time.Equal(results[rb.shard].versions[rb.j].time) {
					pairs = append(pairs, [2]versionRef{ra, rb})
				}
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	// In the order read: the later version of each pair, then the earlier.
	slices.SortFunc(pairs, func(p, q [2]versionRef) int {
		return cmp.Or(compareRefs(p[1], q[1]), compareRefs(p[0], q[0]))
	})
	// As Set.add: a version that repeats an earlier one is dropped, and
	// takes part in no further pair (A, B, then A again is one tie).
	var probs []Problem
	dropped := map[versionRef]bool{}
	for _, p := range pairs {
		if dropped[p[0]] || dropped[p[1]] {
			continue
		}
		a, b := rr.get(p[0]), rr.get(p[1])
		if a == nil || b == nil {
			continue
		}
		if sameVersion(a, b) {
			dropped[p[1]] = true
			continue
		}
		winner := a
		if record.Newer(b, a) {
			winner = b
		}
		msg := fmt.Sprintf("%s has two different versions at %s (the other at %s); lore serves the one in %s: revise the record to settle it",
			record.ShortID(a.ID), a.Time.Format(time.RFC3339Nano), a.Source, winner.Source)
		if a.Source == b.Source {
			// The two sides of a conflict inside one table: both are read
			// from the table that starts here.
			msg = fmt.Sprintf("%s has two different versions at %s, the two sides of the merge conflict in this table; lore serves one of them until the conflict is resolved",
				record.ShortID(a.ID), a.Time.Format(time.RFC3339Nano))
		}
		probs = append(probs, Problem{File: b.Source.File, Line: b.Source.Line, Kind: "tie", Message: msg})
	}
	return probs
}

// compareRefs orders versions as doctor read them: by shard, then line.
func compareRefs(a, b versionRef) int {
	return cmp.Or(cmp.Compare(a.shard, b.shard), cmp.Compare(a.j, b.j))
}

// backFromPurge reports every version of a purged record other than its
// tombstones: a merge brought it back from a branch that held it (a
// revision made there before the purge). Readers hide it; only another
// purge removes its text from the files.
func (s *Store) backFromPurge(files []string, results []shardCheck) []Problem {
	purged := map[string]bool{}
	for _, r := range results {
		for _, v := range r.versions {
			if v.purged {
				purged[v.id] = true
			}
		}
	}
	var probs []Problem
	for i, r := range results {
		for _, v := range r.versions {
			if purged[v.id] && !v.purged {
				probs = append(probs, Problem{File: s.Rel(files[i]), Line: int(v.line), Kind: "purged",
					Message: fmt.Sprintf("%s was purged, but a merge brought this version of it back (lore shows none of it): run 'lore forget %s --purge' to remove it from the files",
						record.ShortID(v.id), record.ShortID(v.id))})
			}
		}
	}
	return probs
}

// triagedTwice reports an observation two clones triaged apart (the merge
// kept both): promoted to two records, which are then both live, or
// promoted in one and dismissed in the other, which hides the promotion
// while the record made from it stays live.
func (s *Store) triagedTwice(files []string, results []shardCheck) []Problem {
	type triage struct {
		to        []string  // the records it was promoted to, in the order read
		promoted  time.Time // its first promotion
		dismissed time.Time // its last dismissal
		file      string
		line      int
	}
	seen := map[string]*triage{}
	var order []string
	for i, r := range results {
		for _, tv := range r.triage {
			v := r.versions[tv.j]
			t := seen[v.id]
			if t == nil {
				t = &triage{}
				seen[v.id] = t
				order = append(order, v.id)
			}
			t.file, t.line = s.Rel(files[i]), int(v.line)
			switch {
			case tv.promotedTo == "":
				if v.time.After(t.dismissed) {
					t.dismissed = v.time
				}
			case t.promoted.IsZero() || v.time.Before(t.promoted):
				t.promoted = v.time
			}
			if tv.promotedTo != "" && !slices.Contains(t.to, tv.promotedTo) {
				t.to = append(t.to, tv.promotedTo)
			}
		}
	}
	// Whether each record made from an observation is live: retiring all
	// but one settles it.
	type newest struct {
		time   time.Time
		active bool
	}
	made := map[string]*newest{}
	for _, t := range seen {
		for _, r := range t.to {
			made[r] = &newest{}
		}
	}
	for _, r := range results {
		for _, v := range r.versions {
			if n := made[v.id]; n != nil && !v.time.Before(n.time) {
				n.time, n.active = v.time, v.active
			}
		}
	}
	var probs []Problem
	for _, id := range order {
		t := seen[id]
		var to []string // the live ones
		for _, r := range t.to {
			if n := made[r]; !n.time.IsZero() && n.active {
				to = append(to, record.ShortID(r))
			}
		}
		var msg string
		switch {
		case len(to) > 1:
			msg = fmt.Sprintf("%s was promoted to %s in different clones (a merge kept each, both live): keep one and retire the rest", record.ShortID(id), strings.Join(to, " and "))
		case len(to) == 1 && t.dismissed.After(t.promoted):
			// A clone dismisses after a promotion only if it never saw it
			// (lore refuses to); dismissed, then promoted, is a change of mind.
			msg = fmt.Sprintf("%s was promoted to %s in one clone and dismissed in another (a merge kept both): retire %s if it is not wanted", record.ShortID(id), to[0], to[0])
		default:
			continue
		}
		probs = append(probs, Problem{File: t.file, Line: t.line, Kind: "triaged-twice", Message: msg})
	}
	// Records made from an observation that records no promotion to them:
	// inbox promote writes the record, then the observation's promoted
	// version, and a crash between the two left the record with the
	// observation still in the inbox, where a retry made it twice.
	newestOf := map[string]time.Time{}
	for _, r := range results {
		for _, m := range r.made {
			newestOf[r.versions[m.j].id] = time.Time{}
		}
	}
	for _, r := range results {
		for _, v := range r.versions {
			if t, ok := newestOf[v.id]; ok && v.time.After(t) {
				newestOf[v.id] = v.time
			}
		}
	}
	for i, r := range results {
		for _, m := range r.made {
			v := r.versions[m.j]
			if t := seen[m.promotedTo]; t != nil && slices.Contains(t.to, v.id) {
				continue
			}
			if !v.active || newestOf[v.id].After(v.time) {
				continue // retired since, or not its newest version
			}
			msg := fmt.Sprintf("%s was made from %s, which records no promotion to it (a promote cut short): ", record.ShortID(v.id), record.ShortID(m.promotedTo))
			if t := seen[m.promotedTo]; t != nil && len(t.to) > 0 {
				msg += fmt.Sprintf("%s was promoted to %s since; keep one and retire the other", record.ShortID(m.promotedTo), record.ShortID(t.to[0]))
			} else {
				msg += fmt.Sprintf("run 'lore inbox dismiss %s', as %s holds it now", record.ShortID(m.promotedTo), record.ShortID(v.id))
			}
			probs = append(probs, Problem{File: s.Rel(files[i]), Line: int(v.line), Kind: "triaged-twice", Message: msg})
		}
	}
	return probs
}
