package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lore/gitrepo"
)

// unmerged reports the store's files git left unmerged (a merge, rebase or
// cherry-pick that stopped on them), with what to do: a shard keeps both
// sides, as lore's union merges do. The one resolution that loses records
// is the one git suggests for a file deleted on one side, git rm. Without
// git, nothing is reported.
// A file whose conflict markers doctor reported is left to that problem
// until they are gone.
func (s *Store) unmerged(ctx context.Context, reported []Problem) []Problem {
	out, err := gitrepo.Run(ctx, s.Getenv, s.Dir, "ls-files", "-u", "-z", "--", ".")
	if err != nil || out == "" {
		return nil
	}
	var order []string
	stages := map[string]*[4]bool{}
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta) // mode, object, stage
		if !ok || len(f) != 3 || len(f[2]) != 1 || f[2][0] < '1' || f[2][0] > '3' {
			continue
		}
		if stages[path] == nil {
			stages[path] = new([4]bool)
			order = append(order, path)
		}
		stages[path][f[2][0]-'0'] = true
	}
	marked := map[string]bool{}
	for _, p := range reported {
		if p.Kind == "conflict" {
			marked[p.File] = true
		}
	}
	var probs []Problem
	for _, path := range order {
		abs := filepath.Join(s.Dir, filepath.FromSlash(path))
		if !marked[s.Rel(abs)] {
			probs = append(probs, s.unmergedProblem(abs, *stages[path]))
		}
	}
	return probs
}

// unmergedProblem is the problem of file abs, unmerged with the given
// stages (1 the common ancestor, 2 this side, 3 the other).
func (s *Store) unmergedProblem(abs string, st [4]bool) Problem {
	name := s.Rel(abs)
	code := statusCode(st)
	p := Problem{File: name, Kind: "unmerged"}
	_, statErr := os.Stat(abs)
	rel, _ := filepath.Rel(s.Dir, abs)
	shard := strings.HasSuffix(abs, ".jsonl") || strings.HasSuffix(abs, ".toml") && strings.ContainsRune(filepath.ToSlash(rel), '/')
	never := "; never git rm a shard: its records go with it"
	switch {
	case !shard:
		p.Message = fmt.Sprintf("git left it unmerged (%s in git status): resolve it, then git add %s", code, name)
	case code == "DD":
		p.Message = fmt.Sprintf("git left it unmerged (DD in git status: deleted on both sides): git rm --cached %s records that", name)
	case statErr != nil:
		side := "--ours"
		if st[3] {
			side = "--theirs"
		}
		p.Message = fmt.Sprintf("git left it unmerged (%s in git status) and the worktree has no copy: keep the side that has it, git checkout %s -- %s, then git add %s%s",
			code, side, name, name, never)
	case code == "UU" || code == "AA":
		keep := "keep both sides' lines"
		if strings.HasSuffix(abs, ".toml") {
			keep = "keep what each side meant"
		}
		p.Message = fmt.Sprintf("git left it unmerged (%s in git status): %s, then git add %s%s", code, keep, name, never)
	default: // changed on one side, deleted on the other
		p.Message = fmt.Sprintf("git left it unmerged (%s in git status: changed on one side, deleted on the other): keep both sides, git add %s as the worktree has it%s",
			code, name, never)
	}
	return p
}

// statusCode is how git status --short shows a file unmerged with these
// stages.
func statusCode(st [4]bool) string {
	switch {
	case st[1] && st[2] && st[3]:
		return "UU"
	case st[1] && st[3]:
		return "DU"
	case st[1] && st[2]:
		return "UD"
	case st[2] && st[3]:
		return "AA"
	case st[2]:
		return "AU"
	case st[3]:
		return "UA"
	}
	return "DD"
}
