package anchor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"lore/gitrepo"
	"lore/record"
)

// Repo is the git repository anchors are relative to.
type Repo struct {
	Root   string              // the top of its working tree
	Getenv func(string) string // git's variables, as the CLI has them
}

func (g Repo) git(ctx context.Context, stdin string, args ...string) (string, error) {
	return gitrepo.RunInput(ctx, g.Getenv, g.Root, stdin, args...)
}

// Spec is a --file value: a path, relative to the working directory, and
// an optional line range.
type Spec struct {
	Path       string
	Start, End int
}

// SpecError is a file spec that cannot be anchored: the spec as given,
// and what is wrong with it. Its text names the CLI's --file; Named names
// another front end's argument (lore mcp's file).
type SpecError struct {
	Spec, Msg string
}

func (e *SpecError) Error() string { return e.Named("--file") }

// Named is the error as given by the argument called name.
func (e *SpecError) Named(name string) string {
	if e.Spec == "" {
		return name + ": " + e.Msg
	}
	return name + " " + shown(e.Spec) + ": " + e.Msg
}

// ParseSpec reads path[:start-end] or path[:line].
func ParseSpec(s string) (Spec, error) {
	if s == "" {
		return Spec{}, &SpecError{Msg: "empty path"}
	}
	if !utf8.ValidString(s) {
		return Spec{}, &SpecError{s, notUTF8}
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 || !isRange(s[i+1:]) {
		return Spec{Path: s}, nil
	}
	sp := Spec{Path: s[:i]}
	a, b, found := strings.Cut(s[i+1:], "-")
	var err1, err2 error
	sp.Start, err1 = strconv.Atoi(a)
	sp.End, err2 = sp.Start, nil
	if found {
		sp.End, err2 = strconv.Atoi(b)
	}
	switch {
	case sp.Path == "":
		return Spec{}, &SpecError{s, "no path before the line range"}
	case err1 != nil || err2 != nil:
		return Spec{}, &SpecError{s, "line numbers too large"}
	case sp.Start < 1:
		return Spec{}, &SpecError{s, "lines are numbered from 1"}
	case sp.End < sp.Start:
		return Spec{}, &SpecError{s, "the range ends before it starts"}
	}
	return sp, nil
}

// notUTF8 refuses a path that is not UTF-8: records keep paths as JSON
// and TOML text, which would store it with U+FFFD in place of its bytes,
// naming no file, so that the anchor would be gone from the start.
const notUTF8 = "the path is not valid UTF-8, and lore keeps paths as text; rename the file to anchor it"

// shown is a path as an error names it: quoted (its bytes escaped) if it
// holds anything that would break the one line of the message or is not
// text.
func shown(p string) string {
	if strings.IndexFunc(p, unicode.IsControl) >= 0 || !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	return p
}

// isRange: digits, or digits-digits.
func isRange(s string) bool {
	a, b, found := strings.Cut(s, "-")
	digits := func(t string) bool { return t != "" && strings.Trim(t, "0123456789") == "" }
	return digits(a) && (!found || digits(b))
}

// ErrNoCommits is a repository without a first commit: anchors need a
// history to be checked against.
var ErrNoCommits = errors.New("the repository has no commits yet; make a first commit, then anchor")

// Resolve anchors specs, whose paths are relative to dir (the working
// directory), to the repository's working tree as it is now. Every spec
// is checked before anything is hashed, so a bad one means no anchor:
// the caller writes nothing.
func (g Repo) Resolve(ctx context.Context, dir string, specs []Spec) ([]record.Anchor, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	head, err := g.git(ctx, "", "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return nil, g.headError(err)
	}
	head = strings.TrimSpace(head)
	out := make([]record.Anchor, 0, len(specs))
	var files, links []int // indexes into out, by how each is identified
	for _, sp := range specs {
		a, link, err := g.check(dir, sp)
		if err != nil {
			return nil, err
		}
		if link {
			links = append(links, len(out))
		} else {
			files = append(files, len(out))
		}
		out = append(out, a)
	}
	if err := g.identify(ctx, out, files, links); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Commit = head
	}
	return out, nil
}

