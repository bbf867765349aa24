package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"lore/index"
	"lore/inject"
	"lore/record"
	"lore/store"
)

// Exit codes: the one table, also in README.md and `lore --help`.
const (
	exitOK       = 0 // success
	exitFailure  = 1 // the command ran and failed: I/O, a malformed config, doctor found problems
	exitUsage    = 2 // bad command, flag or argument; nothing was written
	exitNoStore  = 3 // no .lore store found (run lore init)
	exitNotFound = 4 // no record matches the ID, or the prefix is ambiguous
)

const exitCodesHelp = `Exit codes:
  0  success
  1  the command failed (I/O, malformed config, newer store format, doctor found problems)
  2  usage: bad command, flag or argument; nothing was written
  3  no .lore store found
  4  no record matches the ID, or the prefix is ambiguous`

// env is what a command may touch: its streams, environment and directory.
// Commands never use the process globals directly.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	cwd            string
	dir            string       // --dir, if given
	store          *store.Store // the store the command opened, if any
	// collect, when set, receives what a command would print with --json
	// while it prints its text: lore mcp answers with both from one run.
	collect func(v any)
	// now, when set, is the clock of the stores it opens (tests pin it).
	now func() time.Time
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

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// commands in the order `lore --help` lists them.
func commands() []command {
	return []command{
		{"init", "create .lore/ at the repository root", cmdInit},
		{"remember", "record a decision", cmdRemember},
		{"learn", "record a pattern (or --anti pattern)", cmdLearn},
		{"fail", "record a failure", cmdFail},
		{"handoff", "record where this session leaves off", cmdHandoff},
		{"observe", "note an observation in the inbox", cmdObserve},
		{"capture", "record anything; the kind follows from the flags", cmdCapture},
		{"resume", "where the last session left off", cmdResume},
		{"inject", "the records relevant to a prompt (hook mode: --stdin)", cmdInject},
		{"list", "list records, newest first", cmdList},
		{"show", "show a record and its history", cmdShow},
		{"search", "search records", cmdSearch},
		{"journal", "decisions: revise, abandon", cmdJournal},
		{"patterns", "patterns: validate, deprecate", cmdPatterns},
		{"inbox", "observations: promote, dismiss", cmdInbox},
		{"failures", "failures: triggers", cmdFailures},
		{"hooks", "wire lore into Claude Code, Codex or Gemini CLI", cmdHooks},
		{"mcp", "serve the memory to agents over MCP; install it into their config", cmdMCP},
		{"export", "the memory as Markdown, for agents without hooks", cmdExport},
		{"status", "records not yet committed or pushed, by kind", cmdStatus},
		{"stats", "receipts: what lore injected, and what agents used", cmdStats},
		{"doctor", "check the store, and repair it with --fix", cmdDoctor},
		{"forget", "purge a record captured by mistake (--purge)", cmdForget},
		{"trust", "let hooks inject this repository's memory (--revoke, --list)", cmdTrust},
		{"version", "print the version", cmdVersion},
	}
}

