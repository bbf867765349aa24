package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"lore/index"
	"lore/inject"
	"lore/internal/gcpolicy"
	"lore/internal/spell"
	"lore/record"
	"lore/store"
)

// Exit codes: exitCodes below is the one table; lore --help prints it and
// a test holds README.md's to it.
const (
	exitOK       = 0 // success
	exitFailure  = 1 // the command ran and failed: I/O, a malformed config, doctor found problems
	exitUsage    = 2 // bad command, flag or argument; nothing was written
	exitNoStore  = 3 // no .lore store found (run lore init)
	exitNotFound = 4 // no record matches the ID, or the prefix is ambiguous
	// exitBrokenPipe: stdout's reader went away (lore list | head), as
	// a process killed by SIGPIPE ends (128 + 13), silently.
	exitBrokenPipe = 141
)

// exitCodes says what each exit code means, in the words of lore --help
// and README.md's "Exit codes".
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success (hook mode always exits 0)"},
	{exitFailure, "the command failed: I/O, a malformed config, a newer store format, doctor found problems"},
	{exitUsage, "usage: bad command, flag or argument; nothing was written"},
	{exitNoStore, "no .lore store found (run lore init)"},
	{exitNotFound, "no record matches the ID, or the prefix is ambiguous"},
	{exitBrokenPipe, "stdout's reader went away (lore list piped to head, which exits early); a capture that could not print its ID exits 1"},
}

// env is what a command may touch: its streams, environment and directory.
// Commands never use the process globals directly.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	cwd            string
	argv0          string       // what lore was run as (os.Args[0]), for install
	dir            string       // --dir, if given
	store          *store.Store // the store the command opened, if any
	// collect, when set, receives what a command would print with --json
	// while it prints its text: lore mcp answers with both from one run.
	collect func(v any)
	// toolFiles: the files to anchor come from lore mcp's tools, relative
	// to the repository root as their schemas say (an MCP server's cwd is
	// wherever the agent started it), and errors name them file, not
	// --file.
	toolFiles bool
	// now, when set, is the clock of the stores it opens (tests pin it).
	now func() time.Time
	// hook: the command answers an agent's hook, which never fails (not
	// even when its answer cannot be written).
	hook bool
	// recorded is the short ID of the record a capture wrote, if any.
	recorded string
}

// structured hands v (the command's --json value) to collect, if set.
func (e *env) structured(v any) {
	if e.collect != nil {
		e.collect(v)
	}
}

// cliError carries an exit code and an optional hint to run().
type cliError struct {
	code int
	msg  string
	hint string
}

func (e *cliError) Error() string { return e.msg }

func usageError(hint, format string, args ...any) error {
	return &cliError{code: exitUsage, msg: fmt.Sprintf(format, args...), hint: hint}
}

// helpHint points a person at a command's help ("" for lore's own). The
// MCP tools leave it out of their errors (isHelpHint): an agent has the
// tool's schema, not a command line.
func helpHint(command string) string {
	if command == "" {
		return "run 'lore --help'"
	}
	return "run 'lore " + command + " --help'"
}

// isHelpHint tells a hint that starts with helpHint's words.
func isHelpHint(hint string) bool {
	return strings.HasPrefix(hint, "run 'lore ") && strings.Contains(hint, " --help'")
}

// command is one row of the command table: all lore says about a command
// is here or in the help text the row names (written once, next to the
// command's code), and lore --help is generated from the table.
type command struct {
	name    string
	summary string // its line in lore --help
	help    string // lore <name> --help, before the flags; "" for a command that builds its own from its verbs
	run     func(ctx context.Context, e *env, args []string) error
}

// groupVerbs are the verbs of the commands that group them, in the order
// their help lists them.
var groupVerbs = map[string][]string{
	"journal":  {"revise", "abandon"},
	"patterns": {"validate", "deprecate"},
	"inbox":    {"promote", "dismiss"},
	"failures": {"triggers"},
	"hooks":    {"install", "uninstall", "status"},
	"mcp":      {"install", "uninstall", "status"},
}

// verbsOf is a group's summary: what it holds, then its verbs.
func verbsOf(what, group string) string { return what + ": " + strings.Join(groupVerbs[group], ", ") }

