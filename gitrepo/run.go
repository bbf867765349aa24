package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Timeout bounds a git command whose context has no deadline of its own.
const Timeout = 2 * time.Second

// A repository's config (.git/config, config.worktree and what they
// include) can name programs that git runs on its own: an fsmonitor, hooks,
// a pager, credential helpers, an askpass, ssh for a lazy fetch in a
// partial clone, filter drivers (status and diff clean worktree files
// through them), diff drivers and external diffs (diff, and log -S, which
// textconvs). A repository is not necessarily trusted (an unpacked archive,
// a config an agent was talked into writing), and lore runs inside agents'
// hooks, so no git that lore runs may start any of them.

// safeArgs go before every command lore runs.
//   - --no-pager and core.pager: never page, even on a terminal.
//   - --no-optional-locks: a read (git status) neither takes the index lock
//     another git holds nor writes the index (which would run the
//     post-index-change hook).
//   - core.fsmonitor=false: the fsmonitor is a program the config names.
//   - core.hooksPath=/dev/null: no hook can exist there. None of the
//     commands below runs hooks; this keeps it so if one ever does.
//   - credential.helper= (an empty value clears the list) and
//     core.askPass=: nothing to ask for credentials.
//   - protocol.allow=never: every transport is refused, so a partial clone
//     cannot lazily fetch a missing object through core.sshCommand, a
//     remote helper or a credential prompt; lore only reads local objects.
//   - diff.submodule=short: --submodule=diff would run git diff inside a
//     submodule, whose own config lore has not read.
//   - log.showSignature=false: verifying signatures runs gpg.program.
//
// Empty diff.external, diff.<driver>.command or diff.<driver>.textconv do
// not switch those off: git tries to run the empty command and dies. The
// --no-ext-diff and --no-textconv flags in vetted do.
var safeArgs = []string{
	"--no-pager", "--no-optional-locks",
	"-c", "core.pager=cat",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "credential.helper=",
	"-c", "core.askPass=",
	"-c", "protocol.allow=never",
	"-c", "diff.submodule=short",
	"-c", "log.showSignature=false",
}

// safeEnv is set for every command. An empty GIT_ASKPASS stops git from
// falling back to core.askPass or SSH_ASKPASS; GIT_TERMINAL_PROMPT=0 makes
// a prompt an error instead of a wait on the terminal; GIT_EDITOR=: is
// git's own "no editor".
var safeEnv = []string{"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_EDITOR=:", "GIT_PAGER=cat", "PAGER=cat"}

// locationVars tell git where the repository, its worktree and its index
// are, in place of finding them from the current directory.
var locationVars = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE"}

