package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/gitrepo"
	"lore/store"
	"lore/trust"
)

const initHelp = `Usage: lore init

Create .lore/ at the root of the git repository that holds the working
directory (from any subdirectory; in a linked worktree, at that worktree's
root): a commented config.toml with the defaults, and the .gitattributes and
.gitignore the format needs. Existing files are left alone, so running it
again changes nothing. With --dir or $LORE_DIR, create the store there.

A store init creates is trusted: the hooks inject it (see lore trust). A
store that came with a clone is not, even when init adds a missing file to
it: read it, then run lore trust.`

// bareRepoHint is init's hint in a bare repository.
const bareRepoHint = "this is a bare repository, with no worktree to keep .lore in: run lore in a clone of it"

func cmdInit(_ context.Context, e *env, args []string) error {
	fs := newFlags("init")
	if err := e.parse(fs, initHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("init"), "init takes no arguments")
	}
	dir := e.dir
	if dir == "" {
		dir = e.getenv("LORE_DIR")
	}
	if dir == "" {
		// In a git directory, as git (which runs no work-tree command
		// there) and every other lore command find no store, init makes
		// none: not even for the work tree a .git directory belongs to.
		if gd := store.InGitDir(e.cwd, e.getenv); gd != nil {
			hint := bareRepoHint
			switch {
			case gd.WorkTree != "":
				hint = "run lore init in its work tree, " + gd.WorkTree
			case strings.Contains(filepath.ToSlash(gd.GitDir), "/.git/"): // a submodule's, in .git/modules
				hint = "run lore init in the work tree it belongs to"
			}
			return &cliError{code: exitFailure, msg: gd.GitDir + " is a git directory, not a work tree", hint: hint}
		}
		root, err := gitrepo.RepoRoot(e.cwd, e.getenv)
		if gitrepo.IsNotRepo(err) {
			hint := "run 'git init' first, or choose a directory with --dir"
			switch {
			case e.getenv("GIT_DIR") != "" || e.getenv("GIT_WORK_TREE") != "":
				hint = "lore finds the repository from the directory it runs in (a .git up the tree), not from GIT_DIR or GIT_WORK_TREE: run it in a checkout, or choose a directory with --dir"
			case gitrepo.IsBare(e.cwd):
				hint = bareRepoHint
			}
			return &cliError{code: exitFailure, msg: "not inside a git repository", hint: hint}
		}
		if err != nil {
			return err
		}
		dir = filepath.Join(root, store.DirName)
		if err := e.checkedOut(root); err != nil {
			return err
		}
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(e.cwd, dir)
	}
	// A store you create is one you trust; one that came with a clone
	// waits for lore trust, even if init adds a file to it. A .local of
	// this checkout's own (left by a store on another branch: git keeps
	// what it does not track) came with nothing.
	entries, _ := os.ReadDir(dir)
	fresh := !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() != store.LocalDir })
	created, err := store.Init(dir)
	if err != nil {
		return err
	}
	if fresh {
		if _, _, err := trust.AddCreated(e.getenv, dir); err != nil {
			e.warn("could not remember that you trust this store: %v", err)
		}
	}
	if len(created) == 0 || !fresh {
		fmt.Fprintf(e.stderr, "lore: store already set up at %s\n", lineSafe(dir))
		if !trust.Trusted(e.getenv, dir) {
			fmt.Fprintf(e.stderr, "lore: hooks do not inject its memory until you trust it on this machine: if it came with the repository, read it first (lore resume, lore list); then run 'lore trust'\n")
		}
		// The store's path is init's data, made now or before: $(lore init)
		// names it either way.
		fmt.Fprintln(e.stdout, dir)
		return nil
	}
	fmt.Fprintf(e.stderr, "lore: created store at %s\n", lineSafe(dir))
	if s, err := store.Open(dir); err == nil {
		s.Getenv = e.getenv
		if ig := s.IgnoredByGit(context.Background()); ig != nil {
			e.warn("%s: they would never be committed or shared", ig)
			fmt.Fprintln(e.stderr, hintPrefix+lineSafe(ig.Hint()))
		}
	}
	fmt.Fprintln(e.stdout, dir)
	return nil
}

// checkedOut refuses to create a store the repository already tracks but
// this checkout leaves out (a sparse checkout of other directories): a new
// one would hide the team's memory and collide with it at the next merge.
func (e *env) checkedOut(root string) error {
	if lo := store.LeftOut(root, e.getenv); lo != nil {
		return &cliError{code: exitFailure, msg: lo.Reason(), hint: lo.Hint()}
	}
	return nil
}

// leftOutStore is the error for a command that found no store in a
// checkout that leaves out the store the repository tracks: lore init
// would refuse there, so the hint is to check the store out. It asks git
// only on that error's way out; nil for any other error, and where --dir
// or LORE_DIR named the store.
func (e *env) leftOutStore(err error) error {
	if !errors.Is(err, store.ErrNoStore) || errors.As(err, new(*store.GitDirError)) || e.dir != "" || e.getenv("LORE_DIR") != "" {
		return nil
	}
	if lo := store.LeftOut(e.cwd, e.getenv); lo != nil {
		return &cliError{code: exitNoStore, msg: lo.Error(), hint: lo.Hint()}
	}
	return nil
}
