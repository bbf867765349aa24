package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Status is one `git status` of a worktree: its branch, HEAD and the paths
// that differ from HEAD or are untracked.
type Status struct {
	Branch  string   // "" when git names none; "(detached HEAD)" when detached
	Head    string   // the commit checked out; "" before the first commit
	Changes []string // "XY path" as porcelain v1 writes them, such as " M main.go" or "?? notes.txt"
}

// maxOutside bounds the pathspecs StartStatus passes for the untracked
// files outside the excluded subtree; past it, one git status walks all.
const maxOutside = 1000

// StartStatus runs git status in dir, in the background, and returns the
// function that waits for it. It leaves out the subtree exclude (a path
// inside dir, or "" for none), lists untracked files one by one and
// renames as a deletion and an addition.
//
// With a subtree left out, the tracked changes and the untracked files are
// two commands run side by side. An exclude pathspec does not stop git's
// walk for untracked files from entering the subtree (git 2.39): a store
// of 20k shards cost git status 14 ms against 6 ms without it. So the
// untracked files come from git ls-files --others, given every entry
// beside the path down to the subtree, and the subtree is never walked.
// Both name paths from the top of the worktree (status does with -z).
//
// Before any of that it sees whether lore alone can tell that nothing
// differs (cleanStatus), and runs no git when it can.
func StartStatus(ctx context.Context, getenv func(string) string, dir, exclude string) func() (*Status, error) {
	done := make(chan struct{})
	var wait func() (*Status, error)
	go func() {
		defer close(done)
		if st, ok := cleanStatus(getenv, dir, exclude); ok {
			wait = func() (*Status, error) { return st, nil }
			return
		}
		wait = startGitStatus(ctx, getenv, dir, exclude)
	}()
	return func() (*Status, error) {
		<-done
		return wait()
	}
}

// startGitStatus is StartStatus by git's own commands.
func startGitStatus(ctx context.Context, getenv func(string) string, dir, exclude string) func() (*Status, error) {
	args := []string{"status", "--porcelain=v2", "-z", "--branch", "--no-renames"}
	rel, err := filepath.Rel(dir, exclude)
	if exclude == "" || err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return waitStatus(Start(ctx, getenv, dir, append(args, "--untracked-files=all")...), nil)
	}
	rel = filepath.ToSlash(rel)
	spec := []string{"--", ".", ":(exclude)" + rel}
	outside, ok := entriesOutside(dir, rel)
	if !ok {
		return waitStatus(Start(ctx, getenv, dir, append(append(args, "--untracked-files=all"), spec...)...), nil)
	}
	tracked := Start(ctx, getenv, dir, append(append(args, "--untracked-files=no"), spec...)...)
	if len(outside) == 0 {
		return waitStatus(tracked, nil)
	}
	return waitStatus(tracked, Start(ctx, getenv, dir, append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--"}, outside...)...))
}

// waitStatus waits for git status and, if started, the listing of
// untracked files that goes with it.
func waitStatus(status, untracked func() (string, error)) func() (*Status, error) {
	return func() (*Status, error) {
		out, err := status()
		if err != nil {
			return nil, err
		}
		st := parseStatus(out)
		if untracked == nil {
			return st, nil
		}
		if out, err = untracked(); err != nil {
			return nil, err
		}
		for _, p := range strings.Split(out, "\x00") {
			if p != "" {
				st.Changes = append(st.Changes, "?? "+p)
			}
		}
		return st, nil
	}
}

// entriesOutside lists, as literal pathspecs relative to dir, the entries
// of each directory on the way from dir down to rel except the one that
// leads to rel (and .git): together they cover everything under dir but
// rel. ok is false when a directory cannot be read or the list is long.
func entriesOutside(dir, rel string) (specs []string, ok bool) {
	prefix := ""
	for i, part := range strings.Split(rel, "/") {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(prefix)))
		if err != nil {
			return nil, false
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return nil, false
		}
		for _, n := range names {
			if n != part && (i > 0 || n != ".git") {
				specs = append(specs, ":(literal)"+prefix+n)
			}
		}
		if len(specs) > maxOutside {
			return nil, false
		}
		prefix += part + "/"
	}
	return specs, true
}

// parseStatus reads porcelain v2 with -z: "# branch.*" headers, then one
// entry per path ("1 XY …8 fields… path", "u XY …10 fields… path",
// "? path"); with --no-renames there are no "2" entries.
func parseStatus(out string) *Status {
	st := &Status{}
	for _, e := range strings.Split(out, "\x00") {
		switch {
		case strings.HasPrefix(e, "# branch.oid "):
			if oid := strings.TrimPrefix(e, "# branch.oid "); oid != "(initial)" {
				st.Head = oid
			}
		case strings.HasPrefix(e, "# branch.head "):
			st.Branch = strings.TrimPrefix(e, "# branch.head ")
			if st.Branch == "(detached)" {
				st.Branch = "(detached HEAD)"
			}
		case strings.HasPrefix(e, "1 "):
			if f := strings.SplitN(e, " ", 9); len(f) == 9 {
				st.Changes = append(st.Changes, xy(f[1])+" "+f[8])
			}
		case strings.HasPrefix(e, "u "):
			if f := strings.SplitN(e, " ", 11); len(f) == 11 {
				st.Changes = append(st.Changes, xy(f[1])+" "+f[10])
			}
		case strings.HasPrefix(e, "? "):
			st.Changes = append(st.Changes, "?? "+e[2:])
		}
	}
	return st
}

// xy is porcelain v2's status pair in v1's spelling: unchanged is a space,
// not a dot.
func xy(v2 string) string { return strings.ReplaceAll(v2, ".", " ") }
