package gitrepo

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"lore/internal/mmapfile"
)

// git status reads the whole index, a store's shards included, whatever
// the pathspec: at 100k records (20k shards) it takes 5 ms, the longest
// wait of a session's start. Most starts find the code as committed, and
// that lore can tell alone, the way git does: the index holds the tree
// HEAD holds, and every file on disk matches the index's stat data, with
// no file the index lacks but git's ignore rules. cleanStatus proves that
// or gives up; a change of any kind is left to git to describe.

// maxCleanFiles bounds the tracked files cleanStatus checks itself: past
// it, git (which lstats in threads) is the faster way.
const maxCleanFiles = 5000

// gitVarsForStatus point the git lore runs at another object store or
// configuration than the files cleanStatus reads. (Run takes the location
// variables, GIT_DIR and the like, from git's environment: it finds the
// repository as cleanStatus does.)
var gitVarsForStatus = []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}

// trackedFile is what the index says of one file under the directory
// asked about.
type trackedFile struct {
	IndexEntry
	mode            uint32
	ctimeS, ctimeNs uint32
}

// cleanStatus returns the status of the worktree under dir, leaving out
// exclude, when nothing there differs from HEAD: HEAD's branch and commit
// and no changes. ok is false when something differs or lore cannot tell
// (an unusual repository, configuration or index): git then says what.
func cleanStatus(getenv func(string) string, dir, exclude string) (st *Status, ok bool) {
	for _, v := range gitVarsForStatus {
		if envVar(getenv, v) != "" {
			return nil, false
		}
	}
	r, err := FindRepo(dir, getenv)
	if err != nil {
		return nil, false
	}
	under, err1 := relSlash(r.Root, dir)
	skip, err2 := relSlash(r.Root, exclude)
	if err1 != nil || err2 != nil || strings.HasPrefix(under, "../") {
		return nil, false
	}
	if exclude == "" || !strings.HasPrefix(skip, under) || skip == under {
		skip = "" // nothing to leave out
	}
	excludesFile, ok := statusConfig(r, getenv)
	if !ok {
		return nil, false
	}
	branch, commit, ok := r.head()
	if !ok {
		return nil, false
	}
	idxPath := filepath.Join(r.GitDir, "index")
	fi, err := os.Stat(idxPath)
	if err != nil {
		return nil, false
	}
	hashSize := r.hashSize()
	files := map[string]trackedFile{}
	var tree string
	err = mmapfile.Read(idxPath, func(data []byte) (err error) { // mapped, as readIndex does
		tree, err = walkIndex(data, hashSize, func(name []byte, e rawEntry) {
			if len(files) <= maxCleanFiles && bytes.HasPrefix(name, []byte(under)) && (skip == "" || !bytes.HasPrefix(name, []byte(skip))) {
				s, ns := e.ctime()
				files[string(name)] = trackedFile{e.entry(), e.mode(), s, ns}
			}
		})
		return err
	})
	if err != nil || tree == "" || len(files) > maxCleanFiles {
		return nil, false
	}
	if headTree, ok := commitTree(r, commit, hashSize); !ok || headTree != tree {
		return nil, false // something is staged, or lore cannot read HEAD's tree
	}
	w := &cleanWalk{root: r.Root, files: files, index: GitIndex{WrittenMtime: fi.ModTime().UnixNano()}, skip: strings.TrimSuffix(skip, "/"), dirs: map[string]bool{}}
	if !w.walk(under) {
		return nil, false
	}
	if !w.ignored(r, excludesFile, getenv) {
		return nil, false
	}
	return &Status{Branch: branch, Head: commit}, true
}

// relSlash is target relative to root with slashes, ending in "/" unless
// empty (target is root).
func relSlash(root, target string) (string, error) {
	if target == "" {
		return "", nil
	}
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == "." {
		return "", err
	}
	return filepath.ToSlash(rel) + "/", nil
}

