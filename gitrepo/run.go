package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
// been killed (see runGit): only a program that left git's process group
// and kept its output open makes the wait last. At 100 ms a loaded machine
// (CI's race-detector run beside a 100k-record benchmark on 2 cores) did
// not copy a finished git's output in time, and lore status failed with
// "git diff: exec: WaitDelay expired before I/O complete".
const waitDelay = time.Second

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