// headError is why HEAD's commit could not be read. --verify --quiet
// exits 1 when HEAD names no commit, which is ErrNoCommits if HEAD is
// unborn; any other failure (git missing, too slow, refusing a repository
// another user owns) is git's, and says so.
func (g Repo) headError(err error) error {
	switch {
	case gitrepo.ExitCode(err) != 1:
		return err
	case gitrepo.Unborn(g.Root, g.Getenv):
		return ErrNoCommits
	}
	return errors.New("git rev-parse: HEAD names no commit git can read")
}

// check resolves one spec to a repository path and checks what it names:
// an existing file inside the repository and outside any nested
// repository, or a submodule (link), and a range within the file.
func (g Repo) check(dir string, sp Spec) (a record.Anchor, link bool, err error) {
	fail := func(format string, args ...any) (record.Anchor, bool, error) {
		return record.Anchor{}, false, &SpecError{sp.Path, fmt.Sprintf(format, args...)}
	}
	abs := sp.Path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(g.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fail("outside the repository (%s)", g.Root)
	}
	rel = filepath.ToSlash(rel)
	if !utf8.ValidString(rel) { // the working directory's name, with a valid --file
		return fail("%s", notUTF8)
	}
	if rel == "." {
		return fail("is the repository itself; anchor files in it")
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return fail("is inside .git")
	}
	if msg := g.symlink(rel, sp); msg != "" {
		return fail("%s", msg)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if !filepath.IsAbs(sp.Path) && dir != g.Root {
			// A path written from the repository's top, typed in a subdirectory.
			return fail("no such file in %s (a path is relative to the current directory)", shown(dir))
		}
		return fail("no such file")
	}
	if sub := nestedRepo(g.Root, filepath.Dir(abs)); sub != "" {
		return fail("is inside the submodule or nested repository %s; anchor it (--file %s) or keep this memory in its own repository", sub, sub)
	}
	if fi.IsDir() {
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			if sp.Start > 0 {
				return fail("is a submodule; a line range does not apply")
			}
			return record.Anchor{Path: rel}, true, nil
		}
		return fail("is a directory; anchor the files in it")
	}
	if !fi.Mode().IsRegular() {
		return fail("is not a regular file")
	}
	a = record.Anchor{Path: rel, Start: sp.Start, End: sp.End}
	if sp.Start > 0 {
		data, err := os.ReadFile(abs)
		if err != nil {
			return fail("%v", err)
		}
		if binary(data) {
			return fail("is a binary file; a line range does not apply")
		}
		if n := countLines(data); sp.End > n {
			return fail("the range %d-%d is past the end of the file (%d %s)", sp.Start, sp.End, n, plural(n, "line"))
		}
	}
	return a, false, nil
}

// symlink says why a path with a symbolic link in it (the file itself, or
// a directory on the way) cannot be anchored, or "" if it has none. git
// tracks a link as the path it holds, never what it leads to, while
// hash-object follows it: through one, lore would anchor content outside
// the repository, in another repository, or under a path that git's
// rename detection never sees. A link to something in the repository
// points at that path instead.
func (g Repo) symlink(rel string, sp Spec) string {
	link := "" // the first link on the way, relative to the root
	for p := range strings.SplitSeq(rel, "/") {
		link = path.Join(link, p)
		fi, err := os.Lstat(filepath.Join(g.Root, filepath.FromSlash(link)))
		if err != nil {
			return "" // not there: no such file, said later
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			break
		}
		if link == rel {
			return ""
		}
	}
	what := "is a symbolic link"
	if link != rel {
		what = "goes through the symbolic link " + shown(link)
	}
	abs := filepath.Join(g.Root, filepath.FromSlash(rel))
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return what + " to nothing that exists"
	}
	root, err := filepath.EvalSymlinks(g.Root)
	if err != nil {
		root = g.Root
	}
	kind := "a file"
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		kind = "a directory"
	}
	in, err := filepath.Rel(root, target)
	if err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) || filepath.IsAbs(in) {
		return fmt.Sprintf("%s to %s outside the repository (%s)", what, kind, shown(target))
	}
	in = filepath.ToSlash(in)
	switch {
	case in == ".":
		return what + " to the repository itself; anchor files in it"
	case in == ".git" || strings.HasPrefix(in, ".git/"):
		return what + " into .git"
	case kind == "a directory":
		return fmt.Sprintf("%s to the directory %s; anchor the files in it", what, shown(in))
	}
	to := in
	if sp.Start > 0 {
		to += fmt.Sprintf(":%d-%d", sp.Start, sp.End)
	}
	return fmt.Sprintf("%s to %s; anchor that file (--file %s)", what, shown(in), shown(to))
}

