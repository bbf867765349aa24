package store

import (
	"os"
	"slices"

	"lore/record"
)

// unknownDirs notes each directory directly in the store that no kind
// keeps its records in (nor .local): lore reads nothing in it, and says
// so, as a newer lore's kind would otherwise be passed over in silence. A
// note, not a problem: a team may keep its own files there.
func (s *Store) unknownDirs() []Problem {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil
	}
	known := []string{LocalDir}
	for _, k := range record.AllKinds() {
		known = append(known, k.Dir())
	}
	var out []Problem
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(known, e.Name()) {
			out = append(out, Problem{File: s.Rel(s.Dir) + "/" + e.Name() + "/", Kind: "unknown-dir", Note: true,
				Message: "lore reads no records here: no kind of this lore keeps its records in that directory (a newer lore's kind? upgrade lore)"})
		}
	}
	return out
}