// statusConfig reads what of git's configuration cleanStatus must follow:
// the user's ignore file. ok is false for configuration that would change
// what status reports in ways cleanStatus does not follow (an include it
// does not read, another worktree, case-insensitive names).
func statusConfig(r *Repo, getenv func(string) string) (excludesFile string, ok bool) {
	configs, ok := readConfigs(r, getenv)
	if !ok {
		return "", false
	}
	for _, c := range configs {
		core := c.Section("core")
		if c.HasSection("include") || c.HasSection("includeIf") || core.Option("worktree") != "" ||
			strings.EqualFold(core.Option("ignoreCase"), "true") || c.Section("extensions").Option("worktreeConfig") != "" {
			return "", false
		}
		if v := core.Option("excludesFile"); v != "" {
			excludesFile = v
		}
	}
	home := envVar(getenv, "HOME")
	switch {
	case strings.HasPrefix(excludesFile, "~/") && home != "":
		excludesFile = filepath.Join(home, excludesFile[2:])
	case excludesFile != "":
	case envVar(getenv, "XDG_CONFIG_HOME") != "":
		excludesFile = filepath.Join(envVar(getenv, "XDG_CONFIG_HOME"), "git", "ignore")
	case home != "":
		excludesFile = filepath.Join(home, ".config", "git", "ignore")
	}
	return excludesFile, true
}

// cleanWalk visits the directories that hold tracked files, checking each
// file against the index and gathering the names the index lacks.
type cleanWalk struct {
	root      string
	files     map[string]trackedFile
	index     GitIndex // its write time, for git's racy-clean test
	skip      string
	dirs      map[string]bool // directories visited, from the top with a trailing "/"
	seen      int
	untracked []untrackedPath
}

type untrackedPath struct {
	path  string
	isDir bool
}

// walk checks the tree under dir (from the top, "" or ending in "/"): false
// as soon as a tracked file may differ from the index or is missing.
func (w *cleanWalk) walk(under string) bool {
	hold := map[string]bool{under: true} // directories with tracked files below them
	need := 0
	for name, f := range w.files {
		if !f.Unchanged {
			need++
		}
		if f.mode&0o170000 == 0o160000 || f.Recheck {
			return false // a submodule, a conflict or an intent to add: git's to tell
		}
		for d := path.Dir(name); d != "." && !hold[d+"/"]; d = path.Dir(d) {
			hold[d+"/"] = true
		}
	}
	if w.skip != "" { // the way down to the store
		for d := path.Dir(w.skip); d != "." && len(d)+1 > len(under); d = path.Dir(d) {
			hold[d+"/"] = true
		}
	}
	for dir := range hold {
		ents, err := os.ReadDir(filepath.Join(w.root, filepath.FromSlash(dir)))
		if err != nil {
			return false
		}
		w.dirs[dir] = true
		for _, ent := range ents {
			p := dir + ent.Name()
			switch f, tracked := w.files[p]; {
			case p == ".git" || p == w.skip:
			case tracked:
				if !f.Unchanged {
					if !w.same(p, f) {
						return false
					}
					w.seen++
				}
			case hold[p+"/"]:
				if ent.Type() != fs.ModeDir {
					return false // a directory git tracks files in is now a link or a file
				}
			default:
				w.untracked = append(w.untracked, untrackedPath{p, ent.IsDir()})
			}
		}
	}
	return w.seen == need
}

// same reports whether the file at p matches its index entry by git's
// stat test, type and executable bit included.
func (w *cleanWalk) same(p string, f trackedFile) bool {
	fi, err := os.Lstat(filepath.Join(w.root, filepath.FromSlash(p)))
	if err != nil {
		return false
	}
	s, ns, ok := Ctime(fi)
	if !ok || uint32(s) != f.ctimeS || uint32(ns) != f.ctimeNs {
		return false
	}
	switch f.mode & 0o170000 {
	case 0o100000:
		if !fi.Mode().IsRegular() || (fi.Mode().Perm()&0o100 != 0) != (f.mode&0o100 != 0) {
			return false
		}
	case 0o120000:
		if fi.Mode()&fs.ModeSymlink == 0 {
			return false
		}
	default:
		return false
	}
	return !w.index.MayDiffer(f.IndexEntry, fi.Size(), fi.ModTime().UnixNano(), Inode(fi))
}

