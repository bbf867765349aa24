// Package trust remembers which repositories' memory the user lets lore
// inject. .lore/ arrives with every clone, written by whoever could push;
// its records reach an agent that runs commands. So the hook injects a
// store only where this user said so: a store they created (lore init), a
// repository they trusted (lore trust), or a hook written into the
// repository's own settings, where the repository could run a hook of its
// own anyway (see hooks.Command). The list lives outside every repository, in the
// user's configuration directory, one store path per line.
package trust

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"lore/gitrepo"
	"lore/store"
)

// FileName is the list's name in lore's configuration directory.
const FileName = "trusted"

// Dir is lore's directory in the user's configuration directory, as
// os.UserConfigDir finds it, from getenv rather than the process.
func Dir(getenv func(string) string) (string, error) {
	var base string
	switch runtime.GOOS {
	case "windows":
		base = getenv("AppData")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			base = filepath.Join(h, "Library", "Application Support")
		}
	default:
		base = getenv("XDG_CONFIG_HOME")
		if base == "" || !filepath.IsAbs(base) {
			if h := getenv("HOME"); h != "" {
				base = filepath.Join(h, ".config")
			}
		}
	}
	if base == "" {
		return "", errors.New("no configuration directory: neither $XDG_CONFIG_HOME nor $HOME is set")
	}
	return filepath.Join(base, "lore"), nil
}

// key is how a store is named in the list: its absolute path with symbolic
// links resolved, so two spellings of one directory are one entry.
func key(storeDir string) string {
	abs, err := filepath.Abs(storeDir)
	if err != nil {
		return filepath.Clean(storeDir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// List returns the trusted stores.
func List(getenv func(string) string) ([]string, error) {
	dir, err := Dir(getenv)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// Split whole rather than scanned: bufio.Scanner stops silently at a
	// line of 64 KiB, which dropped every entry after it, and Add and
	// Remove then wrote the shortened list back.
	var out []string
	for l := range strings.Lines(string(data)) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}

// Trusted reports whether the user trusts the store at storeDir: it is
// listed, or it is the store of a linked worktree (git worktree add, as
// agents make to work in parallel) whose main worktree's store is listed,
// one repository checked out twice. Any failure to read the list means no,
// and so does a path the list cannot hold (ErrLineBreak).
func Trusted(getenv func(string) string, storeDir string) bool {
	list, err := List(getenv)
	k := key(storeDir)
	if err != nil || listable(k) != nil {
		return false
	}
	return slices.Contains(list, k) || slices.Contains(list, entry(getenv, storeDir))
}

// ErrLineBreak is a store whose path holds a line break. The list holds
// one path per line: written as it is, such a path would list a second
// store of the directory's choosing (a clone made under "x\n/victim").
var ErrLineBreak = errors.New("the store's path holds a line break, which lore's trust list (one path per line) cannot hold; move the repository to a path without one")

func listable(path string) error {
	if strings.ContainsAny(path, "\r\n") {
		return fmt.Errorf("%q: %w", path, ErrLineBreak)
	}
	return nil
}

// entry is how the list names the store at storeDir: in a linked worktree,
// the main worktree's store, which covers every worktree of the repository
// (Trusted) and outlives this one.
func entry(getenv func(string) string, storeDir string) string {
	if main, ok := mainWorktreeStore(getenv, storeDir); ok {
		return key(main)
	}
	return key(storeDir)
}

// mainWorktreeStore is where storeDir's store is in the main worktree, if
// storeDir is in a linked one.
func mainWorktreeStore(getenv func(string) string, storeDir string) (string, bool) {
	repo, err := gitrepo.FindRepo(storeDir, getenv)
	if err != nil {
		return "", false
	}
	main, ok := repo.MainWorktree()
	if !ok {
		return "", false
	}
	rel, err := filepath.Rel(key(repo.Root), key(storeDir))
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.Join(main, rel), true
}

// Add trusts the repository of the store at storeDir: it lists the store,
// or in a linked worktree the main worktree's (entry). It returns what it
// listed and whether that was new.
func Add(getenv func(string) string, storeDir string) (string, bool, error) {
	return add(getenv, entry(getenv, storeDir))
}

// AddCreated trusts a store the user just created. In a linked worktree
// whose main worktree has no store yet, it lists the main worktree's, as
// Add does: the store reaches it with the first merge. One that is there
// already may have come with the clone, so then only this worktree's own
// store is listed.
func AddCreated(getenv func(string) string, storeDir string) (string, bool, error) {
	e := entry(getenv, storeDir)
	if _, err := os.Lstat(e); err == nil {
		e = key(storeDir)
	}
	return add(getenv, e)
}

func add(getenv func(string) string, e string) (string, bool, error) {
	if err := listable(e); err != nil {
		return e, false, err
	}
	list, err := List(getenv)
	if err != nil {
		return e, false, err
	}
	if slices.Contains(list, e) {
		return e, false, nil
	}
	return e, true, write(getenv, append(list, e))
}

// Remove stops trusting the repository of the store at storeDir: its own
// entry and, in a linked worktree, the main worktree's, which covers it. It
// returns the entries it removed.
func Remove(getenv func(string) string, storeDir string) ([]string, error) {
	list, err := List(getenv)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range slices.Compact([]string{key(storeDir), entry(getenv, storeDir)}) {
		if slices.Contains(list, e) {
			removed = append(removed, e)
		}
	}
	if len(removed) == 0 {
		return nil, nil
	}
	return removed, write(getenv, slices.DeleteFunc(list, func(s string) bool { return slices.Contains(removed, s) }))
}

func write(getenv func(string) string, list []string) error {
	dir, err := Dir(getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Stores whose memory lore injects into agents (lore trust, lore init). One path per line.\n")
	for _, s := range list {
		b.WriteString(s + "\n")
	}
	return store.WriteAtomic(filepath.Join(dir, FileName), []byte(b.String()))
}