// vetted are the git subcommands lore runs, with the flags that keep each
// from running programs. worktree marks those that read worktree files and
// so run filter drivers: they get the drivers switched off (see
// filterOverrides). Run refuses any other subcommand: each new one must be
// checked for what it can run before it is added here.
var vetted = map[string]struct {
	flags    []string
	worktree bool
}{
	// --ignore-submodules=dirty: finding whether a submodule's worktree is
	// dirty runs git status inside it, under the submodule's own config.
	// A submodule whose checked-out commit moved is still reported.
	"status": {flags: []string{"--ignore-submodules=dirty"}, worktree: true},
	"diff":   {flags: []string{"--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}, worktree: true},
	// log reads no worktree file: the one filter it could run is the
	// smudge of the blobs it writes out for a textconv or an external
	// diff, which these flags switch off with them.
	"log": {flags: []string{"--no-ext-diff", "--no-textconv"}},
	// ls-files --others reads no content, but --modified would, so it is
	// treated as reading the worktree; beside status or diff that costs
	// nothing, the lookup being shared.
	"ls-files":  {worktree: true},
	"rev-parse": {},
	// hash-object hashes worktree files as git would store them, through
	// the clean filters (switched off with the rest); with -w, at capture,
	// it writes each file's content as a loose object (see anchor's
	// hashFiles), and runs no program.
	"hash-object": {worktree: true},
	// cat-file prints objects as stored: without --filters or --textconv
	// it runs nothing.
	"cat-file": {},
	// check-ignore reads .gitignore files and the exclude settings; it
	// runs nothing.
	"check-ignore": {},
}

// Error is a git command that failed: which one, and git's own reason
// (its first error line, which names the file when one is at fault), or
// how it failed when it wrote nothing.
type Error struct {
	Msg  string
	Code int // git's exit status; 0 when it did not exit (not started, timed out)
}

func (e *Error) Error() string { return e.Msg }

// ExitCode is the exit status of the git command that failed with err, or
// 0 if git did not exit with one: some commands (check-ignore) exit 1 to
// say "none".
func ExitCode(err error) int {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return 0
}

// Run runs git in dir and returns its standard output. It is the one way
// lore runs git, and it never lets the repository's config run a program.
// getenv gives the git variables lore itself reads (GIT_DIR and the like
// decide which config it checks); git inherits the process environment.
func Run(ctx context.Context, getenv func(string) string, dir string, args ...string) (string, error) {
	return RunInput(ctx, getenv, dir, "", args...)
}

// RunInput is Run with stdin: for the commands that read a list of paths
// or objects from it (hash-object --stdin-paths, cat-file --batch), so
// that one process serves any number of them.
func RunInput(ctx context.Context, getenv func(string) string, dir, stdin string, args ...string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	if len(args) == 0 {
		return "", &Error{Msg: "git: no command"}
	}
	sub, ok := vetted[args[0]]
	if !ok {
		return "", &Error{Msg: fmt.Sprintf("git %s: not a command lore has vetted to run (see gitrepo/run.go)", args[0])}
	}
	argv := append([]string{"-C", dir}, safeArgs...)
	if sub.worktree {
		overrides, err := drivers.overrides(ctx, getenv, dir)
		if err != nil {
			return "", err
		}
		argv = append(argv, overrides...)
	}
	argv = append(append(append(argv, args[0]), sub.flags...), args[1:]...)
	out, err := runGit(ctx, argv, args[0], stdin)
	if args[0] == "diff" && ExitCode(err) != 0 && ctx.Err() == nil {
		err = noRepository(ctx, dir, err)
	}
	return out, err
}

// noRepository is why git diff failed in dir: that git finds no repository
// there, when that is so, or else err. Outside a repository git diff does
// not say so but compares files (as with --no-index), and fails at lore's
// arguments ("unknown option `cached'"): so when it does not see the
// repository lore found, because it refuses one another user owns
// (safe.directory) or cannot read it, that is the cause. rev-parse runs
// only after git diff ran and failed.
func noRepository(ctx context.Context, dir string, err error) error {
	argv := append(append([]string{"-C", dir}, safeArgs...), "rev-parse", "--git-dir")
	if _, why := runGit(ctx, argv, "rev-parse", ""); why != nil && ctx.Err() == nil {
		if e, ok := why.(*Error); ok && !strings.HasPrefix(e.Msg, "git: ") {
			e.Msg = "git: " + strings.TrimPrefix(e.Msg, "git rev-parse: ")
		}
		return why
	}
	return err
}

// runGit runs git with argv and the safe environment; name is the
// subcommand, for the error.
func runGit(ctx context.Context, argv []string, name, stdin string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", argv...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	// GIT_CONFIG makes git config read only that file while every other
	// command reads the usual ones: the lookup must see what they see.
	//
	// git finds the repository from -C's directory, as lore found it: a
	// git hook's GIT_DIR (and the like) would make -C's directory the top
	// of the worktree, and lore runs git from the store's directory too.
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_CONFIG=") || slices.ContainsFunc(locationVars, func(v string) bool { return strings.HasPrefix(kv, v+"=") })
	}), safeEnv...)
	// The context's end kills git and all it started (see runInGroup); a
	// program that left git's process group can still hold git's output
	// open, and WaitDelay bounds the wait for it, after the deadline or
	// after git exits.
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := runInGroup(cmd); err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return "", &Error{Msg: "git " + name + ": timed out"}
		case ctx.Err() != nil:
			return "", &Error{Msg: "git " + name + ": " + ctx.Err().Error()}
		}
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		}
		if reason := gitReason(stderr.String()); reason != "" {
			if trust := safeDirectoryAdvice(stderr.String()); trust != "" {
				// git refuses the repository: the command is not the cause.
				return "", &Error{"git: " + reason + "; " + trust, code}
			}
			return "", &Error{"git " + name + ": " + reason, code}
		}
		// err says how git failed: not found, killed, exit status.
		return "", &Error{"git " + name + ": " + err.Error(), code}
	}
	return stdout.String(), nil
}

// waitDelay is how long git's output is waited for once git has exited or
// been killed (see runGit).
const waitDelay = 100 * time.Millisecond

// safeDirectoryAdvice is git's advice when it refuses a repository owned
// by another user (safe.directory): the command that trusts it, which
// lore passes on and never runs (nor bypasses) itself. It is "" when git
// gave none.
func safeDirectoryAdvice(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "git config --global --add safe.directory ") {
			return "if you trust it, run: " + l
		}
	}
	return ""
}

// gitReason is the line of git's stderr that says why it failed: the first
// "error:" or "fatal:" line (such as error: open(".lore/x.jsonl"):
// Permission denied), without that prefix, or else the first line.
func gitReason(stderr string) string {
	first := ""
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"error: ", "fatal: "} {
			if r, ok := strings.CutPrefix(l, p); ok {
				return r
			}
		}
		if first == "" {
			first = l
		}
	}
	return first
}

// Start runs git in the background and returns the function that waits
// for its result, so that independent git commands run side by side.
func Start(ctx context.Context, getenv func(string) string, dir string, args ...string) func() (string, error) {
	return StartInput(ctx, getenv, dir, "", args...)
}

// StartInput is Start with stdin, as RunInput is Run with it.
func StartInput(ctx context.Context, getenv func(string) string, dir, stdin string, args ...string) func() (string, error) {
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := RunInput(ctx, getenv, dir, stdin, args...)
		done <- result{out, err}
	}()
	return sync.OnceValues(func() (string, error) {
		r := <-done
		return r.out, r.err
	})
}

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
