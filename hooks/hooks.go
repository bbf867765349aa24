// Package hooks owns wiring lore into agent hosts: which settings file each
// host (Claude Code, Codex CLI, Gemini CLI) reads command hooks from and in
// what shape, or which plugin file it loads (opencode), and installing,
// removing and reporting lore's entries there without disturbing anything
// else in those files.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Agent is a host lore can hook into.
type Agent struct {
	Name        string // as given to --agent
	Title       string
	ProjectFile string // relative to the repository root
	UserFile    string // relative to the home directory
	Events      []Event
	// Timeout is the hook's time limit in the host's unit: Claude Code and
	// Codex take seconds, Gemini CLI milliseconds.
	Timeout int
	// Named hosts show a hook's "name" in their UI.
	Named bool
	// Plugin hosts load lore's plugin file (opencode) instead of reading
	// command hooks from a settings file; Events name the plugin's hooks.
	Plugin bool
	// Comments: the host allows comments in its settings file (Gemini
	// CLI; see jsonc.go), which lore reads and keeps.
	Comments bool
	// Expands is the variable syntax the host replaces in its settings'
	// strings before it runs them (see Expanded).
	Expands VarSyntax
	Note    string // what the user still has to do, if anything
}

// Event is a hook event and the matcher lore registers it with.
type Event struct {
	Name    string
	Matcher string // "" for none (the event fires every time)
}

// Agents lists the supported hosts. The settings shapes follow each host's
// published hook reference:
//   - Claude Code, hooks reference: settings.json "hooks" → event → [{matcher,
//     hooks: [{type: "command", command, timeout (seconds)}]}]; SessionStart's
//     matcher is tested against its source (startup|resume|clear|compact).
//     Stop's matcher is ignored; SessionEnd's is tested against its reason,
//     and its hooks share a 1.5 s budget unless a hook sets a timeout
//     (checked in the 2.1.330 binary), so lore's sets one.
//   - Codex CLI (checked in the 0.169.0 binary and codex-rs/hooks): the same
//     shape in .codex/hooks.json, or $CODEX_HOME/hooks.json; SessionStart
//     sources are startup|resume|clear|compact. Hooks are on by default;
//     Codex runs a project's hooks only in a trusted project, and each
//     handler only once the user trusted it (see codex_trust.go).
//   - Gemini CLI (checked in the 0.61.0 bundle): the same shape in
//     settings.json, with BeforeAgent for prompts and timeout in
//     milliseconds; SessionStart's matcher is compared as a whole string, so
//     lore's has none. Project hooks run only in folders the user trusted.
//   - opencode (checked in the 1.18.33 binary): no command hooks; it loads
//     every {plugin,plugins}/*.js of .opencode/ and ~/.config/opencode/, and
//     lore's plugin (opencode.go) calls lore with Claude Code's JSON.
func Agents() []Agent {
	return []Agent{
		{Name: "claude", Title: "Claude Code", ProjectFile: ".claude/settings.json", UserFile: ".claude/settings.json",
			Events: []Event{{"UserPromptSubmit", ""}, {"SessionStart", "startup|resume|clear|compact"}, {"Stop", ""}, {"SessionEnd", ""}}, Timeout: 10},
		{Name: "codex", Title: "Codex CLI", ProjectFile: ".codex/hooks.json", UserFile: ".codex/hooks.json",
			Events: []Event{{"UserPromptSubmit", ""}, {"SessionStart", "startup|resume|clear|compact"}, {"Stop", ""}}, Timeout: 10},
		{Name: "gemini", Title: "Gemini CLI", ProjectFile: ".gemini/settings.json", UserFile: ".gemini/settings.json",
			Events: []Event{{"BeforeAgent", ""}, {"SessionStart", ""}, {"AfterAgent", ""}}, Timeout: 10000, Named: true, Comments: true, Expands: DollarVars,
			Note: "Gemini CLI runs hooks only in folders you trust: trust this one when gemini asks (headless 'gemini -p' stops in an untrusted folder)"},
		{Name: "opencode", Title: "opencode", ProjectFile: ".opencode/plugins/lore.js", UserFile: ".config/opencode/plugins/lore.js",
			Events: []Event{{"chat.message", ""}, {"experimental.chat.system.transform", ""}, {"experimental.session.compacting", ""}, {"session.status", ""}}, Plugin: true},
	}
}