// commands in the order `lore --help` lists them.
func commands() []command {
	return []command{
		{"init", "create .lore/ at the repository root", initHelp, cmdInit},
		{"remember", "record a decision", rememberHelp, cmdRemember},
		{"learn", "record a pattern (or --anti pattern)", learnHelp, cmdLearn},
		{"fail", "record a failure", failHelp, cmdFail},
		{"handoff", "record where this session leaves off", handoffHelp, cmdHandoff},
		{"observe", "note an observation in the inbox", observeHelp, cmdObserve},
		{"capture", "record anything; the kind follows from the flags", captureHelp, cmdCapture},
		{"resume", "where the last session left off", resumeHelp, cmdResume},
		{"inject", "the records relevant to a prompt (hook mode: --stdin)", injectHelp, cmdInject},
		{"list", "list records, newest first", listHelp, cmdList},
		{"show", "show a record and its history", showHelp, cmdShow},
		{"search", "search records", searchHelp, cmdSearch},
		{"stale", "records whose anchored code changed, moved or vanished", staleHelp, cmdStale},
		{"anchor", "re-anchor a record to the code as it is now (--file: to other code)", anchorCmdHelp, cmdAnchor},
		{"journal", verbsOf("decisions", "journal"), "", cmdJournal},
		{"patterns", verbsOf("patterns", "patterns"), "", cmdPatterns},
		{"inbox", verbsOf("observations", "inbox"), "", cmdInbox},
		{"failures", verbsOf("failures", "failures"), "", cmdFailures},
		{"hooks", "wire lore into Claude Code, Codex, Gemini CLI or opencode", "", cmdHooks},
		{"mcp", "serve the memory to agents over MCP; install it into their config", mcpHelp, cmdMCP},
		{"export", "the memory as Markdown, for agents without hooks", exportHelp, cmdExport},
		{"status", "records not yet committed or pushed, by kind", statusHelp, cmdStatus},
		{"stats", "receipts: what lore injected, and what agents used", statsHelp, cmdStats},
		{"doctor", "check the store, and repair it with --fix", doctorHelp, cmdDoctor},
		{"index", "bring the index in .lore/.local up to date", indexHelp, cmdIndex},
		{"forget", "purge a record captured by mistake (--purge)", forgetHelp, cmdForget},
		{"trust", "let hooks inject this repository's memory (--revoke, --list)", trustHelp, cmdTrust},
		{"version", "print the version", versionHelp, cmdVersion},
	}
}

// mainHelp is lore --help: the commands, the global flags and the exit
// codes come from their tables.
const mainHelp = `lore: a memory for coding agents that lives in the repository.

Usage:
  lore [--dir DIR] <command> [flags] [args]

Commands:
%s
Global flags:
%s
Run 'lore <command> --help' for a command's flags.

Exit codes:
%s`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// lore runs for milliseconds: collecting garbage costs more than it
	// frees. The limit is the peak of a cold index build, whose live heap
	// at 100k records peaks at 80 MB (at 128 MB: 0.9-1.3 s and 134 MB;
	// at 256 MB: 1.2 s and 268 MB).
	gcpolicy.Start(128 << 20)
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "."
	}
	// A write to a stdout nobody reads any more fails (EPIPE) rather than
	// kill lore by SIGPIPE: a capture piped into a reader that had left
	// (lore remember … | true) died silently with its record saved, and a
	// script under pipefail recorded it again.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	out := &outputWriter{w: stdout}
	e := &env{stdin: stdin, stdout: out, stderr: stderr, getenv: os.Getenv, cwd: cwd, argv0: os.Args[0]}
	code := e.main(args)
	if code == exitOK && out.err != nil && !e.hook {
		if e.recorded != "" {
			// The record is saved: an agent that retried would make it twice.
			return e.fail(&cliError{code: exitFailure, msg: fmt.Sprintf("recorded %s, but could not print its ID: %v", e.recorded, out.err),
				hint: "the record is saved: do not record it again (lore show " + e.recorded + ")"})
		}
		if errors.Is(out.err, syscall.EPIPE) {
			return exitBrokenPipe // lore list | head: silent, as a process killed by SIGPIPE
		}
		return e.fail(out.err)
	}
	return code
}

// outputWriter keeps the first error of a write to stdout: a command whose
// output went to a full disk (lore resume > ctx.md) must not report
// success. A closed pipe ends lore by SIGPIPE before an error comes back,
// as it ends any program (lore list | head).
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	o.err = err
	return n, err
}