// ignored reports whether every name the walk found untracked is ignored,
// or is a directory holding only ignored files: by a .gitignore in a
// directory on its way, .git/info/exclude or the user's excludes file. A negated pattern ("!"), an escape or a character
// class makes it give up: without them a path is ignored exactly when a
// pattern matches it or a directory above it, which go-git's matcher
// answers as git does.
func (w *cleanWalk) ignored(r *Repo, excludesFile string, getenv func(string) string) bool {
	if len(w.untracked) == 0 {
		return true
	}
	var patterns []gitignore.Pattern
	read := func(file string, domain []string) bool {
		data, err := os.ReadFile(file)
		if err != nil {
			return os.IsNotExist(err)
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if strings.HasPrefix(line, "!") || strings.ContainsAny(line, "\\\r") || strings.Contains(line, "[[:") {
				return false
			}
			if t := strings.TrimRight(line, " "); strings.HasSuffix(t, "/**") {
				line = strings.TrimSuffix(t, "**") // everything below: as the directory, for what is untracked
			}
			patterns = append(patterns, gitignore.ParsePattern(line, domain))
		}
		return true
	}
	if excludesFile != "" && !read(excludesFile, nil) {
		return false
	}
	if !read(filepath.Join(r.CommonDir, "info", "exclude"), nil) {
		return false
	}
	// Every directory from the top down to each one visited.
	dirs := map[string]bool{"": true}
	for d := range w.dirs {
		for ; d != "" && !dirs[d]; d = parentDir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		if !read(filepath.Join(w.root, filepath.FromSlash(d), ".gitignore"), splitDir(d)) {
			return false
		}
	}
	m := gitignore.NewMatcher(patterns)
	budget := maxCleanFiles
	// ignoredPath reports whether git ignores the path, or, for a
	// directory, everything in it (git lists no empty directory).
	var ignoredPath func(parts []string, isDir bool) bool
	ignoredPath = func(parts []string, isDir bool) bool {
		for k := 1; k <= len(parts); k++ {
			if m.Match(parts[:k], k < len(parts) || isDir) {
				return true
			}
		}
		if budget--; !isDir || budget < 0 || parts[len(parts)-1] == ".git" {
			return false // untracked, or another repository
		}
		dir := strings.Join(parts, "/") + "/"
		if !read(filepath.Join(w.root, filepath.FromSlash(dir), ".gitignore"), parts) {
			return false
		}
		m = gitignore.NewMatcher(patterns)
		ents, err := os.ReadDir(filepath.Join(w.root, filepath.FromSlash(dir)))
		if err != nil {
			return false
		}
		for _, ent := range ents {
			if !ignoredPath(append(parts[:len(parts):len(parts)], ent.Name()), ent.IsDir()) {
				return false
			}
		}
		return true
	}
	for _, u := range w.untracked {
		if !ignoredPath(strings.Split(u.path, "/"), u.isDir) {
			return false
		}
	}
	return true
}

// parentDir is the directory above d ("a/b/" → "a/", "a/" → "").
func parentDir(d string) string {
	if p := path.Dir(strings.TrimSuffix(d, "/")); p != "." {
		return p + "/"
	}
	return ""
}

// splitDir is d's names ("a/b/" → [a b]; "" → none).
func splitDir(d string) []string {
	if d == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(d, "/"), "/")
}

// head is HEAD's branch as git status names it and its commit. ok is false
// when HEAD is unborn, names no branch git allows, or cannot be read.
func (r *Repo) head() (branch, commit string, ok bool) {
	dg := r.dotGit()
	head, err := dg.Ref(plumbing.HEAD)
	if err != nil {
		return "", "", false
	}
	if head.Type() != plumbing.SymbolicReference {
		return "(detached HEAD)", head.Hash().String(), true
	}
	if head.Target().Validate() != nil || !head.Target().IsBranch() {
		return "", "", false
	}
	ref, err := dg.Ref(head.Target())
	if err != nil || ref.Type() != plumbing.HashReference {
		return "", "", false
	}
	return head.Target().Short(), ref.Hash().String(), true
}
