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
// one repository checked out twice. Any failure to read the list means no.
func Trusted(getenv func(string) string, storeDir string) bool {
	list, err := List(getenv)
	if err != nil {
		return false
	}
	if slices.Contains(list, key(storeDir)) {
		return true
	}
	main, ok := mainWorktreeStore(getenv, storeDir)
	return ok && slices.Contains(list, key(main))
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

// Add trusts the store at storeDir; it reports whether it was new.
func Add(getenv func(string) string, storeDir string) (bool, error) {
	list, err := List(getenv)
	if err != nil {
		return false, err
	}
	k := key(storeDir)
	if slices.Contains(list, k) {
		return false, nil
	}
	return true, write(getenv, append(list, k))
}

// Remove stops trusting the store at storeDir; it reports whether it was
// trusted.
func Remove(getenv func(string) string, storeDir string) (bool, error) {
	list, err := List(getenv)
	if err != nil {
		return false, err
	}
	k := key(storeDir)
	if !slices.Contains(list, k) {
		return false, nil
	}
	return true, write(getenv, slices.DeleteFunc(list, func(s string) bool { return s == k }))
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