// FindAgent returns the agent called name.
func FindAgent(name string) (Agent, error) {
	var names []string
	for _, a := range Agents() {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return Agent{}, fmt.Errorf("unknown agent %q (want %s)", name, strings.Join(names, ", "))
}

// Target is one settings file: an agent at a scope.
type Target struct {
	Agent Agent
	Scope string // project or user
	Path  string
	// HostConfig is the file where the host records which hooks the user
	// trusted (Codex: $CODEX_HOME/config.toml), or "".
	HostConfig string
	// Switches are the host's settings files that can turn its hooks off,
	// lowest precedence first (see switches.go).
	Switches []string
	// HostDir is the directory the host's environment names for t, which
	// must exist and which lore does not create (Codex's $CODEX_HOME at
	// user scope), or "".
	HostDir string
	// Self is the path of the lore binary at work, or "": a hook that runs
	// it is lore's whatever the binary is called (installed as mem), so
	// install, status and uninstall find the hook it wrote.
	Self string
}

// UserDirs are where hosts keep user-scope settings, from the environment.
type UserDirs struct {
	Home      string // $HOME
	CodexHome string // $CODEX_HOME; "" means ~/.codex
	XDGConfig string // $XDG_CONFIG_HOME; "" means ~/.config
}

// NewTarget places agent's settings file for scope: under the repository
// root for project scope; for user scope where the host reads it (Codex:
// $CODEX_HOME, which install needs to exist, see HostDirProblem;
// opencode: $XDG_CONFIG_HOME/opencode), else below the home directory.
func NewTarget(a Agent, scope, repoRoot string, d UserDirs) (Target, error) {
	t, err := newTarget(a, scope, repoRoot, d)
	if err != nil {
		return t, err
	}
	t.Switches = switchFiles(a, repoRoot, d)
	if a.Name == "codex" {
		home := d.CodexHome
		if home == "" {
			home = filepath.Join(d.Home, ".codex")
		}
		t.HostConfig = filepath.Join(home, "config.toml")
	}
	return t, nil
}

func newTarget(a Agent, scope, repoRoot string, d UserDirs) (Target, error) {
	switch scope {
	case "project":
		if repoRoot == "" {
			return Target{}, errors.New("project scope needs a git repository; run inside one, or use --scope user")
		}
		return Target{Agent: a, Scope: scope, Path: filepath.Join(repoRoot, a.ProjectFile)}, nil
	case "user":
		switch {
		case a.Name == "codex" && d.CodexHome != "":
			return Target{Agent: a, Scope: scope, Path: filepath.Join(d.CodexHome, filepath.Base(a.UserFile)), HostDir: d.CodexHome}, nil
		case a.Name == "opencode" && d.XDGConfig != "":
			return Target{Agent: a, Scope: scope, Path: filepath.Join(d.XDGConfig, strings.TrimPrefix(a.UserFile, ".config/"))}, nil
		}
		if d.Home == "" {
			return Target{}, errors.New("user scope needs a home directory ($HOME is not set)")
		}
		return Target{Agent: a, Scope: scope, Path: filepath.Join(d.Home, a.UserFile)}, nil
	}
	return Target{}, fmt.Errorf("unknown scope %q (want project or user)", scope)
}

// HostDirProblem says why t's HostDir keeps lore's hooks from being
// installed there, or "": install refuses, status says so.
func (t Target) HostDirProblem() string {
	if t.HostDir == "" {
		return ""
	}
	if fi, err := os.Stat(t.HostDir); err == nil && fi.IsDir() {
		return ""
	}
	return fmt.Sprintf("CODEX_HOME=%s is not a directory: Codex reads its hooks from there; create it or unset CODEX_HOME", t.HostDir)
}

// loreName recognises lore's binary by its name, whatever follows "lore"
// after a separator (lore-dev, lore_v2, lore.exe): install writes the
// running binary's path, and a hook it wrote must be found again by
// status, install and uninstall wherever the binary is.
// This package's patterns compile on first use: every lore process,
// the prompt hook included, links the package, and few need them.
var loreName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^lore([-_.][\w.-]*)?$`) })

// injectArgs is what a hook command passes lore, after the binary.
var injectArgs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s+inject\s+--stdin\b`)
})

