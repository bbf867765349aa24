package store

import (
	"context"
	"path/filepath"
	"strings"

	"lore/gitrepo"
	"lore/record"
)

// sawOracle tells whether the writer of a version v saw an older version
// w of the same record. A version is stamped with the commit its writer
// had checked out (HEAD); shards are only ever added, each by the commit
// after the HEAD it was written at, so v's writer saw w if the tree of
// v's commit holds w's shard. What the stamps tell without git is taken
// first (rule); the rest is asked of git in one cat-file for all pairs.
type sawOracle struct {
	s      *Store
	exists map[string]bool  // commit: in this repository (once asked)
	holds  map[treeKey]bool // the commit's tree holds the shard (once asked)
	asked  map[string]bool  // commits asked about
	queue  map[treeKey]bool // lookups not yet asked
	order  []treeKey        // the queue in the order needed
}

// treeKey is a lookup: does commit's tree hold shard (relative to the store)?
type treeKey struct{ commit, shard string }

func (s *Store) newSawOracle() *sawOracle {
	return &sawOracle{s: s, exists: map[string]bool{}, holds: map[treeKey]bool{}, asked: map[string]bool{}, queue: map[treeKey]bool{}}
}

// rule is what the stamps tell of whether v's writer saw w, an older
// version: an answer (known), or the lookup that answers.
func (o *sawOracle) rule(w, v *record.Record) (saw, known bool, key treeKey) {
	switch {
	case w.Source.File != "" && w.Source.File == v.Source.File:
		return true, true, key // one shard: one checkout, in order
	case w.Author != "" && w.Author == v.Author && (w.Branch == v.Branch || w.Commit == v.Commit):
		// One person on one branch, or at one HEAD (a branch made
		// before committing): taken as one checkout, one after the other.
		return true, true, key
	case w.Commit != "" && w.Commit == v.Commit:
		// Two people at one HEAD: it cannot hold a shard written on it.
		return false, true, key
	}
	shard := o.s.storeRel(w.Source.File)
	if !fullCommit(v.Commit) || shard == "" {
		return false, false, key
	}
	return false, false, treeKey{v.Commit, shard}
}

// need queues the lookup saw(w, v) will want.
func (o *sawOracle) need(w, v *record.Record) {
	if _, known, key := o.rule(w, v); !known && key.commit != "" {
		if _, done := o.holds[key]; !done && !o.queue[key] {
			o.queue[key] = true
			o.order = append(o.order, key)
		}
	}
}

// needFor queues what tells whether h (oldest first) was changed apart:
// whether the writer of the version in force saw each other one, and, for
// a pattern two origins validated to one count (both above where they
// started: the validations may have been made apart), every pair, which
// tells how many were made. A fork the version in force saw that is no
// such pattern lost no validation.
func (o *sawOracle) needFor(h []*record.Record) {
	n := h[len(h)-1]
	for _, w := range h[:len(h)-1] {
		o.need(w, n)
	}
	if n.Kind != record.Pattern {
		return
	}
	for i, v := range h {
		for _, w := range h[:i] {
			if w.Validations == v.Validations && v.Validations > 0 && (w.Author != v.Author || w.Branch != v.Branch) {
				o.needAll(h)
				return
			}
		}
	}
}

// needAll queues every lookup analyse will want of h.
func (o *sawOracle) needAll(h []*record.Record) {
	for i, v := range h {
		for _, w := range h[:i] {
			o.need(w, v)
		}
	}
}

// writtenHere is the envelope of a version written now, at this
// checkout's HEAD: whether its writer saw a version is whether HEAD holds
// that version's shard (what doctor --fix and a pattern verb write).
func (s *Store) writtenHere() *record.Record {
	head := s.Origin()
	return &record.Record{Author: head.Author, Branch: head.Branch, Commit: head.Commit}
}

// needSeenBy queues the lookups sawAll(h, v) will want.
func (o *sawOracle) needSeenBy(h []*record.Record, v *record.Record) {
	for _, w := range h {
		o.need(w, v)
	}
}

// sawAll reports whether the writer of v surely saw every version of h.
func (o *sawOracle) sawAll(h []*record.Record, v *record.Record) bool {
	for _, w := range h {
		if !o.sawSure(w, v) {
			return false
		}
	}
	return true
}

// ask runs the queued lookups in one git cat-file --batch-check: first
// whether each commit is in the repository (a rebase or a shallow clone
// can leave it out; then nothing is known), then each commit:path. Without
// git, nothing is known.
func (o *sawOracle) ask(ctx context.Context) {
	if len(o.order) == 0 {
		return
	}
	var in strings.Builder
	var commits []string
	for _, k := range o.order {
		if !o.asked[k.commit] {
			o.asked[k.commit] = true
			commits = append(commits, k.commit)
			in.WriteString(k.commit + "\n")
		}
	}
	for _, k := range o.order {
		in.WriteString(k.commit + ":./" + k.shard + "\n")
	}
	order := o.order
	o.order, o.queue = nil, map[treeKey]bool{}
	out, err := gitrepo.RunInput(ctx, o.s.Getenv, o.s.Dir, in.String(), "cat-file", "--batch-check")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if err != nil || len(lines) != len(commits)+len(order) {
		return
	}
	for i, c := range commits {
		o.exists[c] = objectType(lines[i]) == "commit"
	}
	for i, k := range order {
		o.holds[k] = objectType(lines[len(commits)+i]) == "blob"
	}
}

// objectType is the type cat-file --batch-check names on a line ("<oid>
// <type> <size>"), or "" for a missing or ambiguous name.
func objectType(line string) string {
	if f := strings.Fields(line); len(f) == 3 {
		return f[1]
	}
	return ""
}

// saw reports whether v's writer saw w, and whether that is known.
func (o *sawOracle) saw(w, v *record.Record) (saw, known bool) {
	saw, known, key := o.rule(w, v)
	if known || key.commit == "" || !o.exists[key.commit] {
		return saw, known
	}
	held, asked := o.holds[key]
	return held, asked
}

// sawOrUnknown is saw with what is not known taken as seen: a version
// made apart is reported only when git says so.
func (o *sawOracle) sawOrUnknown(w, v *record.Record) bool {
	saw, known := o.saw(w, v)
	return saw || !known
}

// sawSure is saw with what is not known taken as not seen.
func (o *sawOracle) sawSure(w, v *record.Record) bool {
	saw, known := o.saw(w, v)
	return saw && known
}

// storeRel is a version's shard (its Source.File, named as Rel names it)
// relative to the store, with slashes, or "" if it is not in the store.
func (s *Store) storeRel(file string) string {
	if file == "" || strings.ContainsAny(file, "\n\r") {
		return ""
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(s.Dir), file)
	}
	rel, err := filepath.Rel(s.Dir, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// fullCommit reports whether c is a whole object name (SHA-1 or SHA-256):
// an abbreviation could name two objects.
func fullCommit(c string) bool {
	if len(c) != 40 && len(c) != 64 {
		return false
	}
	return strings.Trim(c, "0123456789abcdef") == ""
}
