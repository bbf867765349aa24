package gitrepo

// The repository's own filter drivers, switched off for every git command
// lore runs (see Run): read once per process, and trusted while the config
// files they came from have not changed.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Filter drivers have names the config makes up, so no fixed -c can switch
// them off: their names are read first, with git config (which runs
// nothing), and every filter key the repository's config sets is set again
// on the command line, which git reads last: to the user's own (system,
// global or command-line) value, so a driver such as git-lfs keeps
// working, or else to empty, which git takes as no filter, with
// required=false so that no filter is not an error.

// filterVars are the keys of a filter driver.
var filterVars = []string{"clean", "smudge", "process", "required"}

// drivers caches the lookup per directory for the life of the process.
var drivers = &driverCache{byDir: map[string]*lookup{}}

type driverCache struct {
	mu    sync.Mutex
	byDir map[string]*lookup
}

// lookup is one reading of the config. A lookup serves the calls that start
// while it runs, and later calls while the files it read are unchanged.
type lookup struct {
	done      chan struct{}
	overrides []string
	err       error
	stamp     *stamp // nil: it cannot be checked, so it serves no later call
}

func (c *driverCache) overrides(ctx context.Context, getenv func(string) string, dir string) ([]string, error) {
	c.mu.Lock()
	l := c.byDir[dir]
	if l != nil {
		select {
		case <-l.done:
			if l.err != nil || !l.stamp.current(getenv, dir) {
				l = nil
			}
		default: // running: share it
		}
	}
	if l == nil {
		l = &lookup{done: make(chan struct{})}
		c.byDir[dir] = l
		go l.run(ctx, getenv, dir)
	}
	c.mu.Unlock()
	select {
	case <-l.done:
		return l.overrides, l.err
	case <-ctx.Done():
		return nil, &Error{Msg: "git config: " + ctx.Err().Error()}
	}
}

// run reads the config. It outlives a caller that gives up waiting, for
// the others sharing it, but not its own timeout.
func (l *lookup) run(ctx context.Context, getenv func(string) string, dir string) {
	defer close(l.done)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
	defer cancel()
	// Stamped before reading, so a change made during the read shows.
	st := stampOf(getenv, dir)
	if st.noDrivers() {
		l.stamp = st
		return
	}
	argv := append(append([]string{"-C", dir}, safeArgs...), "config", "--null", "--list", "--show-scope", "--show-origin")
	out, err := runGit(ctx, argv, "config", "")
	if err != nil {
		l.err = err
		return
	}
	entries := parseConfigList(out)
	if l.overrides, l.err = filterOverrides(entries); l.err == nil && st != nil && st.covers(entries) {
		l.stamp = st
	}
}

// configEntry is one line of git config --list --show-scope --show-origin.
type configEntry struct {
	scope, origin, key string
	value              *string // nil for a key given without "="
}

// repoScoped reports whether the entry comes from the repository (local or
// worktree config, or a file they include) rather than from the user. An
// unknown scope counts as the repository's.
func (e configEntry) repoScoped() bool {
	return e.scope != "system" && e.scope != "global" && e.scope != "command"
}

// parseConfigList reads --null output: scope, origin and "key\nvalue" (or
// just "key"), each ended by NUL.
func parseConfigList(out string) []configEntry {
	f := strings.Split(out, "\x00")
	var es []configEntry
	for i := 0; i+2 < len(f); i += 3 {
		e := configEntry{scope: f[i], origin: f[i+1], key: f[i+2]}
		if k, v, ok := strings.Cut(e.key, "\n"); ok {
			e.key, e.value = k, &v
		}
		es = append(es, e)
	}
	return es
}

// filterKey splits a config key filter.<name>.<var> whose var is one of
// filterVars; the name may itself hold dots.
func filterKey(key string) (name, v string, ok bool) {
	rest, ok := strings.CutPrefix(key, "filter.")
	dot := strings.LastIndexByte(rest, '.')
	if !ok || dot < 0 || !slices.Contains(filterVars, rest[dot+1:]) {
		return "", "", false
	}
	return rest[:dot], rest[dot+1:], true
}

// filterSettings sorts the filter keys entries set: by the repository
// (driver name: the vars it sets) and by the user ("name.var": the value,
// the last one winning).
func filterSettings(entries []configEntry) (repo map[string]map[string]bool, user map[string]*string) {
	repo, user = map[string]map[string]bool{}, map[string]*string{}
	for _, e := range entries {
		name, v, ok := filterKey(e.key)
		switch {
		case !ok:
		case !e.repoScoped():
			user[name+"."+v] = e.value
		case repo[name] == nil:
			repo[name] = map[string]bool{v: true}
		default:
			repo[name][v] = true
		}
	}
	return repo, user
}

