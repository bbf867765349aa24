package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"lore/gitrepo"
	"lore/hooks"
	"lore/store"
	"lore/trust"
)

// What each hooks verb does, written once: a verb's --help shows its own,
// lore hooks --help all three after the usage lines.
const (
	hooksInstallAbout = `install wires lore into an agent's hooks: on every prompt the agent runs
'lore inject --stdin' and gets the relevant records; at session start (and
after a compaction) it gets the resume view. Default: Claude Code, project
scope (.claude/settings.json at the repository root; user scope is
~/.claude/settings.json). Codex CLI uses .codex/hooks.json (user scope:
$CODEX_HOME/hooks.json), Gemini CLI .gemini/settings.json. opencode has no
command hooks: lore writes its plugin, .opencode/plugins/lore.js (user scope:
~/.config/opencode/plugins/lore.js), and replaces it when lore's plugin
changes. Every other setting and hook in the file is kept; installing twice
changes nothing; a malformed file, or a lore.js that is not lore's, is
refused untouched.

The hook runs lore by the absolute path you ran install with (a link on
PATH stays a link, so it outlives an upgrade), so it works when the agent
starts hooks with a minimal PATH; at project scope it adds --host-trusted
(a repository's own hooks need no trust of lore's: see lore trust --help).
Teams that commit settings.json and have lore on everyone's PATH can pass
--command 'lore inject --stdin --host-trusted' instead (without the flag,
each teammate's hook injects only once they run lore trust).`

	hooksUninstallAbout = `uninstall removes lore's hooks, and the groups and events they leave
empty, from the settings of every agent at both scopes, or of the agent
and scope --agent and --scope name (opencode: deletes lore's plugin).
Every other setting and hook stays; a file without lore's hooks is left
as it is. A file lore cannot change (one that does not parse, a lore.js
that is not lore's) is left untouched: the others are still done, then
each such file is named and lore exits 1.`

	hooksStatusAbout = `status shows, for every agent at both scopes, or the agent and scope
--agent and --scope name, whether lore's hook is installed for each event
and the command it runs. An installed hook that will not run says why: its
binary no longer exists (run install again after moving it), Codex has not
trusted it, a setting turns the agent's hooks off (Claude Code's
"disableAllHooks", Gemini CLI's "hooksConfig"; status names the file), or
opencode's plugin is older than this lore. A hook that runs but injects
nothing in this repository, whose memory is not on your trust list, says
that too (see lore trust --help). A file lore cannot read (not valid
JSON, say) is one BROKEN row naming its line; the others are still shown,
and status exits 0, as lore mcp status does.`
)

// hooksAbout is each verb's help text, in the order lore hooks --help
// shows them.
var hooksAbout = map[string]string{"install": hooksInstallAbout, "uninstall": hooksUninstallAbout, "status": hooksStatusAbout}

type hooksOptions struct {
	agent, scope, command string
	asJSON                bool
}

func cmdHooks(_ context.Context, e *env, args []string) error {
	verb := func(name, usage string) subcommand {
		return subcommand{usage, func(e *env, help string, args []string) error { return e.hooksVerb(name, help, args) }}
	}
	verbs := map[string]subcommand{
		"install":   verb("install", "lore hooks install   [--agent claude|codex|gemini|opencode] [--scope project|user] [--command CMD]"),
		"uninstall": verb("uninstall", "lore hooks uninstall [--agent …] [--scope …]"),
		"status":    verb("status", "lore hooks status    [--agent …] [--scope …] [--json]"),
	}
	var about []string
	for _, v := range groupVerbs["hooks"] {
		about = append(about, hooksAbout[v])
	}
	return e.dispatch("hooks", strings.Join(about, "\n\n"), verbs, args)
}