const mainHelp = `lore: a memory for coding agents that lives in the repository.

Usage:
  lore [--dir DIR] <command> [flags] [args]

Commands:
%s
Global flags:
      --dir DIR   use the store at DIR (default: .lore at the repository root; or $LORE_DIR)
  -h, --help      help for lore or a command
      --version   print the version

Run 'lore <command> --help' for a command's flags.

%s
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// lore runs for milliseconds: collecting garbage costs more than it
	// frees. The memory limit turns the collector back on if a huge store
	// needs it.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "."
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, cwd: cwd}
	return e.main(args)
}

func (e *env) main(args []string) int {
	// Global flags come before the command.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch a := args[0]; {
		case a == "-h" || a == "--help":
			e.printMainHelp()
			return exitOK
		case a == "--version" || a == "-v":
			fmt.Fprintln(e.stdout, "lore", version())
			return exitOK
		case a == "--dir" && len(args) > 1:
			e.dir, args = args[1], args[2:]
			continue
		case strings.HasPrefix(a, "--dir="):
			e.dir = strings.TrimPrefix(a, "--dir=")
		default:
			return e.fail(usageError("run 'lore --help' for the global flags", "unknown flag %s", a))
		}
		args = args[1:]
	}
	if len(args) == 0 {
		e.printMainHelp()
		return exitUsage
	}
	name := args[0]
	if name == "help" {
		if len(args) > 1 {
			return e.main([]string{args[1], "--help"})
		}
		e.printMainHelp()
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			err := c.run(context.Background(), e, args[1:])
			e.reportRedactions()
			return e.fail(err)
		}
	}
	hint := "run 'lore --help' for the commands"
	if s := closest(name, commandNames()); s != "" {
		hint = fmt.Sprintf("did you mean 'lore %s'?", s)
	}
	return e.fail(usageError(hint, "unknown command %q", name))
}

func (e *env) printMainHelp() {
	var b strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(e.stdout, mainHelp, b.String(), exitCodesHelp)
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// fail prints err as `lore: error: …` (and a hint) and maps it to an exit code.
func (e *env) fail(err error) int {
	if err == nil || err == errHelpShown {
		return exitOK
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
	case errors.Is(err, store.ErrNoStore):
		code, hint = exitNoStore, "run 'lore init' at the repository root, or point LORE_DIR or --dir at a store"
	case errors.As(err, &nf):
		code, hint = exitNotFound, "run 'lore list' to see record IDs"
	case errors.As(err, &amb):
		code, hint = exitNotFound, "type more characters of the ID"
	case errors.As(err, &wk):
		code = exitUsage
	case errors.Is(err, record.ErrEmptyText), errors.Is(err, store.ErrAllPrivate):
		code = exitUsage
	case errors.As(err, &newer):
		hint = "upgrade lore: go install the latest version"
	}
	msg := strings.TrimSuffix(strings.ReplaceAll(err.Error(), "\n", " "), ".")
	fmt.Fprintf(e.stderr, "lore: error: %s\n", msg)
	if hint != "" {
		fmt.Fprintf(e.stderr, "lore: hint: %s\n", hint)
	}
	return code
}

func (e *env) warn(format string, args ...any) {
	fmt.Fprintf(e.stderr, "lore: warning: "+format+"\n", args...)
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
	return store.FindStore(e.cwd)
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
	e.store = s
	return s, nil
}

// indexOptions is how commands read the index.
var indexOptions = index.SnapshotOptions{Tokenizer: inject.Tokenizer()}

// reportRedactions says on stderr what was scrubbed before writing.
func (e *env) reportRedactions() {
	if e.store == nil || len(e.store.Redacted) == 0 {
		return
	}
	var parts []string
	for _, f := range e.store.Redacted {
		parts = append(parts, f.Kind+" in "+f.Field)
	}
	fmt.Fprintf(e.stderr, "lore: redacted before writing: %s\n", strings.Join(parts, ", "))
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
	snap, err := index.Open(ctx, s, indexOptions)
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

// newFlags makes a command's flag set: errors are returned, not printed,
// and --help shows the command's help text.
func newFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.Usage = func() {}
	return fs
}

// parse parses args, handling --help (printed, then errHelpShown) and
// turning flag errors into usage errors with a "did you mean".
func (e *env) parse(fs *pflag.FlagSet, help string, args []string) error {
	var dir string
	if fs.Lookup("dir") == nil {
		fs.StringVar(&dir, "dir", "", "use the store at `DIR`")
	}
	if fs.Lookup("help") == nil {
		fs.BoolP("help", "h", false, "show this help")
	}
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) || (err == nil && fs.Lookup("help").Changed) {
		fmt.Fprintf(e.stdout, "%s\nFlags:\n%s", strings.TrimSpace(help)+"\n", fs.FlagUsages())
		return errHelpShown
	}
	if err != nil {
		hint := fmt.Sprintf("run 'lore %s --help' for its flags", fs.Name())
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
			var names []string
			fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
			if s := closest(name, names); s != "" {
				hint = fmt.Sprintf("did you mean --%s?", s)
			}
		}
		return usageError(hint, "%s: %s", fs.Name(), msg)
	}
	if dir != "" {
		e.dir = dir
	}
	return nil
}

// errHelpShown ends a command after --help, with exit 0.
var errHelpShown = &cliError{code: exitOK}

func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if (v == "" || v == "(devel)") && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		return "devel " + rev + dirty
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}

func cmdVersion(_ context.Context, e *env, args []string) error {
	fs := newFlags("version")
	if err := e.parse(fs, "Usage: lore version\n\nPrint lore's version.", args); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "lore", version())
	return nil
}

// closest returns the candidate within edit distance 2 of s, if any.
func closest(s string, cands []string) string {
	best, bestD := "", 3
	sort.Strings(cands)
	for _, c := range cands {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