// Runs reports whether a hook command runs lore's hook: a program named
// lore (or lore-…) or t.Self, given inject --stdin. A command that only
// mentions lore (echo 'lore inject --stdin') is someone else's.
func (t Target) Runs(cmd string) bool {
	_, bin, rest := programOf(cmd)
	if bin == "" || !injectArgs().MatchString(rest) {
		return false
	}
	base := bin[strings.LastIndexAny(bin, `/\`)+1:]
	return loreName().MatchString(base) || t.Self != "" && (bin == t.Self || !strings.ContainsAny(bin, `/\`) && bin == filepath.Base(t.Self))
}

// Command is the hook command for binary at scope. A project-scope hook
// lives in the repository's own settings: wherever the agent runs them,
// the repository could run a hook of its own there and say anything, so it
// tells lore so (--host-trusted) and lore injects that repository's memory
// without its own trust list. (Codex and Gemini CLI run project settings
// only in folders the user trusted, Claude Code interactively too;
// claude -p and opencode anywhere.)
func Command(binary, scope string) string {
	binary = quoteProgram(binary)
	if scope == "project" {
		return binary + " inject --stdin --host-trusted"
	}
	return binary + " inject --stdin"
}

// Install adds lore's hook for each of the agent's events, or updates its
// command if lore's hook is already there. It reports whether the file
// changed; an unchanged file is not rewritten.
func Install(t Target, command string) (bool, error) {
	if p := t.HostDirProblem(); p != "" {
		return false, errors.New(p)
	}
	if t.Agent.Plugin {
		return installPlugin(t, command)
	}
	return t.edit(func(hooks *object) (bool, error) {
		changed := false
		for _, ev := range t.Agent.Events {
			c, err := t.installEvent(hooks, ev, command)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		return changed, nil
	}, true)
}

// Uninstall removes lore's hooks, and the groups and events they leave
// empty; everything else stays.
func Uninstall(t Target) (bool, error) {
	if _, err := os.Stat(t.Path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if t.Agent.Plugin {
		return uninstallPlugin(t)
	}
	return t.edit(func(hooks *object) (bool, error) {
		changed := false
		for _, name := range append([]string(nil), hooks.keys...) {
			groups, err := eventGroups(hooks, name)
			if err != nil {
				return false, err
			}
			var kept []json.RawMessage
			for _, g := range groups {
				ng, removed, err := t.withoutLore(g)
				if err != nil {
					return false, err
				}
				changed = changed || removed
				if ng != nil {
					kept = append(kept, ng)
				}
			}
			if len(kept) == 0 && len(groups) > 0 {
				hooks.del(name)
			} else if changed {
				hooks.set(name, mustJSON(kept))
			}
		}
		return changed, nil
	}, false)
}

// EventStatus is what is wired for one event.
type EventStatus struct {
	Event     string `json:"event"`
	Installed bool   `json:"installed"`
	Command   string `json:"command,omitempty"`
	Binary    string `json:"binary,omitempty"`
	BinaryOK  bool   `json:"binary_ok"`
	// Other: Binary is another lore than the one asking (Target.Self),
	// which may be another build: one that cannot read this store leaves
	// the hook silent, where the asking lore reads it well.
	Other bool `json:"other_lore,omitempty"`
	// Problem is what keeps an installed hook from running, if anything
	// lore can see: an outdated plugin, a hook the host has not trusted,
	// a host setting that turns hooks off.
	Problem string `json:"problem,omitempty"`
	// HostTrusted: the command passes --host-trusted, so lore injects the
	// repository's memory without its own trust list (see Command).
	HostTrusted bool `json:"host_trusted"`
}

// Status reports lore's hook for each of the agent's events.
func Status(t Target) ([]EventStatus, error) {
	if t.Agent.Plugin {
		return pluginStatus(t)
	}
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, os.ErrNotExist) {
		data = nil
	} else if err != nil {
		return nil, err
	}
	root, err := parseFile(data, t.Agent.Comments)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", t.Path, err)
	}
	hooks, err := hooksObject(root, t.Path)
	if err != nil {
		return nil, err
	}
	sw := readSwitches(t)
	var out []EventStatus
	for _, ev := range t.Agent.Events {
		st := EventStatus{Event: ev.Name}
		groups, err := eventGroups(hooks, ev.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", t.Path, err)
		}
		for gi, g := range groups {
			var group struct {
				Matcher *string           `json:"matcher"`
				Hooks   []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(g, &group) != nil {
				continue
			}
			for hi, h := range group.Hooks {
				cmd := commandOf(h)
				if !t.Runs(cmd) {
					continue
				}
				st.Installed, st.Command = true, cmd
				st.Binary = binaryOf(cmd)
				st.BinaryOK, st.Other = binaryState(st.Binary, t.Self)
				st.Problem = sw.problem(h)
				argv, _ := argvOf(cmd)
				st.HostTrusted = slices.Contains(argv, hostTrusted)
				if st.Problem == "" && t.HostConfig != "" {
					st.Problem = codexProblem(t, ev.Name, gi, hi, group.Matcher, h)
				}
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// edit applies change to the file's "hooks" object and writes the file
// atomically if anything changed. A malformed file is refused untouched.
func (t Target) edit(change func(hooks *object) (bool, error), create bool) (bool, error) {
	return editJSON(t.Path, create && t.Scope != "user", t.Agent.Title, t.Agent.Comments, func(root *object) (bool, error) {
		hooks, err := hooksObject(root, t.Path)
		if err != nil {
			return false, err
		}
		changed, err := change(hooks)
		if err != nil {
			return false, fmt.Errorf("%s: %v; lore has not changed it", t.Path, err)
		}
		if !changed {
			return false, nil
		}
		if len(hooks.keys) == 0 {
			root.del("hooks")
		} else {
			root.set("hooks", mustJSON(hooks))
		}
		return true, nil
	})
}

func hooksObject(root *object, path string) (*object, error) {
	raw, ok := root.get("hooks")
	if !ok {
		return newObject(), nil
	}
	hooks := newObject()
	if err := json.Unmarshal(raw, hooks); err != nil {
		return nil, fmt.Errorf("%s: \"hooks\" is %s, not an object; lore has not changed it", path, kindOf(raw))
	}
	return hooks, nil
}

func eventGroups(hooks *object, event string) ([]json.RawMessage, error) {
	raw, ok := hooks.get(event)
	if !ok {
		return nil, nil
	}
	var groups []json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, fmt.Errorf("\"hooks.%s\" is %s, not an array", event, kindOf(raw))
	}
	return groups, nil
}

func (t Target) installEvent(hooks *object, ev Event, command string) (bool, error) {
	groups, err := eventGroups(hooks, ev.Name)
	if err != nil {
		return false, err
	}
	for gi, g := range groups {
		group := newObject()
		if json.Unmarshal(g, group) != nil {
			continue
		}
		raw, _ := group.get("hooks")
		var handlers []json.RawMessage
		if json.Unmarshal(raw, &handlers) != nil {
			continue
		}
		for hi, h := range handlers {
			handler := newObject()
			if json.Unmarshal(h, handler) != nil {
				continue
			}
			var cmd string
			cmdRaw, _ := handler.get("command")
			if json.Unmarshal(cmdRaw, &cmd) != nil || !t.Runs(cmd) {
				continue
			}
			// The user's VAR=value before lore's command stays.
			env, _, _ := programOf(cmd)
			if cmd == env+command {
				return false, nil // already installed
			}
			handler.set("command", mustJSON(env+command))
			handlers[hi] = mustJSON(handler)
			group.set("hooks", mustJSON(handlers))
			groups[gi] = mustJSON(group)
			hooks.set(ev.Name, mustJSON(groups))
			return true, nil
		}
	}
	handler := newObject()
	if t.Agent.Named {
		handler.set("name", mustJSON("lore"))
	}
	handler.set("type", mustJSON("command"))
	handler.set("command", mustJSON(command))
	handler.set("timeout", mustJSON(t.Agent.Timeout))
	group := newObject()
	if ev.Matcher != "" {
		group.set("matcher", mustJSON(ev.Matcher))
	}
	group.set("hooks", mustJSON([]json.RawMessage{mustJSON(handler)}))
	hooks.set(ev.Name, mustJSON(append(groups, mustJSON(group))))
	return true, nil
}

// withoutLore returns the group without lore's handlers (nil if none is
// left) and whether it removed any.
func (t Target) withoutLore(g json.RawMessage) (json.RawMessage, bool, error) {
	group := newObject()
	if json.Unmarshal(g, group) != nil {
		return g, false, nil
	}
	raw, _ := group.get("hooks")
	var handlers []json.RawMessage
	if json.Unmarshal(raw, &handlers) != nil {
		return g, false, nil
	}
	var kept []json.RawMessage
	for _, h := range handlers {
		if cmd := commandOf(h); cmd != "" && t.Runs(cmd) {
			continue
		}
		kept = append(kept, h)
	}
	if len(kept) == len(handlers) {
		return g, false, nil
	}
	if len(kept) == 0 {
		return nil, true, nil
	}
	group.set("hooks", mustJSON(kept))
	return mustJSON(group), true, nil
}

func commandOf(h json.RawMessage) string {
	var handler struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(h, &handler)
	return handler.Command
}

// binaryOf is the program a hook command runs, unquoted.
func binaryOf(cmd string) string {
	_, prog, _ := programOf(cmd)
	return prog
}

// binaryState reports whether bin (a path, or a name in PATH) is an
// executable file, and whether it is another file than self (this lore;
// "": not known).
func binaryState(bin, self string) (ok, other bool) {
	path := bin
	if !filepath.IsAbs(bin) {
		var err error
		if path, err = exec.LookPath(bin); err != nil {
			return false, false
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return false, false
	}
	if self == "" {
		return true, false
	}
	me, err := os.Stat(self)
	return true, err != nil || !os.SameFile(fi, me)
}

// mustJSON encodes v as JSON without HTML escapes: a user's hook command
// "npm run lint && echo <ok>" stays readable in their settings, not
// \u0026\u0026 and \u003cok\u003e.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only lore's own values and parsed settings are encoded here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
