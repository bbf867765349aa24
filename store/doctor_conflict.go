package store

import (
	"lore/record"
)

// resolveAdditions repairs a patterns file in merge conflict whose sides
// each only added patterns (record.ResolveAdditions): the conflict
// problems in probs become repairable and, with fix, the file gets both
// sides' tables, the conflicted text going to the quarantine. The rewrite
// must keep exactly the versions the two sides are read as. It reports
// whether the file is resolved so.
func (s *Store) resolveAdditions(path string, data []byte, probs []Problem, fix bool) (bool, error) {
	var conflicts []int
	for i, p := range probs {
		if p.Kind == "conflict" {
			conflicts = append(conflicts, i)
		}
	}
	if len(conflicts) == 0 {
		return false, nil
	}
	resolved, ok := record.ResolveAdditions(s.Rel(path), data)
	if !ok {
		return false, nil
	}
	for _, i := range conflicts {
		probs[i].Fixable = true
		probs[i].Message = "git conflict marker in a patterns file whose sides each only added patterns (both sides are read)"
	}
	if !fix {
		return true, nil
	}
	q, err := s.quarantine(path, data)
	if err != nil {
		return true, err
	}
	if err := s.rewriteShard(path, data, resolved, nil); err != nil {
		return true, err
	}
	for _, i := range conflicts {
		probs[i].Fixed = true
		probs[i].Message += "; both sides' tables kept, the text as git left it moved to " + s.Rel(q) + ": git add " + s.Rel(path)
	}
	return true, nil
}