func (e *env) main(args []string) int {
	// Global flags come before the command.
	fs := globalFlags()
	if err := fs.Parse(args); err != nil {
		return e.fail(flagError(fs, err))
	}
	switch {
	case fs.Lookup("help").Changed:
		e.printMainHelp(e.stdout)
		return exitOK
	case fs.Lookup("version").Changed:
		fmt.Fprintln(e.stdout, "lore", version())
		return exitOK
	}
	if err := e.setDir(fs); err != nil {
		return e.fail(err)
	}
	args = fs.Args()
	if len(args) == 0 { // a usage error: the help goes where errors go
		e.printMainHelp(e.stderr)
		return exitUsage
	}
	name := args[0]
	if name == "help" {
		if len(args) > 1 { // lore help journal revise is lore journal revise --help
			return e.main(append(slices.Clone(args[1:]), "--help"))
		}
		e.printMainHelp(e.stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			err := c.run(context.Background(), e, args[1:])
			e.reportRedactions()
			return e.fail(err)
		}
	}
	hint := helpHint("") + " for the commands"
	if groups := groupsWithVerb(name); len(groups) > 0 {
		hint = "did you mean 'lore " + strings.Join(groups, " "+name+"' or 'lore ") + " " + name + "'?"
	} else if s := spell.Closest(name, commandNames(), 2); s != "" {
		hint = fmt.Sprintf("did you mean 'lore %s'?", s)
	}
	return e.fail(usageError(hint, "unknown command %q", name))
}

// groupsWithVerb are the commands that have verb, in help order: lore
// abandon is most likely lore journal abandon.
func groupsWithVerb(verb string) []string {
	var out []string
	for _, c := range commands() {
		if slices.Contains(groupVerbs[c.name], verb) {
			out = append(out, c.name)
		}
	}
	return out
}

func (e *env) printMainHelp(w io.Writer) {
	var cmds, codes strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&cmds, "  %-10s %s\n", c.name, c.summary)
	}
	for _, c := range exitCodes {
		fmt.Fprintf(&codes, "  %3d  %s\n", c.code, c.meaning)
	}
	fmt.Fprintf(w, mainHelp, cmds.String(), globalFlags().FlagUsages(), codes.String())
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// What starts an error's line and its hint's, on stderr (and in MCP tool
// errors, which carry them).
const (
	errorPrefix = "lore: error: "
	hintPrefix  = "lore: hint: "
	// A warning, and a write's redactions: lore mcp passes these lines on
	// to the agent with the result of a capture (notices).
	warningPrefix  = "lore: warning: "
	redactedPrefix = "lore: redacted before writing: "
	// A capture that repeats a record this checkout just wrote.
	alreadyPrefix = "lore: already recorded as "
)

// fail prints err as `lore: error: …` (and a hint) and maps it to an exit code.
func (e *env) fail(err error) int {
	if err == nil || err == errHelpShown {
		return exitOK
	}
	if errors.Is(err, syscall.EPIPE) && e.recorded == "" {
		// A command that returned stdout's write error (a JSON encoder,
		// an export): its reader went away, as for lore list | head.
		return exitBrokenPipe
	}
	if lo := e.leftOutStore(err); lo != nil {
		err = lo // no store here, and the repository's is left out of this checkout
	}
	code, hint := exitFailure, ""
	var ce *cliError
	var nf *store.NotFoundError
	var amb *store.AmbiguousError
	var wk *store.WrongKindError
	var newer *record.ErrNewerFormat
	switch {
	case errors.As(err, &ce):
		code, hint = ce.code, ce.hint
	case errors.As(err, new(*store.GitDirError)):
		code = exitNoStore // the error says where to run lore
	case errors.Is(err, store.ErrNoStore):
		code, hint = exitNoStore, "run 'lore init' at the repository root, or point LORE_DIR or --dir at a store"
	case errors.As(err, &nf):
		code, hint = exitNotFound, "run 'lore list' to see record IDs"
	case errors.As(err, &amb):
		code, hint = exitNotFound, "type more characters of the ID"
	case errors.As(err, &wk):
		code = exitUsage
	case errors.Is(err, record.ErrEmptyText), errors.Is(err, store.ErrAllPrivate), errors.As(err, new(*store.TooLargeError)):
		code = exitUsage
	case errors.As(err, &newer):
		hint = "upgrade lore: go install the latest version"
	}
	msg := strings.TrimSuffix(strings.ReplaceAll(err.Error(), "\n", " "), ".")
	fmt.Fprintln(e.stderr, errorPrefix+termSafe(msg))
	if hint != "" {
		fmt.Fprintln(e.stderr, hintPrefix+hint)
	}
	return code
}

