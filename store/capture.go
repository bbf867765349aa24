package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"lore/kinds"
	"lore/record"
	"lore/secrets"
)

// ErrAllPrivate is returned when dropping <private> spans leaves no text.
var ErrAllPrivate = errors.New("nothing is left to write once the <private> spans are dropped")

// MaxRecordBytes bounds a version as written: a record is a note that
// hooks put in front of an agent, not a log. The command line bounds what
// a shell passes, but MCP and hook input are bounded by nothing else.
const MaxRecordBytes = 64 << 10

// TooLargeError is a version over MaxRecordBytes.
type TooLargeError struct{ Size int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the record is %d KiB written, over the %d KiB a record may hold: record the gist, and keep long text (logs, output) in a file of the repository that --file can point to",
		(e.Size+1023)>>10, MaxRecordBytes>>10)
}

// New starts a record of kind k: a fresh ID, timestamps, and the git
// origin. The kind package fills its own fields and calls Append.
func (s *Store) New(k record.Kind, text string, tags []string) (*record.Record, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, record.ErrEmptyText
	}
	now := s.Clock()
	o := s.Origin()
	// Tags are scrubbed before they are lower-cased: many credential
	// formats are case-sensitive (an AWS key ID, a JWT).
	scrubbed := make([]string, len(tags))
	for i, t := range tags {
		var kinds []string
		scrubbed[i], kinds = secrets.Scrub(t)
		for _, k := range kinds {
			s.Redacted = append(s.Redacted, secrets.Finding{Kind: k, Field: "tags"})
		}
	}
	return &record.Record{
		V: record.FormatVersion, ID: record.NewID(k, now), Kind: k, Time: now, Created: now,
		Text: text, Tags: NormalizeTags(scrubbed),
		Author: o.Author, Branch: o.Branch, Commit: o.Commit,
	}, nil
}

// WrongKindError is a reference to a record of another kind than the verb
// works on.
type WrongKindError struct {
	ID   string
	Is   record.Kind
	Want record.Kind
}

func (e *WrongKindError) Error() string {
	return fmt.Sprintf("%s is %s, not %s", record.ShortID(e.ID), article(e.Is), article(e.Want))
}

// article is "a decision", "an observation".
func article(k record.Kind) string {
	if strings.ContainsRune("aeiou", rune(k[0])) {
		return "an " + string(k)
	}
	return "a " + string(k)
}

// Update appends the next version of the record ref names (an ID or unique
// prefix of kind k): change edits a copy of the current version. The
// current version is read under the store's lock, so concurrent updates
// each build on the one before (none is lost). The new version's timestamp
// is after the current one even if this machine's clock is behind the
// clone that wrote it, so it always supersedes. A pattern's new version
// counts the validations made apart from the current one (countApart).
func (s *Store) Update(k record.Kind, ref string, change func(r *record.Record) error) (*record.Record, error) {
	var next *record.Record
	err := s.Transact(func(tx *Tx) error {
		hist, err := tx.History(k, ref)
		if err != nil {
			return err
		}
		cur := hist[len(hist)-1]
		next = tx.Next(cur)
		counted, err := s.countApart(context.Background(), next, hist)
		if err != nil {
			return err
		}
		if err := change(next); err != nil {
			if !errors.Is(err, record.ErrUnchanged) {
				return err
			}
			if !counted {
				next = cur // nothing to write: the record is already so
				return err
			}
			// The verb changes nothing, the count does: written.
		}
		return tx.Append(next)
	})
	return next, err
}

// datedAfterNewest dates r, a new record, after every record of its kind:
// resume shows the newest handoff, and one written by a clone whose clock
// ran ahead would otherwise hide every handoff recorded after it until the
// clock catches up. Revisions are dated after the current version for the
// same reason (Tx.Next). Only the kind's shards from r's month on are
// read, so the cost follows a month's records, not the store's; a shard
// that does not read is passed over (the capture matters more than its
// date).
func (s *Store) datedAfterNewest(r *record.Record) {
	if newest := s.newestFrom(r.Kind, r.Created); !r.Created.After(newest) {
		r.Created = newest.Add(time.Millisecond)
		r.Time = r.Created
	}
}

