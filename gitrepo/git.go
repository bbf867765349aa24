package gitrepo

import (
	"bytes"
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// lore reads git through go-git's dotgit (refs, packed refs, linked
// worktrees' common directory) and its config file format rather than the
// top-level package: that one links in the transports and their crypto,
// whose start-up cost every hook run would pay. Config files are found
// here, with the caller's getenv: go-git's own lookup reads HOME from the
// process and skips the system file.

// ErrNotRepo means no git repository contains the directory.
var ErrNotRepo = errors.New("not inside a git repository")

// Repo is a located git repository: the worktree's root and its git
// directories.
type Repo struct {
	Root      string // top of the worktree
	GitDir    string // .git, or a linked worktree's or submodule's git dir
	CommonDir string // where refs and config live (GitDir unless a linked worktree)
}

// FindRepo finds the repository containing dir the way git does: the
// nearest ancestor with a .git directory or a .git file ("gitdir: …", as in
// linked worktrees and submodules), never climbing past
// GIT_CEILING_DIRECTORIES (read with getenv).
func FindRepo(dir string, getenv func(string) string) (*Repo, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	start := d
	for {
		if r, ok := repoAt(d); ok {
			if aboveCeiling(start, d, envVar(getenv, "GIT_CEILING_DIRECTORIES")) {
				return nil, ErrNotRepo
			}
			return r, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, ErrNotRepo
		}
		d = parent
	}
}

func repoAt(d string) (*Repo, bool) {
	dotgitPath := filepath.Join(d, ".git")
	fi, err := os.Stat(dotgitPath)
	if err != nil {
		return nil, false
	}
	r := &Repo{Root: d, GitDir: dotgitPath}
	if !fi.IsDir() {
		data, err := os.ReadFile(dotgitPath)
		line := strings.TrimSpace(string(data))
		target, ok := strings.CutPrefix(line, "gitdir:")
		if err != nil || !ok {
			return nil, false
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(d, target)
		}
		r.GitDir = target
	}
	r.CommonDir = r.GitDir
	if data, err := os.ReadFile(filepath.Join(r.GitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(r.GitDir, c)
		}
		r.CommonDir = filepath.Clean(c)
	}
	return r, true
}

// MainWorktree is the main worktree of a linked one: the directory git
// checked the repository out in first, where its .git directory is. ok is
// false for the main worktree itself, a submodule, a bare repository's
// worktree, and a .git file whose git directory does not name it back
// (git records each linked worktree in its own git directory, which a
// copied or crafted .git file cannot write).
func (r *Repo) MainWorktree() (root string, ok bool) {
	if r.GitDir == r.CommonDir || filepath.Base(r.CommonDir) != ".git" ||
		filepath.Dir(filepath.Clean(r.GitDir)) != filepath.Join(r.CommonDir, "worktrees") {
		return "", false
	}
	back, err := os.ReadFile(filepath.Join(r.GitDir, "gitdir"))
	if err != nil || !SamePath(strings.TrimSpace(string(back)), filepath.Join(r.Root, ".git")) {
		return "", false
	}
	return filepath.Dir(r.CommonDir), true
}

// SamePath reports whether a and b name one file, symbolic links resolved.
func SamePath(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// aboveCeiling reports whether root was found by climbing from dir to or
// past a directory in ceilings (GIT_CEILING_DIRECTORIES).
func aboveCeiling(dir, root, ceilings string) bool {
	below := func(p, base string) bool {
		rel, err := filepath.Rel(base, p)
		return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
	}
	for _, c := range filepath.SplitList(ceilings) {
		if c != "" && filepath.IsAbs(c) && below(dir, filepath.Clean(c)) && !below(root, filepath.Clean(c)) {
			return true
		}
	}
	return false
}

// AboveCeiling reports whether root, found by climbing from dir, is at or
// past a directory in GIT_CEILING_DIRECTORIES (read with getenv), where
// git would not have looked.
func AboveCeiling(dir, root string, getenv func(string) string) bool {
	return aboveCeiling(dir, root, envVar(getenv, "GIT_CEILING_DIRECTORIES"))
}

// IsBare reports whether d is a bare repository's directory (HEAD,
// objects and refs in it), where git stops looking further up.
func IsBare(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// RepoRoot returns the top of the worktree that contains dir.
func RepoRoot(dir string, getenv func(string) string) (string, error) {
	r, err := FindRepo(dir, getenv)
	if err != nil {
		return "", err
	}
	return r.Root, nil
}

// dotGit reads the repository's refs; a linked worktree keeps HEAD in its
// own git dir and everything else in the common one.
func (r *Repo) dotGit() *dotgit.DotGit {
	var fs billy.Filesystem = osfs.New(r.GitDir)
	if r.CommonDir != r.GitDir {
		fs = dotgit.NewRepositoryFilesystem(osfs.New(r.GitDir), osfs.New(r.CommonDir))
	}
	return dotgit.New(fs)
}

// Head is who works in a repository and where: the author from git's
// config, the current branch and HEAD's commit.
type Head struct {
	Author string // "Name <email>"
	Branch string // empty when detached, but for a rebase in progress
	Commit string // full hex; empty when unborn
}

// ReadHead reads the author, branch and HEAD commit for dir. Outside a
// repository, or on an unborn or detached HEAD, the missing parts are left
// empty: lore never fails for want of git. getenv gives git's variables
// (GIT_AUTHOR_NAME, GIT_CEILING_DIRECTORIES…). The author is the one git
// would commit with (see ident.go); it is read without running git unless
// the config holds what lore does not follow (includes).
func ReadHead(dir string, getenv func(string) string) Head {
	return readHead(dir, getenv, true)
}

// ReadRefs is ReadHead without the author: the branch and HEAD's commit
// alone, which no config file changes.
func ReadRefs(dir string, getenv func(string) string) Head {
	return readHead(dir, getenv, false)
}

func readHead(dir string, getenv func(string) string, author bool) Head {
	var o Head
	r, err := FindRepo(dir, getenv)
	if err != nil {
		if author {
			o.Author = formatAuthor(envVar(getenv, "GIT_AUTHOR_NAME"), envVar(getenv, "GIT_AUTHOR_EMAIL"))
		}
		return o
	}
	dg := r.dotGit()
	if head, err := dg.Ref(plumbing.HEAD); err == nil {
		if head.Type() == plumbing.SymbolicReference {
			// Only a name git allows is a branch: a hostile HEAD naming
			// "refs/heads/\x1b]0;…" would put escape sequences in lore
			// status and in every record's branch. git status shows no
			// branch for it either.
			if head.Target().Validate() == nil {
				o.Branch = head.Target().Short()
			}
			if ref, err := dg.Ref(head.Target()); err == nil {
				o.Commit = ref.Hash().String()
			}
		} else {
			o.Commit = head.Hash().String()
			o.Branch = rebasing(r.GitDir)
		}
	}
	if author {
		o.Author = authorOf(r, getenv)
	}
	return o
}

// Unborn reports whether HEAD in the repository containing dir is unborn:
// it names a branch that does not exist yet, as before the first commit
// or on a new orphan branch. It is false wherever lore cannot tell (no
// repository, HEAD unreadable, a branch that exists but does not read).
func Unborn(dir string, getenv func(string) string) bool {
	r, err := FindRepo(dir, getenv)
	if err != nil {
		return false
	}
	dg := r.dotGit()
	head, err := dg.Ref(plumbing.HEAD)
	if err != nil || head.Type() != plumbing.SymbolicReference || !head.Target().IsBranch() || head.Target().Validate() != nil {
		return false
	}
	// Neither a loose ref (one that exists but does not read is not
	// unborn) nor a packed one.
	if _, err := os.Lstat(filepath.Join(r.CommonDir, filepath.FromSlash(head.Target().String()))); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	_, err = dg.Ref(head.Target())
	return errors.Is(err, plumbing.ErrReferenceNotFound)
}

// rebasing names the branch a rebase in progress rewrites: HEAD is
// detached while it runs, but what is captured meanwhile belongs to that
// branch (git branch shows "(no branch, rebasing NAME)"). The state is in
// the worktree's own git directory.
func rebasing(gitDir string) string {
	for _, d := range []string{"rebase-merge", "rebase-apply"} {
		data, err := os.ReadFile(filepath.Join(gitDir, d, "head-name"))
		if err != nil {
			continue
		}
		if name := plumbing.ReferenceName(strings.TrimSpace(string(data))); name.IsBranch() && name.Validate() == nil {
			return name.Short()
		}
	}
	return ""
}

// readConfigs decodes git's config files that exist, from the lowest
// precedence to the highest (configFiles). ok is false when one of them
// does not decode: it is left out.
func readConfigs(r *Repo, getenv func(string) string) (configs []*gitconfig.Config, ok bool) {
	ok = true
	for _, path := range configFiles(r, getenv) {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		c := gitconfig.New()
		if gitconfig.NewDecoder(bytes.NewReader(data)).Decode(c) != nil {
			ok = false
			continue
		}
		configs = append(configs, c)
	}
	return configs, ok
}

// configFiles lists git's config files from the lowest precedence to the
// highest, as git config --show-origin would: system, the global ones,
// then the repository's own.
func configFiles(r *Repo, getenv func(string) string) []string {
	var files []string
	if noSystem, _ := parseBool(envVar(getenv, "GIT_CONFIG_NOSYSTEM"), true); !noSystem {
		files = append(files, cmp.Or(envVar(getenv, "GIT_CONFIG_SYSTEM"), "/etc/gitconfig"))
	}
	if global := envVar(getenv, "GIT_CONFIG_GLOBAL"); global != "" {
		files = append(files, global)
	} else {
		home := envVar(getenv, "HOME")
		if xdg := envVar(getenv, "XDG_CONFIG_HOME"); xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		} else if home != "" {
			files = append(files, filepath.Join(home, ".config", "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return append(files, filepath.Join(r.CommonDir, "config"))
}

// envVar is getenv(key), or "" when there is no getenv. gitrepo never
// reads the process environment itself: the CLI passes its own getenv.
func envVar(getenv func(string) string, key string) string {
	if getenv == nil {
		return ""
	}
	return getenv(key)
}

// formatAuthor is "Name <email>" as git writes an identity (crud
// trimmed), or the one of them there is.
func formatAuthor(name, email string) string {
	name, email = withoutCrud(name), withoutCrud(email)
	switch {
	case name != "" && email != "":
		return name + " <" + email + ">"
	case name != "":
		return name
	default:
		return email
	}
}

// IsNotRepo reports whether err means "not inside a git repository".
func IsNotRepo(err error) bool { return errors.Is(err, ErrNotRepo) }