// filterOverrides returns the -c arguments that undo every filter key the
// repository sets: back to the user's value where the user sets one, else
// to "no filter". git names keys section.subsection.var with the section
// and var lowercased and the subsection as written.
func filterOverrides(entries []configEntry) ([]string, error) {
	repo, user := filterSettings(entries)
	names := slices.Sorted(maps.Keys(repo))
	for _, name := range names {
		// -c splits at the first "=", and a name cannot hold a newline: a
		// driver so named cannot be switched off, so git does not run.
		if strings.ContainsAny(name, "=\n") {
			return nil, &Error{Msg: fmt.Sprintf("the repository's git config names filter driver %q, which lore cannot switch off, so it does not run git here", name)}
		}
	}
	var args []string
	set := func(key string, val *string) {
		if val == nil {
			args = append(args, "-c", key) // as the user wrote it
		} else {
			args = append(args, "-c", key+"="+*val)
		}
	}
	empty, no := "", "false"
	for _, name := range names {
		vars := repo[name]
		// An empty clean or smudge is no filter, as if unset; an empty
		// process is not: it also stops git from using clean and smudge.
		// So when the repository sets a process the user does not, the
		// user's driver cannot be kept either, and it must not be required.
		_, userProcess := user[name+".process"]
		off := vars["process"] && !userProcess
		for _, v := range filterVars {
			key := "filter." + name + "." + v
			val, ok := user[name+"."+v]
			switch {
			case v == "required" && off:
				set(key, &no)
			case !vars[v]:
				// the repository leaves it alone: the user's value stands
			case ok:
				set(key, val)
			case v == "required":
				set(key, &no)
			default:
				set(key, &empty)
			}
		}
	}
	return args, nil
}

// stamp is what a lookup for a directory read from: the repository git
// finds from it and the state of its config files. A lookup is reused only
// while the repository found and those files are the same.
type stamp struct {
	root, gitDir, commonDir string
	// config, then config.worktree (read from the worktree's own git
	// dir); nil where the file does not exist
	infos []os.FileInfo
}

// stampOf stamps the repository containing dir, or returns nil when lore
// cannot tell which config git reads (git told where to look by the
// environment rather than by finding .git).
func stampOf(getenv func(string) string, dir string) *stamp {
	for _, v := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE"} {
		if envVar(getenv, v) != "" {
			return nil
		}
	}
	r, err := FindRepo(dir, getenv)
	if err != nil {
		return nil
	}
	st := &stamp{root: r.Root, gitDir: r.GitDir, commonDir: r.CommonDir}
	for _, f := range []string{filepath.Join(r.CommonDir, "config"), filepath.Join(r.GitDir, "config.worktree")} {
		fi, _ := os.Stat(f)
		st.infos = append(st.infos, fi)
	}
	return st
}

// covers reports whether the repository's entries all came from the
// stamped files, which shows lore found the repository git did, and
// whether none includes another file (whose changes the stamp would miss).
func (st *stamp) covers(entries []configEntry) bool {
	seen := false
	for _, e := range entries {
		if !e.repoScoped() {
			continue
		}
		seen = true
		if k := e.key; strings.HasPrefix(k, "include.") || strings.HasPrefix(k, "includeif.") {
			return false
		}
		path, ok := strings.CutPrefix(e.origin, "file:")
		if !ok {
			return false
		}
		if !filepath.IsAbs(path) {
			// git reports a local file relative to the worktree's top,
			// where it runs.
			path = filepath.Join(st.root, path)
		}
		fi, err := os.Stat(path)
		if err != nil || !slices.ContainsFunc(st.infos, func(s os.FileInfo) bool { return s != nil && os.SameFile(s, fi) }) {
			return false
		}
	}
	return seen
}

// noDrivers reports whether the repository's own config provably sets no
// filter key, so that nothing needs switching off and git config need not
// run (a process of its own, before every hook's git status). Only
// the stamped files can hold repository-scoped keys, and a filter key or
// an include of another file must spell "filter" or "include" there in
// some case (section names have no escapes); a file that holds either
// word anywhere is left to git config. The repository must also be one
// git finds where lore did: a git dir without HEAD, objects or refs is
// not one to git, which looks further up.
func (st *stamp) noDrivers() bool {
	if st == nil {
		return false
	}
	for _, p := range []string{filepath.Join(st.gitDir, "HEAD"), filepath.Join(st.commonDir, "objects"), filepath.Join(st.commonDir, "refs")} {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	for i, f := range []string{filepath.Join(st.commonDir, "config"), filepath.Join(st.gitDir, "config.worktree")} {
		if st.infos[i] == nil {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return false
		}
		text := strings.ToLower(string(b))
		if strings.Contains(text, "filter") || strings.Contains(text, "include") {
			return false
		}
	}
	return true
}

// current reports whether the stamp still describes dir's repository.
func (st *stamp) current(getenv func(string) string, dir string) bool {
	if st == nil {
		return false
	}
	now := stampOf(getenv, dir)
	if now == nil || now.root != st.root || now.gitDir != st.gitDir || now.commonDir != st.commonDir {
		return false
	}
	for i, fi := range st.infos {
		cur := now.infos[i]
		if (fi == nil) != (cur == nil) {
			return false
		}
		if fi != nil && (!os.SameFile(fi, cur) || !fi.ModTime().Equal(cur.ModTime()) || fi.Size() != cur.Size()) {
			return false
		}
	}
	return true
}
