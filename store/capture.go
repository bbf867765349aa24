package store

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"lore/record"
)

// ErrEmptyText is returned for a capture with nothing to say.
var ErrEmptyText = errors.New("text is empty")

// ErrAllPrivate is returned when dropping <private> spans leaves no text.
var ErrAllPrivate = errors.New("nothing is left to write once the <private> spans are dropped")

// New starts a record of kind k: a fresh ID, timestamps, and the git
// origin. The kind package fills its own fields and calls Append.
func (s *Store) New(k record.Kind, text string, tags []string) (*record.Record, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, ErrEmptyText
	}
	now := s.Clock()
	o := s.Origin()
	return &record.Record{
		V: record.FormatVersion, ID: record.NewID(k, now), Kind: k, Time: now, Created: now,
		Text: text, Tags: NormalizeTags(tags),
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
	return fmt.Sprintf("%s is a %s, not a %s", record.ShortID(e.ID), e.Is, e.Want)
}

// Update appends the next version of the record ref names (an ID or unique
// prefix of kind k): change edits a copy of the current version. The new
// version's timestamp is after the current one even if this machine's clock
// is behind the clone that wrote it, so it always supersedes.
func (s *Store) Update(k record.Kind, ref string, change func(r *record.Record) error) (*record.Record, error) {
	set, err := s.Load(k)
	if err != nil {
		return nil, err
	}
	id, err := set.Resolve(ref)
	if err != nil {
		if _, nf := err.(*NotFoundError); nf {
			if other, ok := record.KindOfID(strings.ToLower(ref)); ok && other != k {
				return nil, &WrongKindError{ref, other, k}
			}
		}
		return nil, err
	}
	cur := set.Get(id)
	now := s.Clock()
	if !now.After(cur.Time) {
		now = cur.Time.Add(time.Millisecond)
	}
	next := cur.Derive(now, s.Origin())
	if err := change(next); err != nil {
		return nil, err
	}
	if err := s.Append(next); err != nil {
		return nil, err
	}
	return next, nil
}

// NormalizeTags splits comma-separated tags, trims, lowercases and drops
// duplicates and empties, keeping the first-seen order.
func NormalizeTags(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range in {
		for _, p := range strings.Split(t, ",") {
			p = strings.ToLower(strings.TrimSpace(p))
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
