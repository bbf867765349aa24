package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lore/config"
	"lore/gitrepo"
	"lore/record"
)

// Files lore keeps beside the records. The attributes are a second line of
// defence: shards are named so merges only add files, and union merging
// covers the rare case of one shard changed on two branches.
const (
	gitattributes = "# lore: records are append-only lines; keep both sides on merge.\n*.jsonl merge=union text eol=lf\n*.toml text eol=lf\n"
	gitignore     = "# lore: per-checkout state (writer ID, lock, caches, session state)\n.local/\n" + ignoreTemp
	// ignoreTemp keeps out of git the copy of a shard an interrupted
	// rewrite (a purge, a repair killed part way) leaves beside it.
	ignoreTemp = "# lore: temporary copies an interrupted write leaves\n.tmp-*\n"
)

// Init creates the store at dir (the .lore directory) if it is missing and
// any of its files that are missing; it never overwrites. It returns the
// files it created.
func Init(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, err
	}
	var created []string
	for _, f := range []struct{ name, body string }{
		{"config.toml", config.DefaultConfig},
		{".gitattributes", gitattributes},
		{".gitignore", gitignore},
	} {
		path := filepath.Join(dir, f.name)
		ok, err := writeNew(path, f.body)
		if err != nil {
			return created, err
		}
		if ok {
			created = append(created, path)
		}
	}
	return created, nil
}

// MissingAttributes lists lore's own dot files that are absent from dir.
func MissingAttributes(dir string) []string {
	var missing []string
	for _, n := range []string{".gitattributes", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(dir, n)); errors.Is(err, os.ErrNotExist) {
			missing = append(missing, n)
		}
	}
	return missing
}

func writeNew(path, body string) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return false, err
	}
	return true, f.Close()
}

// IgnoredByGit names the ignore rule (file:line:pattern) that keeps git
// from seeing the records written into the store, or "" when none does or
// git cannot tell (no repository). A store behind a rule such as ".*" in
// the repository's .gitignore fills up and is never shared.
func (s *Store) IgnoredByGit(ctx context.Context) string {
	probes := []string{"config.toml", ".gitattributes"}
	for _, k := range record.AllKinds() {
		probes = append(probes, filepath.Join(k.Dir(), "2000-01", "probe"+k.Ext()))
	}
	out, err := gitrepo.RunInput(ctx, s.Getenv, s.Dir, strings.Join(probes, "\x00")+"\x00", "check-ignore", "--no-index", "-v", "-z", "--stdin")
	if err != nil {
		return "" // 1: none is ignored
	}
	// source, line, pattern, path; a "!" pattern is one that lets a path in
	f := strings.Split(out, "\x00")
	for i := 0; i+3 < len(f); i += 4 {
		if !strings.HasPrefix(f[i+2], "!") {
			return fmt.Sprintf("%s:%s: %s", f[i], f[i+1], f[i+2])
		}
	}
	return ""
}