func (e *env) warn(format string, args ...any) {
	fmt.Fprintln(e.stderr, warningPrefix+lineSafe(fmt.Sprintf(format, args...)))
}

// storeDir is where the store is: --dir, then $LORE_DIR, then .lore found
// from the working directory.
func (e *env) storeDir() (string, error) {
	dir := e.dir
	if dir == "" {
		dir = e.getenv("LORE_DIR")
	}
	if dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(e.cwd, dir)
		}
		return dir, nil
	}
	return store.FindStore(e.cwd, e.getenv)
}

// openStore finds and opens the store.
func (e *env) openStore() (*store.Store, error) {
	dir, err := e.storeDir()
	if err != nil {
		return nil, err
	}
	s, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	// Read-modify-write verbs find a record's shards through the index.
	s.Finder = index.Finder(context.Background(), s, indexOptions)
	s.Now = e.now
	s.Getenv = e.getenv
	e.store = s
	return s, nil
}

// indexOptions is how commands read the index.
var indexOptions = index.SnapshotOptions{Tokenizer: inject.Tokenizer()}

// reportRedactions says on stderr what was scrubbed or replaced before
// writing.
func (e *env) reportRedactions() {
	if e.store != nil && e.store.NotUTF8 {
		e.warn("the text was not UTF-8: lore stored each byte that was not as U+FFFD, the replacement character")
	}
	if e.store == nil || len(e.store.Redacted) == 0 {
		return
	}
	var parts []string
	for _, f := range e.store.Redacted {
		parts = append(parts, f.Kind+" in "+f.Field)
	}
	fmt.Fprintf(e.stderr, redactedPrefix+"%s\n", strings.Join(parts, ", "))
}

// load opens the store and reads the given kinds, reporting warnings.
func (e *env) load(kinds ...record.Kind) (*store.Store, *store.Set, error) {
	s, err := e.openStore()
	if err != nil {
		return nil, nil, err
	}
	set, err := s.Load(kinds...)
	if err != nil {
		return nil, nil, err
	}
	e.reportWarnings(set.Warnings)
	return s, set, nil
}

// openingIndex lets one command of a process open the index at a time:
// lore mcp runs tool calls at once, and after a purge or on a fresh clone
// each of a burst of calls built the whole index in the one process (run
// 30: 8 searches at 100k records took 9.57 s and 1,300 MB, against 1.62 s
// and 150 MB one at a time). The next one finds the index built.
var openingIndex sync.Mutex

// snapshot opens the store and reads the current records through the
// index, and reports warnings.
func (e *env) snapshot(ctx context.Context) (*store.Store, *index.Snapshot, error) {
	s, err := e.openStore()
	if err != nil {
		return nil, nil, err
	}
	snap, err := e.snapshotOf(ctx, s)
	return s, snap, err
}

// snapshotOf reads the open store's current records through the index,
// and reports warnings.
func (e *env) snapshotOf(ctx context.Context, s *store.Store) (*index.Snapshot, error) {
	openingIndex.Lock()
	snap, err := index.Open(ctx, s, indexOptions)
	openingIndex.Unlock()
	if err != nil {
		return nil, err
	}
	e.reportWarnings(snap.Warnings)
	return snap, nil
}

// loadRecord reads every version in the store and resolves ref (an ID or
// unique prefix) to a record ID.
func (e *env) loadRecord(ref string) (*store.Set, string, error) {
	_, set, err := e.load()
	if err != nil {
		return nil, "", err
	}
	id, err := set.Resolve(ref)
	return set, id, err
}

const maxWarnings = 10

func (e *env) reportWarnings(ws []record.Warning) {
	for i, w := range ws {
		if i == maxWarnings {
			e.warn("%d more problems; run 'lore doctor' for all of them", len(ws)-maxWarnings)
			return
		}
		e.warn("%s", termSafe(w.String()))
	}
}
