package lore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// OpenRepo opens the git repository that contains dir, from any
// subdirectory and from linked worktrees.
// Like git, it does not search above GIT_CEILING_DIRECTORIES.
func OpenRepo(dir string) (*git.Repository, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{
		DetectDotGit:          true,
		EnableDotGitCommonDir: true,
	})
	if err != nil {
		return nil, err
	}
	if wt, werr := repo.Worktree(); werr == nil && aboveCeiling(dir, wt.Filesystem.Root()) {
		return nil, git.ErrRepositoryNotExists
	}
	return repo, nil
}

// aboveCeiling reports whether root was found by climbing from dir to or
// past a directory in GIT_CEILING_DIRECTORIES.
func aboveCeiling(dir, root string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for _, c := range filepath.SplitList(os.Getenv("GIT_CEILING_DIRECTORIES")) {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		c = filepath.Clean(c)
		below := func(p, base string) bool {
			rel, err := filepath.Rel(base, p)
			return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
		}
		if below(abs, c) && !below(root, c) {
			return true
		}
	}
	return false
}

// RepoRoot returns the top of the worktree that contains dir.
func RepoRoot(dir string) (string, error) {
	repo, err := OpenRepo(dir)
	if err != nil {
		return "", err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", err
	}
	return wt.Filesystem.Root(), nil
}

// GitOrigin reads the author, branch and HEAD commit for records made in
// dir. Outside a repository, or on an unborn or detached HEAD, the missing
// parts are left empty; capture never fails for want of git.
func GitOrigin(dir string) Origin {
	var o Origin
	repo, err := OpenRepo(dir)
	if err != nil {
		o.Author = authorFromEnv()
		return o
	}
	if ref, err := repo.Storer.Reference(plumbing.HEAD); err == nil {
		if ref.Type() == plumbing.SymbolicReference {
			o.Branch = ref.Target().Short()
		}
	}
	if head, err := repo.Head(); err == nil {
		o.Commit = head.Hash().String()
	}
	o.Author = authorFromEnv()
	if o.Author == "" {
		if cfg, err := repo.ConfigScoped(config.GlobalScope); err == nil {
			o.Author = formatAuthor(cfg.User.Name, cfg.User.Email)
		}
	}
	return o
}

// authorFromEnv honours git's own override variables.
func authorFromEnv() string {
	return formatAuthor(os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL"))
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
func IsNotRepo(err error) bool { return errors.Is(err, git.ErrRepositoryNotExists) }