// hooksVerb runs one hooks verb: install, uninstall or status.
func (e *env) hooksVerb(verb, help string, args []string) error {
	var o hooksOptions
	fs := newFlags("hooks " + verb)
	// install writes one file; the other verbs see them all unless told.
	agentDefault, scopeDefault := "default: all", "default: both"
	if verb == "install" {
		agentDefault, scopeDefault = "default claude", "default project"
	}
	fs.StringVar(&o.agent, "agent", "", "claude, codex, gemini or opencode ("+agentDefault+")")
	fs.StringVar(&o.scope, "scope", "", "project or user ("+scopeDefault+")")
	switch verb {
	case "install":
		fs.StringVar(&o.command, "command", "", "the hook command to write (default: this binary's absolute path + inject --stdin)")
	case "status":
		fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	}
	if err := e.parse(fs, help+"\n\n"+hooksAbout[verb], args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("hooks"), "hooks %s takes no arguments", verb)
	}
	targets, err := e.hookTargets(fs, o, verb == "install")
	if err != nil {
		return err
	}
	switch verb {
	case "install":
		return e.installHooks(targets, o.command)
	case "uninstall":
		return e.uninstallHooks(targets)
	}
	return e.hooksStatus(targets, o.asJSON)
}

// uninstallHooks takes lore's hooks out of every target it can: a file it
// cannot edit (one that does not parse, someone else's lore.js) is left as
// it is, and the others are still done. Each failure is reported after
// them, the last as the command's error.
func (e *env) uninstallHooks(targets []hooks.Target) error {
	var failed []error
	for _, t := range targets {
		changed, err := hooks.Uninstall(t)
		if err != nil {
			failed = append(failed, err)
			continue
		}
		if changed {
			fmt.Fprintf(e.stderr, "lore: removed lore's hooks for %s from %s\n", t.Agent.Title, lineSafe(e.rel(t.Path)))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	for _, err := range failed[:len(failed)-1] {
		e.fail(err)
	}
	return failed[len(failed)-1]
}

// hookTargets are the settings files the flags name: for install one
// (defaults claude, project); otherwise every agent and scope not excluded.
func (e *env) hookTargets(fs *pflag.FlagSet, o hooksOptions, one bool) ([]hooks.Target, error) {
	agents := hooks.Agents()
	if o.agent != "" || one {
		name := o.agent
		if name == "" {
			name = "claude"
		}
		a, err := hooks.FindAgent(name)
		if err != nil {
			return nil, usageError("", "hooks: %v", err)
		}
		agents = []hooks.Agent{a}
	}
	scopes, err := chooseScopes("hooks", o.scope, one)
	if err != nil {
		return nil, err
	}
	root, _ := gitrepo.RepoRoot(e.cwd, e.getenv)
	dirs := e.userDirs()
	self, _ := e.selfPath()
	var out []hooks.Target
	for _, a := range agents {
		for _, s := range scopes {
			t, err := hooks.NewTarget(a, s, root, dirs)
			if err != nil {
				if one {
					return nil, err
				}
				continue // status: skip what does not apply here
			}
			t.Self = self
			out = append(out, t)
		}
	}
	return out, nil
}

// chooseScopes resolves --scope: the one given, or project when one scope
// is wanted (install; mcp uninstall), else both (status; hooks uninstall).
func chooseScopes(cmd, scope string, one bool) ([]string, error) {
	if scope == "" && !one {
		return []string{"project", "user"}, nil
	}
	if scope == "" {
		scope = "project"
	}
	if scope != "project" && scope != "user" {
		return nil, usageError("", "%s: unknown scope %q (want project or user)", cmd, scope)
	}
	return []string{scope}, nil
}

// home is the user's home directory, from the command's environment.
func (e *env) home() string {
	if h := e.getenv("HOME"); h != "" {
		return h
	}
	return e.getenv("USERPROFILE")
}

func (e *env) installHooks(targets []hooks.Target, given string) error {
	e.warnStoreNotPassed("the hooks", "pass --command with --dir in it")
	for _, t := range targets {
		command := given
		if command != "" && !t.Runs(command) {
			return usageError("give the whole command, as --command 'lore inject --stdin' or --command '/path/to/lore inject --stdin'",
				"hooks install: --command %q does not run lore inject --stdin: status and uninstall would not know the hooks as lore's", command)
		}
		if command == "" {
			bin, err := e.selfBinary()
			if err != nil {
				return err
			}
			if err := expandedPath(t.Agent.Title, t.Agent.Expands, bin); err != nil {
				return err
			}
			command = hooks.Command(bin, t.Scope)
		}
		changed, err := hooks.Install(t, command)
		if err != nil {
			return err
		}
		var events []string
		for _, ev := range t.Agent.Events {
			events = append(events, ev.Name)
		}
		if changed {
			fmt.Fprintf(e.stderr, "lore: installed lore's hooks for %s in %s (%s): %s\n", t.Agent.Title, lineSafe(e.rel(t.Path)), strings.Join(events, ", "), lineSafe(command))
		} else {
			fmt.Fprintf(e.stderr, "lore: the hooks for %s are already in %s\n", t.Agent.Title, lineSafe(e.rel(t.Path)))
		}
		for _, note := range e.hookNotes(t) {
			fmt.Fprintf(e.stderr, "lore: note: %s\n", note)
		}
	}
	return nil
}

// hookNotes is what the user still has to do before the host runs the
// hooks just installed at t: the host's own trust steps, or lore's hooks
// at the other scope too, which run lore twice for every event.
func (e *env) hookNotes(t hooks.Target) []string {
	var notes []string
	if t.Agent.Note != "" {
		notes = append(notes, t.Agent.Note)
	}
	if st, err := hooks.Status(t); err == nil {
		for _, ev := range st {
			if ev.Problem != "" && !slices.Contains(notes, ev.Problem) {
				notes = append(notes, ev.Problem)
			}
		}
	}
	other := map[string]string{"project": "user", "user": "project"}[t.Scope]
	root, _ := gitrepo.RepoRoot(e.cwd, e.getenv)
	if o, err := hooks.NewTarget(t.Agent, other, root, e.userDirs()); err == nil {
		if st, err := hooks.Status(o); err == nil && slices.ContainsFunc(st, func(ev hooks.EventStatus) bool { return ev.Installed }) {
			notes = append(notes, fmt.Sprintf("lore's hooks are also in %s: %s runs both for every event (lore answers once); remove one with 'lore hooks uninstall --agent %s --scope %s'", o.Path, t.Agent.Title, t.Agent.Name, other))
		}
	}
	return notes
}

// warnStoreNotPassed says that a store named by --dir or LORE_DIR is not
// the one what install writes will read: hooks and servers find the store
// from the session's directory, as lore does with neither.
func (e *env) warnStoreNotPassed(what, remedy string) {
	name := "--dir"
	if e.dir == "" {
		if e.getenv("LORE_DIR") == "" {
			return
		}
		name = "LORE_DIR"
	}
	e.warn("%s is not written into %s: lore finds the store from the agent's session directory there (to use another store, %s)", name, what, remedy)
}

// userDirs are where hosts keep user-scope settings, from the command's
// environment.
func (e *env) userDirs() hooks.UserDirs {
	return hooks.UserDirs{Home: e.home(), CodexHome: e.getenv("CODEX_HOME"), XDGConfig: e.getenv("XDG_CONFIG_HOME")}
}

func (e *env) hooksStatus(targets []hooks.Target, asJSON bool) error {
	type row struct {
		Agent  string              `json:"agent"`
		Scope  string              `json:"scope"`
		File   string              `json:"file"`
		Events []hooks.EventStatus `json:"events"`
		// Problem is what keeps lore's hooks from being installed in File,
		// or, Broken, from reading it.
		Problem string `json:"problem,omitempty"`
		// Broken: File cannot be read (it does not parse, say), so what
		// it wires is not known; the other files are still reported.
		Broken bool `json:"broken,omitempty"`
	}
	var rows []row
	for _, t := range targets {
		st, err := hooks.Status(t)
		if err != nil {
			// A broken row, as lore mcp status has: it exits 0 too.
			rows = append(rows, row{t.Agent.Name, t.Scope, t.Path, []hooks.EventStatus{}, fileProblem(t.Path, err), true})
			continue
		}
		rows = append(rows, row{t.Agent.Name, t.Scope, t.Path, st, t.HostDirProblem(), false})
	}
	if asJSON {
		return e.printJSON(rows)
	}
	// A hook that runs another lore binary is told from this one by path.
	self := ""
	if p, err := e.selfPath(); err == nil {
		self = ", " + p
	}
	// A hook without --host-trusted injects only a store the user trusted.
	untrusted := false
	if dir, err := e.storeDir(); err == nil && store.Check(dir) == nil {
		untrusted = !trust.Trusted(e.getenv, dir)
	}
	// The agent column fits every agent, the event column each agent's own
	// events (opencode's plugin hooks would widen every other row), a
	// broken file's row too.
	var others []string // the other lore binaries hooks run
	agentW, eventW := 0, map[string]int{}
	for _, r := range rows {
		agentW = max(agentW, len(r.Agent))
		a, _ := hooks.FindAgent(r.Agent)
		for _, ev := range a.Events {
			eventW[r.Agent] = max(eventW[r.Agent], len(ev.Name))
		}
	}
	for _, r := range rows {
		if r.Broken {
			fmt.Fprintf(e.stdout, "%-*s %-8s %-*s %s  (%s)\n", agentW, r.Agent, r.Scope, eventW[r.Agent], "-", "BROKEN, the file cannot be read: "+lineSafe(r.Problem), e.rel(r.File))
			continue
		}
		// Some events wired and not others: an older lore's install, which
		// had fewer events, or a hand edit.
		partial := slices.ContainsFunc(r.Events, func(ev hooks.EventStatus) bool { return ev.Installed })
		for _, ev := range r.Events {
			state := "not installed"
			switch {
			case !ev.Installed && r.Problem != "":
				state = "not installed, " + r.Problem
			case !ev.Installed && partial:
				state = "not installed, though lore's other hooks here are: run 'lore hooks install' to add it"
			case ev.Installed && ev.Problem != "":
				state = "installed, NOT RUNNING: " + ev.Problem
			case ev.Installed && !ev.HostTrusted && untrusted:
				state = "installed, INJECTS NOTHING HERE: this repository's memory is not on your trust list; run 'lore trust' once you have read it"
				if r.Scope == "project" {
					// An older lore wrote project hooks without the flag;
					// a team's --command may lack it too.
					state += ", or 'lore hooks install' to have the hook pass --host-trusted (with --command, add it yourself)"
				}
			case ev.Installed && ev.BinaryOK && ev.Other:
				state = "installed: " + ev.Command + " (another lore)"
				if !slices.Contains(others, ev.Binary) {
					others = append(others, ev.Binary)
				}
			case ev.Installed && ev.BinaryOK:
				state = "installed: " + ev.Command
			case ev.Installed:
				state = "BROKEN, " + ev.Binary + " no longer exists: run 'lore hooks install' again"
			}
			fmt.Fprintf(e.stdout, "%-*s %-8s %-*s %s  (%s)\n", agentW, r.Agent, r.Scope, eventW[r.Agent], ev.Event, state, e.rel(r.File))
		}
	}
	// Said once for each, not on every event's row.
	for _, bin := range others {
		fmt.Fprintf(e.stdout, "note: %s is another lore than this one%s, perhaps another version: '%s doctor' tells whether it reads this store\n", bin, self, bin)
	}
	return nil
}

// rel shows path relative to the working directory when it is below it.
func (e *env) rel(path string) string {
	if r, err := filepath.Rel(e.cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
