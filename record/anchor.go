package record

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Anchor ties a record to the code it is about: a file of the repository
// (a path relative to its root, with forward slashes), the git object ID
// of that file's content when the record was made, as git would store it
// (a blob, or the commit of a submodule), the commit checked out then
// (where git's rename detection starts, whatever later versions of the
// record were made at), and optionally the lines the record is about. Whether the code has changed since is derived by
// comparing that ID with the file's today (package anchor); the record
// keeps only what was true when it was written.
type Anchor struct {
	Path   string `json:"path" toml:"path"`
	Blob   string `json:"blob" toml:"blob"`
	Start  int    `json:"start,omitempty" toml:"start,omitzero"`
	End    int    `json:"end,omitempty" toml:"end,omitzero"`
	Commit string `json:"commit,omitempty" toml:"commit,omitempty"`
}

// HasLines reports whether the anchor names a line range.
func (a Anchor) HasLines() bool { return a.Start > 0 }

// String is the anchor as --file takes it: path[:start-end].
func (a Anchor) String() string {
	if !a.HasLines() {
		return a.Path
	}
	return a.Path + ":" + strconv.Itoa(a.Start) + "-" + strconv.Itoa(a.End)
}

// Validate checks an anchor read from a store: a clean relative path that
// stays inside the repository, an object ID of hex digits (SHA-1 or
// SHA-256), and a line range that starts at 1 or later and does not end
// before it starts.
func (a Anchor) Validate() error {
	switch {
	case !CleanRepoPath(a.Path):
		return &FieldError{"anchors.path", a.Path, "a path relative to the repository root, inside it"}
	case !ObjectID(a.Blob):
		return &FieldError{"anchors.blob", a.Blob, "a git object ID (40 or 64 hex digits)"}
	case a.Commit != "" && !ObjectID(a.Commit):
		return &FieldError{"anchors.commit", a.Commit, "a git commit ID (40 or 64 hex digits)"}
	case a.Start < 0 || a.End < a.Start || (a.Start == 0) != (a.End == 0):
		return &FieldError{"anchors.lines", fmt.Sprintf("%d-%d", a.Start, a.End), "a range start-end with 1 <= start <= end"}
	}
	return nil
}

// CleanRepoPath reports whether p is a clean, relative, slash-separated
// path that does not climb out of the directory it is relative to.
func CleanRepoPath(p string) bool {
	return p != "" && p != "." && !strings.HasPrefix(p, "/") && path.Clean(p) == p &&
		p != ".." && !strings.HasPrefix(p, "../") && !strings.Contains(p, "\\") && !strings.ContainsRune(p, 0)
}

// ObjectID reports whether s is a full git object ID in lower-case hex.
func ObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