// nestedRepo is the repository-relative directory of a git repository
// (a submodule, or a clone inside the tree) that holds dir, or "".
func nestedRepo(root, dir string) string {
	for d := dir; d != root && len(d) > len(root); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			rel, _ := filepath.Rel(root, d)
			return filepath.ToSlash(rel)
		}
	}
	return ""
}

// identify fills in each anchor's object ID: files as git would hash
// their content, submodules by the commit the repository records.
func (g Repo) identify(ctx context.Context, out []record.Anchor, files, links []int) error {
	paths := make([]string, len(files))
	for i, k := range files {
		paths[i] = out[k].Path
	}
	ids, err := g.hashFiles(ctx, paths, true)
	if err != nil {
		return err
	}
	for i, k := range files {
		out[k].Blob = ids[i]
	}
	for _, k := range links {
		id, err := g.gitlink(ctx, out[k].Path)
		if err != nil {
			return err
		}
		if id == "" {
			return &SpecError{out[k].Path, "a repository inside this one that git does not know as a submodule; anchor its files in its own store"}
		}
		out[k].Blob = id
	}
	return nil
}

// hashFiles is the object ID git would give each file's content now,
// with the conversions git itself applies (end of lines) and without the
// filter drivers a repository config names, which lore never runs.
//
// With store (at capture), the content is also written to git's object
// database (hash-object -w), as a loose object nothing refers to until
// it is committed: a change can then be counted, and a line range
// followed, against content that was anchored before it was committed
// (the usual order: code is written, then the decision recorded). git gc
// prunes such an object once it is two weeks old (gc.pruneExpire; writing
// the same content again restarts the clock) if neither a commit nor the
// index refers to it by then; after that the change goes uncounted, as in
// a clone that never had the content, and lore anchor says it cannot
// follow the range. A repository git cannot write to still gets its
// anchors, unstored.
func (g Repo) hashFiles(ctx context.Context, paths []string, store bool) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(stdinPath(p))
		in.WriteByte('\n')
	}
	out, err := "", error(nil)
	if store {
		out, err = g.git(ctx, in.String(), "hash-object", "-w", "--stdin-paths")
	}
	if !store || err != nil {
		out, err = g.git(ctx, in.String(), "hash-object", "--stdin-paths")
	}
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(out)
	if len(ids) != len(paths) {
		return nil, fmt.Errorf("git hash-object: %d IDs for %d files", len(ids), len(paths))
	}
	return ids, nil
}

// stdinPath is p as git's --stdin-paths reads it: a line that starts with
// a double quote is a C-quoted path to git, so a file named "q.go (or
// one whose name holds a line break) is quoted, as git quotes names.
func stdinPath(p string) string {
	if !strings.HasPrefix(p, `"`) && !strings.ContainsRune(p, '\n') {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// gitlink is the commit the repository's index records for the submodule
// at path, or "" if git does not know it as one.
func (g Repo) gitlink(ctx context.Context, path string) (string, error) {
	out, err := g.git(ctx, "", "ls-files", "--stage", "-z", "--", ":(literal)"+path)
	if err != nil {
		return "", err
	}
	for _, e := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if f := strings.Fields(meta); ok && p == path && len(f) == 3 && f[0] == "160000" {
			return f[1], nil
		}
	}
	return "", nil
}

// binary is git's test: a NUL byte in the first 8000.
func binary(data []byte) bool {
	return strings.IndexByte(string(data[:min(len(data), 8000)]), 0) >= 0
}

func countLines(data []byte) int {
	n := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
