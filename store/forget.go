package store

import (
	"os"
	"sort"
	"strings"

	"lore/record"
)

// Purged says what Purge removed.
type Purged struct {
	ID       string
	Versions int
	Files    []string // shards rewritten, relative to the repository
}

// Purge removes every version of the record id from the shards that hold
// it: the one rewrite of history-in-files lore does, for a record captured
// by mistake (a secret, say). Every other record is verified to survive.
func (s *Store) Purge(id string) (*Purged, error) {
	unlock, err := s.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	set, err := s.Load(mustKind(id))
	if err != nil {
		return nil, err
	}
	hist := set.History(id)
	if len(hist) == 0 {
		return nil, &NotFoundError{id}
	}
	out := &Purged{ID: id, Versions: len(hist)}
	files := map[string]bool{}
	for _, v := range hist {
		files[v.Source.File] = true
	}
	paths, err := s.Files(mustKind(id))
	if err != nil {
		return nil, err
	}
	for _, path := range paths {
		if !files[s.Rel(path)] {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		kept := withoutRecord(path, data, id)
		if err := s.rewriteShard(path, data, kept, map[string]bool{id: true}); err != nil {
			return nil, err
		}
		out.Files = append(out.Files, s.Rel(path))
	}
	sort.Strings(out.Files)
	return out, nil
}

func mustKind(id string) record.Kind { k, _ := record.KindOfID(id); return k }

// withoutRecord returns a shard's content without the lines (JSONL) or
// tables (TOML) of record id; everything else stays byte for byte.
func withoutRecord(path string, data []byte, id string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	var b strings.Builder
	if !strings.HasSuffix(path, ".toml") {
		for _, l := range lines {
			if r, err := record.UnmarshalLine([]byte(strings.TrimSpace(l))); err == nil && r.ID == id {
				continue
			}
			b.WriteString(l)
		}
		return []byte(b.String())
	}
	chunks, _ := record.SplitTables(data)
	drop := map[int]bool{}
	for i, c := range chunks {
		if r, err := record.UnmarshalTable(c); err == nil && r.ID == id {
			end := len(lines) + 1
			if i+1 < len(chunks) {
				end = chunks[i+1].Line
			}
			for l := c.Line; l < end; l++ {
				drop[l] = true
			}
		}
	}
	for i, l := range lines {
		if !drop[i+1] {
			b.WriteString(l)
		}
	}
	return []byte(b.String())
}
