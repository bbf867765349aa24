package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"lore/kinds"
	"lore/record"
)

// Purged says what Purge removed of one record.
type Purged struct {
	ID       string
	Versions int      // content versions; 0 for a record purged already, with nothing back
	Files    []string // shards rewritten, relative to the repository
}

// Lineage returns id and every record derived from it: the records a
// version of it was promoted to and the records made from it (whose from
// names it), and theirs in turn. Promotion copies the text, so purging a
// record must take these with it. id comes first, then the others in the
// order they were reached, each step's in ID order.
func (set *Set) Lineage(id string) []string {
	children := map[string][]string{}
	for cid, vs := range set.versions {
		for _, v := range vs {
			if v.From != "" && !slices.Contains(children[v.From], cid) {
				children[v.From] = append(children[v.From], cid)
			}
		}
	}
	out := []string{id}
	seen := map[string]bool{id: true}
	for i := 0; i < len(out); i++ {
		var next []string
		for _, v := range set.versions[out[i]] {
			if v.PromotedTo != "" {
				next = append(next, v.PromotedTo)
			}
		}
		next = append(next, children[out[i]]...)
		sort.Strings(next)
		for _, n := range next {
			// A promotion whose record is not in the store (not pulled
			// yet, or purged before) leaves nothing to purge here.
			if !seen[n] && len(set.versions[n]) > 0 {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// minQuote is the shortest text Quoting looks for: shorter ones (a tag, a
// one-word next step) turn up everywhere without being copies.
const minQuote = 8

// Quoting returns the records outside ids, in ID order, with a version
// that contains a text field of a version of one of ids: copies a purge
// of ids would leave behind. Every field is searched, unknown ones too.
func (set *Set) Quoting(ids []string) []string {
	var needles [][]byte
	for _, f := range set.Texts(ids) {
		needles = append(needles, jsonEscaped(f))
	}
	var out []string
	for id, vs := range set.versions {
		if slices.Contains(ids, id) || len(needles) == 0 {
			continue
		}
		if slices.ContainsFunc(vs, func(v *record.Record) bool {
			line, err := v.MarshalLine()
			return err == nil && slices.ContainsFunc(needles, func(n []byte) bool { return bytes.Contains(line, n) })
		}) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Texts is what every version of the records ids says, field by field,
// trimmed, leaving out fields shorter than minQuote: what a copy of them
// elsewhere would hold.
func (set *Set) Texts(ids []string) []string {
	var out []string
	for _, id := range ids {
		for _, v := range set.versions[id] {
			fields := append([]string{v.Text, v.Rationale, v.Alternatives, v.Context, v.Solution}, v.Next...)
			for _, f := range append(fields, v.Blocked...) {
				if f = strings.TrimSpace(f); utf8.RuneCountInString(f) >= minQuote {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// jsonEscaped is s as it appears inside a JSON string in a record's line
// (JSON escapes character by character, so a quote stays a substring).
func jsonEscaped(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as record.MarshalLine
	_ = enc.Encode(s)
	b := bytes.TrimRight(buf.Bytes(), "\n")
	return b[1 : len(b)-1]
}

// Purge removes every version of the records ids from the shards that
// hold them: the one rewrite of history-in-files lore does, for a record
// captured by mistake (a secret, say). ids must hold the Lineage of each
// of them, as listed when the user confirmed: should a record have been
// derived from one since, nothing is purged. Every other record is
// verified to survive.
func (s *Store) Purge(ids ...string) ([]Purged, error) {
	unlock, err := s.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Every kind: a lineage crosses kinds (an observation promoted to a
	// pattern).
	set, err := s.Load()
	if err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	for _, id := range ids {
		drop[id] = true
	}
	out := make([]Purged, 0, len(ids))
	files := map[string]bool{}
	for _, id := range ids {
		if len(set.History(id)) == 0 {
			return nil, &NotFoundError{Ref: id}
		}
		for _, d := range set.Lineage(id) {
			if !drop[d] {
				return nil, fmt.Errorf("%s was made from %s after the list to purge was drawn up; nothing purged, run lore forget again",
					record.ShortID(d), record.ShortID(id))
			}
		}
		// An earlier purge's tombstone stays where it is; a new one is
		// appended below.
		content := set.Content(id)
		p := Purged{ID: id, Versions: len(content)}
		for _, v := range content {
			if !slices.Contains(p.Files, v.Source.File) {
				p.Files = append(p.Files, v.Source.File)
			}
			files[v.Source.File] = true
		}
		sort.Strings(p.Files)
		out = append(out, p)
	}
	paths, err := s.Files()
	if err != nil {
		return nil, err
	}
	// Every shard's new content is worked out, and checked to hold none of
	// the records, before any is written.
	type rewrite struct {
		path     string
		old, new []byte
	}
	var rewrites []rewrite
	for _, path := range paths {
		if !files[s.Rel(path)] {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		w := rewrite{path, data, withoutRecords(path, data, drop)}
		if err := s.stillHolds(path, w.new, drop); err != nil {
			return nil, err
		}
		rewrites = append(rewrites, w)
	}
	for _, w := range rewrites {
		if err := s.rewriteShard(w.path, w.old, w.new, drop); err != nil {
			return nil, err
		}
		if err := removeLeftovers(w.path); err != nil {
			return nil, err
		}
	}
	// A tombstone for each, so that a version another branch holds (a
	// revision made there before the purge) stays purged when it is merged.
	for _, p := range out {
		if p.Versions == 0 {
			continue // purged before, and nothing came back: its tombstone stands
		}
		if err := s.appendLocked(record.Tombstone(set.Get(p.ID), s.Clock(), s.Origin())); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// removeLeftovers deletes the temporary copies of the shard at path that
// interrupted rewrites left beside it (WriteAtomic's .tmp-NAME-*): each
// holds the shard's text from before, a purged record's too. Rewrites run
// under the lock, which the caller holds, so none is a write in progress.
func removeLeftovers(path string) error {
	dir, prefix := filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-"
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		n := filepath.Join(dir, e.Name())
		if err := os.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s holds a copy of the shard from before the purge and cannot be removed: %w", n, err)
		}
	}
	return nil
}

// stillHolds refuses a shard's purged content that still holds a version
// of a record to purge: one inside a TOML table a merge left in conflict,
// which does not parse as a table and so cannot be cut out (a purge that
// said done would leave a secret in the file).
func (s *Store) stillHolds(path string, content []byte, drop map[string]bool) error {
	recs, _, _ := kinds.ParseShard(s.Rel(path), content)
	for _, r := range recs {
		if drop[r.ID] && !r.Purged() {
			return fmt.Errorf("%s: %s is in a table git left in merge conflict, which lore cannot cut out: resolve the conflict (keep either side), then purge again; nothing was purged",
				r.Source, record.ShortID(r.ID))
		}
	}
	return nil
}

// withoutRecords returns a shard's content without the lines (JSONL) or
// tables (TOML) of the records in drop; everything else stays byte for
// byte.
func withoutRecords(path string, data []byte, drop map[string]bool) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	var b strings.Builder
	if !strings.HasSuffix(path, ".toml") {
		for _, l := range lines {
			t := strings.TrimSpace(l)
			if r, err := record.UnmarshalLine([]byte(t)); err == nil && drop[r.ID] {
				continue
			}
			// A record appended after a torn fragment on its line: the
			// fragment stays, for doctor to report.
			if at, r := record.TornBefore([]byte(t)); r != nil && drop[r.ID] {
				b.WriteString(l[:strings.Index(l, t)+at] + lineEnding(l))
				continue
			}
			b.WriteString(l)
		}
		return []byte(b.String())
	}
	chunks, _ := record.SplitTables(data)
	skip := map[int]bool{}
	for i, c := range chunks {
		if r, err := record.UnmarshalTable(c); err == nil && drop[r.ID] {
			end := len(lines) + 1
			if i+1 < len(chunks) {
				end = chunks[i+1].Line
			}
			for l := c.Line; l < end; l++ {
				skip[l] = true
			}
		}
	}
	for i, l := range lines {
		if !skip[i+1] {
			b.WriteString(l)
		}
	}
	return []byte(b.String())
}
