package gitrepo

import (
	"context"
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

// StartStatus runs git status once in dir, in the background, and returns
// the function that waits for it. It leaves out the subtree exclude (a
// path inside dir, or "" for none), lists untracked files one by one and
// renames as a deletion and an addition.
func StartStatus(ctx context.Context, getenv func(string) string, dir, exclude string) func() (*Status, error) {
	args := []string{"status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames"}
	if rel, err := filepath.Rel(dir, exclude); exclude != "" && err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		args = append(args, "--", ".", ":(exclude)"+filepath.ToSlash(rel))
	}
	run := Start(ctx, getenv, dir, args...)
	return func() (*Status, error) {
		out, err := run()
		if err != nil {
			return nil, err
		}
		return parseStatus(out), nil
	}
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
