package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// lore reads git through go-git's dotgit (refs, packed refs, linked
// worktrees' common directory) and config packages rather than the
// top-level package: that one links in the transports and their crypto,
// whose start-up cost every hook run would pay.

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
	Branch string // empty when detached
	Commit string // full hex; empty when unborn
}

// ReadHead reads the author, branch and HEAD commit for dir. Outside a
// repository, or on an unborn or detached HEAD, the missing parts are left
// empty: lore never fails for want of git. getenv gives git's variables
// (GIT_AUTHOR_NAME, GIT_CEILING_DIRECTORIES…).
func ReadHead(dir string, getenv func(string) string) Head {
	o := Head{Author: formatAuthor(envVar(getenv, "GIT_AUTHOR_NAME"), envVar(getenv, "GIT_AUTHOR_EMAIL"))}
	r, err := FindRepo(dir, getenv)
	if err != nil {
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
		}
	}
	if o.Author == "" {
		o.Author = authorFromConfig(r)
	}
	return o
}

// authorFromConfig reads user.name and user.email from the repository's
// config, then the global one, as git does.
func authorFromConfig(r *Repo) string {
	var name, email string
	if data, err := os.ReadFile(filepath.Join(r.CommonDir, "config")); err == nil {
		if c, err := config.ReadConfig(strings.NewReader(string(data))); err == nil {
			name, email = c.User.Name, c.User.Email
		}
	}
	if name == "" || email == "" {
		if c, err := config.LoadConfig(config.GlobalScope); err == nil {
			if name == "" {
				name = c.User.Name
			}
			if email == "" {
				email = c.User.Email
			}
		}
	}
	return formatAuthor(name, email)
}

// envVar is getenv(key), or "" when there is no getenv. gitrepo never
// reads the process environment itself: the CLI passes its own getenv.
func envVar(getenv func(string) string, key string) string {
	if getenv == nil {
		return ""
	}
	return getenv(key)
}

func formatAuthor(name, email string) string {
	name, email = strings.TrimSpace(name), strings.TrimSpace(email)
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