// newestFrom is the latest creation date among the records of kind k in
// the month directories from t's month on (zero if there is none).
func (s *Store) newestFrom(k record.Kind, t time.Time) time.Time {
	var newest time.Time
	root := filepath.Join(s.Dir, k.Dir())
	months, _ := os.ReadDir(root)
	from := t.Format(MonthDir)
	for _, m := range months {
		if !m.IsDir() || m.Name() < from {
			continue
		}
		shards, _ := os.ReadDir(filepath.Join(root, m.Name()))
		for _, sh := range shards {
			p := filepath.Join(root, m.Name(), sh.Name())
			if !strings.HasSuffix(p, k.Ext()) || !IsRegular(p, sh) {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			recs, _, _ := kinds.ParseShard(s.Rel(p), data)
			for _, r := range recs {
				if r.Kind == k && r.Created.After(newest) {
					newest = r.Created
				}
			}
		}
	}
	return newest
}

// Finder names the record ref refers to (an ID or unique prefix) and the
// shards, relative to the store, that hold its versions. The index is one;
// without a Finder the store reads every shard of the kind.
type Finder func(ref string) (id string, shards []string, err error)

// Tx is a read-modify-write under the store's lock: what it reads is
// current until it returns, and everything it appends is written under
// the same lock.
type Tx struct {
	s        *Store
	appended []appended // what it wrote, to undo if it fails
}

// Transact runs fn holding the store's lock. If fn fails, what it appended
// is taken back, newest first: inbox promote writes a record and then the
// observation's promoted version, and a full disk that refused the second
// left the first, which a retry made twice.
func (s *Store) Transact(fn func(tx *Tx) error) error {
	unlock, err := s.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	tx := &Tx{s: s}
	err = fn(tx)
	if err != nil {
		for i := len(tx.appended) - 1; i >= 0; i-- {
			tx.appended[i].undo()
		}
	}
	return err
}

// Append writes r, as Store.Append does, within the transaction.
func (tx *Tx) Append(r *record.Record) error {
	a, err := tx.s.appendRecord(r)
	if err == nil {
		tx.appended = append(tx.appended, a)
	}
	return err
}

// undo takes an append back: the shard goes back to its size before, and
// a shard the append created goes.
func (a appended) undo() {
	if a.size == 0 {
		_ = os.Remove(a.path)
		return
	}
	_ = os.Truncate(a.path, a.size)
}

// Next starts the version after cur, stamped now (or just after cur, if
// this clock is behind).
func (tx *Tx) Next(cur *record.Record) *record.Record {
	now := tx.s.Clock()
	if !now.After(cur.Time) {
		now = cur.Time.Add(time.Millisecond)
	}
	return cur.Derive(now, tx.s.Origin())
}

// Current reads the current version of the record of kind k that ref
// names (see History).
func (tx *Tx) Current(k record.Kind, ref string) (*record.Record, error) {
	hist, err := tx.History(k, ref)
	if err != nil {
		return nil, err
	}
	return hist[len(hist)-1], nil
}

// History reads every version of the record of kind k that ref names,
// oldest first, the current one last, from the shards that hold it and
// the shard this checkout appends to (where any version written since the
// Finder last looked would be).
func (tx *Tx) History(k record.Kind, ref string) ([]*record.Record, error) {
	s := tx.s
	wrongKind := func(err error) error {
		var nf *NotFoundError
		if errors.As(err, &nf) {
			if other, ok := record.KindOfID(strings.ToLower(ref)); ok && other != k {
				return &WrongKindError{ref, other, k}
			}
		}
		return err
	}
	var hist []*record.Record
	if s.Finder == nil {
		set, err := s.Load(k)
		if err != nil {
			return nil, err
		}
		id, err := set.Resolve(ref)
		if err != nil {
			return nil, wrongKind(err)
		}
		hist = set.History(id)
	} else {
		id, shards, err := s.Finder(ref)
		if err != nil {
			return nil, wrongKind(err)
		}
		if other, _ := record.KindOfID(id); other != k {
			return nil, &WrongKindError{id, other, k}
		}
		if cur := CurrentShard(s, k); cur != "" && !slices.Contains(shards, cur) {
			shards = append(shards, cur)
		}
		for _, rel := range shards {
			abs := filepath.Join(s.Dir, rel)
			data, err := os.ReadFile(abs)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			recs, _, err := kinds.ParseShard(s.Rel(abs), data)
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				if r.ID == id {
					hist = append(hist, r)
				}
			}
		}
		record.SortOldestFirst(hist)
		// One version in two shards (a shard copied by a rename) is one.
		hist = slices.CompactFunc(hist, func(a, b *record.Record) bool { return !record.Newer(a, b) && !record.Newer(b, a) })
	}
	if len(hist) == 0 || hist[len(hist)-1].Purged() {
		return nil, &NotFoundError{Ref: ref, Purged: len(hist) > 0}
	}
	return hist, nil
}

// NormalizeTags splits comma-separated tags, trims, lowercases and drops
// duplicates and empties, keeping the first-seen order. The commas of
// Chinese and Japanese input (，、､) separate too: "数据库，性能" is two.
func NormalizeTags(in []string) []string {
	var out []string
	seen := map[string]bool{}
	comma := func(r rune) bool { return r == ',' || r == '，' || r == '、' || r == '､' }
	for _, t := range in {
		for _, p := range strings.FieldsFunc(t, comma) {
			p = strings.ToLower(strings.TrimSpace(p))
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
