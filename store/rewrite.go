package store

import (
	"fmt"
	"path/filepath"
	"strings"

	"lore/kinds"
	"lore/record"
)

// rewriteShard replaces a shard's content atomically (temporary file,
// fsync, rename), but only if every record version in the old content is
// still in the new, except those of the IDs in drop. Call with the store
// locked.
func (s *Store) rewriteShard(path string, old, new []byte, drop map[string]bool) error {
	parse := func(data []byte) (map[string]bool, error) { return shardVersions(path, data) }
	before, err := parse(old)
	if err != nil {
		return err
	}
	after, err := parse(new)
	if err != nil {
		return err
	}
	for k := range before {
		if !after[k] {
			r, _ := record.UnmarshalLine([]byte(strings.TrimSpace(k)))
			if r == nil || !drop[r.ID] {
				return fmt.Errorf("%s: refusing to rewrite: a record version would be lost", s.Rel(path))
			}
		}
	}
	for k := range after {
		if !before[k] {
			return fmt.Errorf("%s: refusing to rewrite: the new content has a record the old did not", s.Rel(path))
		}
	}
	if err := WriteAtomic(path, new); err != nil {
		return err
	}
	return nil
}

// quarantine keeps the bytes a repair took out of a shard, exactly as they
// were, in .lore/.local/quarantine, so a repair never throws text away.
func (s *Store) quarantine(path string, removed []byte) (string, error) {
	if len(removed) == 0 {
		return "", nil
	}
	rel, err := filepath.Rel(s.Dir, path)
	if err != nil {
		rel = filepath.Base(path)
	}
	name := strings.NewReplacer("/", "_", "\\", "_").Replace(rel)
	q := filepath.Join(s.Dir, LocalDir, "quarantine", fmt.Sprintf("%s.%d.txt", name, s.Clock().UnixNano()))
	if err := WriteAtomic(q, removed); err != nil {
		return "", err
	}
	return q, nil
}

// shardVersions are the record versions a shard's content holds, each as
// its line: what a rewrite must keep.
func shardVersions(path string, data []byte) (map[string]bool, error) {
	recs, _, err := kinds.ParseShard(path, data)
	keys := map[string]bool{}
	for _, r := range recs {
		line, _ := r.MarshalLine()
		keys[string(line)] = true
	}
	return keys, err
}
