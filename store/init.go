package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/config"
	"lore/gitrepo"
	"lore/record"
)

// Files lore keeps beside the records. The attributes are a second line of
// defence: shards are named so merges only add files, and union merging
// covers the rare case of one shard changed on two branches. They also
// keep the records in git as they are: a repository's "*.jsonl filter=lfs"
// (Git LFS) would otherwise store pointers, and a union merge of two
// pointers is neither side's records; "-filter" switches any filter off
// for lore's files, "diff" undoes a diff=lfs or -diff.
const (
	gitattributes = attrsComment + "*.jsonl " + jsonlAttrs + "\n*.toml " + tomlAttrs + "\n"
	attrsComment  = "# lore: records are append-only lines: keep both sides on merge, and keep\n# them in git as they are (no filter: Git LFS would store pointers instead).\n"
	jsonlAttrs    = "merge=union text eol=lf -filter diff"
	// Patterns files get git's own merge, not union: a union of two tables
	// appended on two branches is one table with every key twice, read as
	// neither; a conflict is read as both sides, and doctor --fix keeps
	// both when each side only added (record.ResolveAdditions).
	tomlAttrs = "merge text eol=lf -filter diff"
	gitignore = "# lore: per-checkout state (writer ID, lock, caches, session state)\n.local/\n" + ignoreTemp
	// ignoreTemp keeps out of git the copy of a shard an interrupted
	// rewrite (a purge, a repair killed part way) leaves beside it.
	ignoreTemp = "# lore: temporary copies an interrupted write leaves\n.tmp-*\n"
)

// oldAttrLines are the lines of the .gitattributes lore wrote before it
// switched filters off: --fix puts the current ones in their place.
var oldAttrLines = map[string]bool{
	"# lore: records are append-only lines; keep both sides on merge.": true,
	"*.jsonl merge=union text eol=lf":                                  true,
	"*.toml text eol=lf":                                               true,
}

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

// Ignored is what of the store git ignores, and the rules that do.
type Ignored struct {
	Rules []IgnoreRule
	name  string // the store's directory, as the rules' files see it: ".lore"
}

// IgnoreRule is one rule git ignores store files by (as git check-ignore
// -v names it), and what it ignores.
type IgnoreRule struct {
	Source  string // the file the rule is in: ".gitignore", ".git/info/exclude", the global excludes file
	Line    string
	Pattern string
	Records []string // the kind directories whose records it ignores
	Files   []string // the store's own files it ignores (".lore/config.toml")
	store   string   // the store's directory (".lore"), to tell a rule in it
}

// String is what the rule ignores, and the rule: "the store's records
// (.gitignore:1: *.jsonl)".
func (r IgnoreRule) String() string {
	var what []string
	switch n := len(r.Records); {
	case n == len(record.AllKinds()):
		what = append(what, "the store's records")
	case n > 0:
		what = append(what, "the store's records in "+strings.Join(r.Records, ", "))
	}
	what = append(what, r.Files...)
	list := what[len(what)-1]
	if n := len(what); n > 1 {
		list = strings.Join(what[:n-1], ", ") + " and " + list
	}
	return fmt.Sprintf("%s (%s:%s: %s)", list, r.Source, r.Line, r.Pattern)
}

// inStore reports whether the rule is in one of the store's own
// .gitignore files, which a line outside the store cannot undo.
func (r IgnoreRule) inStore() bool {
	return strings.Contains("/"+filepath.ToSlash(r.Source), "/"+r.store+"/")
}

// String names what git ignores and by which rules: "git ignores the
// store's records (.gitignore:1: *.jsonl)".
func (ig *Ignored) String() string {
	parts := make([]string, len(ig.Rules))
	for i, r := range ig.Rules {
		parts[i] = r.String()
	}
	return "git ignores " + strings.Join(parts, "; ")
}

// Hint is what brings the store back into git: a rule in the store's own
// .gitignore is removed; any other is outweighed by two lines at the end
// of the .gitignore beside the store (a .gitignore beats the global
// excludes file and .git/info/exclude, and a later line an earlier one).
// "!.lore/" brings back the directory a rule such as ".*" or ".lore/"
// leaves out (git looks at nothing under an ignored directory);
// "!.lore/**" brings back the files in it a rule such as "*.jsonl" or
// ".*" matches. The store's own .gitignore still keeps .local/ out: a
// deeper .gitignore outweighs the one above it.
func (ig *Ignored) Hint() string {
	var hints []string
	outside := false
	for _, r := range ig.Rules {
		if r.inStore() {
			hints = append(hints, fmt.Sprintf("remove line %s (%s) from %s", r.Line, r.Pattern, r.Source))
		} else {
			outside = true
		}
	}
	if outside {
		hints = append([]string{fmt.Sprintf("add two lines at the end of .gitignore, beside %s/: !%s/ and !%s/**", ig.name, ig.name, ig.name)}, hints...)
	}
	return strings.Join(hints, "; ")
}

// IgnoredByGit is what of the store git ignores and by which rules, or
// nil when git ignores none of it or cannot tell (no repository). A store
// behind a rule such as ".*" in the repository's .gitignore fills up and
// is never shared. It probes the store's own files and a shard of each
// kind, as git would see them (--no-index: whether or not they are
// tracked).
func (s *Store) IgnoredByGit(ctx context.Context) *Ignored {
	probes := []string{"config.toml", ".gitattributes", ".gitignore"}
	shardOf := map[string]string{} // probe: its kind's directory
	for _, k := range record.AllKinds() {
		p := k.Dir() + "/2000-01/probe" + k.Ext()
		probes = append(probes, p)
		shardOf[p] = k.Dir() + "/"
	}
	out, err := gitrepo.RunInput(ctx, s.Getenv, s.Dir, strings.Join(probes, "\x00")+"\x00", "check-ignore", "--no-index", "-v", "-z", "--stdin")
	if err != nil {
		return nil // 1: none is ignored
	}
	ig := &Ignored{name: s.Rel(s.Dir)}
	// source, line, pattern, path; a "!" pattern is one that lets a path in
	f := strings.Split(out, "\x00")
	for i := 0; i+3 < len(f); i += 4 {
		if strings.HasPrefix(f[i+2], "!") {
			continue
		}
		at := slices.IndexFunc(ig.Rules, func(r IgnoreRule) bool { return r.Source == f[i] && r.Line == f[i+1] })
		if at < 0 {
			ig.Rules = append(ig.Rules, IgnoreRule{Source: f[i], Line: f[i+1], Pattern: f[i+2], store: ig.name})
			at = len(ig.Rules) - 1
		}
		r := &ig.Rules[at]
		if dir, ok := shardOf[f[i+3]]; ok {
			r.Records = append(r.Records, dir)
		} else {
			r.Files = append(r.Files, filepath.ToSlash(filepath.Join(ig.name, f[i+3])))
		}
	}
	if len(ig.Rules) == 0 {
		return nil
	}
	return ig
}
