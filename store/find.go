package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"lore/gitrepo"
)

// DirName is the store's directory at the repository root.
const DirName = ".lore"

// ErrNoStore is returned when no .lore store is found.
var ErrNoStore = errors.New("no .lore store found")

// GitDirError is FindStore's answer in a git directory (a repository's
// .git, a bare repository, or a directory under one): lore, like git,
// works in a work tree, which a git directory is not — git status there
// says "this operation must be run in a work tree". It is an ErrNoStore.
type GitDirError struct {
	GitDir   string // the git directory
	WorkTree string // the work tree it is the .git directory of; "" for another git directory
}

func (e *GitDirError) Error() string {
	msg := fmt.Sprintf("%s: %s is a git directory, not a work tree", ErrNoStore, e.GitDir)
	if e.WorkTree != "" {
		msg += ": run lore in its work tree, " + e.WorkTree
	}
	return msg
}

func (e *GitDirError) Unwrap() error { return ErrNoStore }

// LeftOutError is a store the repository tracks that this checkout leaves
// out (a sparse checkout of other directories): every command finds no
// store, and a new one would hide the team's memory and collide with it at
// the next merge. It is an ErrNoStore.
type LeftOutError struct {
	Root string // the repository's work tree
}

func (e *LeftOutError) Error() string { return fmt.Sprintf("%s: %s", ErrNoStore, e.Reason()) }

func (e *LeftOutError) Unwrap() error { return ErrNoStore }

// Reason is what is wrong, without "no .lore store found".
func (e *LeftOutError) Reason() string {
	return fmt.Sprintf("the repository tracks %s/, which this checkout leaves out", DirName)
}

// Hint is what to do: check the store out.
func (e *LeftOutError) Hint() string {
	return "git sparse-checkout add " + DirName + " (then lore finds the team's store)"
}

// LeftOut is a *LeftOutError when the repository holding start tracks a
// store at its root and this checkout has none there, and nil otherwise
// or when git cannot tell. It runs git: ask it once no store was found,
// never on the way to one.
func LeftOut(start string, getenv func(string) string) *LeftOutError {
	root, err := gitrepo.RepoRoot(start, getenv)
	if err != nil {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(root, DirName)); err == nil {
		return nil
	}
	out, err := gitrepo.Run(context.Background(), getenv, root, "ls-files", "-z", "--", DirName)
	if err != nil || out == "" {
		return nil
	}
	return &LeftOutError{Root: root}
}

// FindStore walks up from start to the repository root looking for .lore,
// the way git looks for .git: it stops at the first directory that holds a
// .git entry (a repository, linked worktree or submodule root) or is a git
// directory itself (a *GitDirError: a bare repository, or the .git
// directory start is in), and never climbs to or past
// GIT_CEILING_DIRECTORIES (read with getenv).
func FindStore(start string, getenv func(string) string) (string, error) {
	d, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if fi, err := os.Stat(filepath.Join(d, DirName)); err == nil && fi.IsDir() {
			if gitrepo.AboveCeiling(start, d, getenv) {
				return "", ErrNoStore
			}
			return filepath.Join(d, DirName), nil
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "", ErrNoStore
		}
		if gitrepo.IsBare(d) {
			if gitrepo.AboveCeiling(start, d, getenv) {
				return "", ErrNoStore
			}
			return "", gitDirError(d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ErrNoStore
		}
		d = parent
	}
}

// InGitDir is the *GitDirError FindStore gives for start when start is in
// a git directory, and nil when start is in a work tree or in no
// repository: lore init, which finds the repository rather than the
// store, asks it to refuse where the other commands find no store.
func InGitDir(start string, getenv func(string) string) *GitDirError {
	var gd *GitDirError
	if _, err := FindStore(start, getenv); errors.As(err, &gd) {
		return gd
	}
	return nil
}

// gitDirError is the error for git directory d, with the work tree it is
// the .git directory of.
func gitDirError(d string) *GitDirError {
	e := &GitDirError{GitDir: d}
	if filepath.Base(d) == ".git" {
		e.WorkTree = filepath.Dir(d)
	}
	return e
}
