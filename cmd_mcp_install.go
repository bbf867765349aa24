package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lore/gitrepo"
	"lore/hooks"
)

// What each lore mcp verb does, written once: lore mcp --help shows all,
// each verb's --help its own.
const (
	mcpInstallAbout = `install writes lore's server into an agent's MCP configuration: claude
(.mcp.json; user: ~/.claude.json), cursor (.cursor/mcp.json), codex
([mcp_servers.lore] in .codex/config.toml; user: $CODEX_HOME/config.toml),
gemini (.gemini/settings.json), vscode (.vscode/mcp.json). The defaults are
claude and project scope, as for lore hooks install.`

	mcpUninstallAbout = `uninstall removes lore's server from the MCP configuration of the agent
and scope --agent and --scope name (default: claude, project scope), and
the servers object if that leaves it empty; everything else in the file
stays. A server named lore that is not lore's is refused untouched.`

	mcpStatusAbout = `status shows, for every agent at both scopes, or the agent and scope
--agent and --scope name, the configuration file, whether lore's server is
installed there and the command it runs. A broken entry says why: its
binary no longer exists, the server named lore is not lore's, or the file
does not parse. Codex at user scope says when its directory ($CODEX_HOME,
default ~/.codex) does not exist.`
)

// mcpAbout is each mcp verb's own help text.
var mcpAbout = map[string]string{"install": mcpInstallAbout, "uninstall": mcpUninstallAbout, "status": mcpStatusAbout}

// mcpConfig runs lore mcp install, uninstall and status.
func (e *env) mcpConfig(verb, help string, args []string) error {
	var agent, scope, command string
	var asJSON bool
	fs := newFlags("mcp " + verb)
	fs.StringVar(&agent, "agent", "", "claude, cursor, codex, gemini or vscode (install: default claude)")
	fs.StringVar(&scope, "scope", "", "project or user (install: default project)")
	switch verb {
	case "install":
		fs.StringVar(&command, "command", "", "the lore binary the agent runs (default: this binary's absolute path)")
	case "status":
		fs.BoolVar(&asJSON, "json", false, "print JSON")
	}
	if about := mcpAbout[verb]; about != "" {
		help += "\n\n" + about
	}
	if err := e.parse(fs, help, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("mcp"), "mcp %s takes no arguments", verb)
	}
	targets, err := e.mcpTargets(agent, scope, verb != "status")
	if err != nil {
		return err
	}
	switch verb {
	case "install":
		e.warnStoreNotPassed("the MCP server's entry", "add --dir to its args by hand")
		given := command != ""
		if !given {
			if command, err = e.selfBinary(); err != nil {
				return err
			}
		}
		for _, t := range targets {
			if !given {
				if err := expandedPath(t.Host.Title, t.Host.Expands, command); err != nil {
					return err
				}
			}
			changed, err := hooks.InstallMCP(t, command)
			if err != nil {
				return err
			}
			if changed {
				entry, err := hooks.MCPStatus(t)
				if err != nil || entry == nil {
					return fmt.Errorf("%s: lore's entry is not there after install: %v", e.rel(t.Path), err)
				}
				fmt.Fprintf(e.stderr, "lore: installed lore's MCP server for %s in %s: %s\n", t.Host.Title, lineSafe(e.rel(t.Path)), lineSafe(entry.Command+" "+strings.Join(entry.Args, " ")))
			} else {
				fmt.Fprintf(e.stderr, "lore: the MCP server for %s is already in %s\n", t.Host.Title, lineSafe(e.rel(t.Path)))
			}
		}
	case "uninstall":
		for _, t := range targets {
			changed, err := hooks.UninstallMCP(t)
			if err != nil {
				return err
			}
			if changed {
				fmt.Fprintf(e.stderr, "lore: removed lore's MCP server for %s from %s\n", t.Host.Title, lineSafe(e.rel(t.Path)))
			} else {
				fmt.Fprintf(e.stderr, "lore: the MCP server for %s is not in %s\n", t.Host.Title, lineSafe(e.rel(t.Path)))
			}
		}
	case "status":
		return e.mcpStatus(targets, asJSON)
	}
	return nil
}

// mcpTargets resolves --agent and --scope; with one (install, uninstall)
// they default to claude and project, else every agent and scope.
func (e *env) mcpTargets(agent, scope string, one bool) ([]hooks.MCPTarget, error) {
	hosts := hooks.MCPHosts()
	if agent != "" || one {
		if agent == "" {
			agent = "claude"
		}
		h, err := hooks.FindMCPHost(agent)
		if err != nil {
			return nil, usageError("", "mcp: %v", err)
		}
		hosts = []hooks.MCPHost{h}
	}
	scopes, err := chooseScopes("mcp", scope, one)
	if err != nil {
		return nil, err
	}
	root, _ := gitrepo.RepoRoot(e.cwd, e.getenv)
	home := e.home()
	var out []hooks.MCPTarget
	for _, h := range hosts {
		for _, sc := range scopes {
			t, err := hooks.NewMCPTarget(h, sc, root, home, e.getenv("CODEX_HOME"))
			if err != nil {
				if one {
					return nil, err
				}
				continue // status skips what cannot exist here (no repository, no $HOME)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

type mcpState struct {
	Agent   string `json:"agent"`
	Scope   string `json:"scope"`
	File    string `json:"file"`
	State   string `json:"state"` // installed, not installed, broken
	Command string `json:"command,omitempty"`
	Problem string `json:"problem,omitempty"`
}

func (e *env) mcpStatus(targets []hooks.MCPTarget, asJSON bool) error {
	var states []mcpState
	for _, t := range targets {
		st := mcpState{Agent: t.Host.Name, Scope: t.Scope, File: t.Path, State: "not installed"}
		entry, err := hooks.MCPStatus(t)
		switch {
		case err != nil:
			st.State, st.Problem = "broken", fileProblem(t.Path, err)
		case entry != nil:
			st.Command = entry.Command + " " + strings.Join(entry.Args, " ")
			if ok, why := entry.Installed(); ok {
				st.State = "installed"
			} else {
				st.State, st.Problem = "broken", why
			}
		case t.HostDirMissing():
			st.Problem = t.HostDir + " does not exist: is " + t.Host.Title + " installed?"
		}
		states = append(states, st)
	}
	if asJSON {
		return e.printJSON(states)
	}
	for _, st := range states {
		line := fmt.Sprintf("%-7s %-8s %-14s %s", st.Agent, st.Scope, st.State, e.rel(st.File))
		if st.Command != "" {
			line += ": " + st.Command
		}
		if st.Problem != "" {
			line += " (" + st.Problem + ")"
		}
		fmt.Fprintln(e.stdout, line)
	}
	return nil
}

// fileProblem is why a settings file at path cannot be read, for a status
// row that names the file already: err without the path it starts with.
func fileProblem(path string, err error) string {
	return strings.TrimPrefix(err.Error(), path+": ")
}

// expandedPath refuses to write this lore's path, bin, where the host
// would read it as another: it replaces variables in its settings' strings
// before running them, and no quoting stops it.
func expandedPath(host string, v hooks.VarSyntax, bin string) error {
	if !v.Expanded(bin) {
		return nil
	}
	return &cliError{code: exitFailure,
		msg:  fmt.Sprintf("%s replaces variables (%s) in its settings, so this lore's path, %s, would run as another; lore has not changed them", host, v, lineSafe(bin)),
		hint: "install lore at a path without '$' (or pass --command with the path as the host should read it)"}
}

// selfBinary is the absolute path of this lore, for configurations that
// run it: agents often start servers and hooks with a minimal PATH.
func (e *env) selfBinary() (string, error) {
	bin, err := e.selfPath()
	if err != nil {
		return "", err
	}
	if strings.Contains(bin, string(filepath.Separator)+"go-build") {
		e.warn("this lore runs from 'go run', whose binary is temporary; install it (CGO_ENABLED=0 go install ./...) and run install again")
	}
	return bin, nil
}

// selfPath is this binary's absolute path as the user reaches it: the
// path they ran, found in PATH, when it leads to this binary, links kept
// (a package manager's link, /opt/homebrew/bin/lore ->
// ../Cellar/lore/1.0/bin/lore, outlives the upgrade that deletes its
// target); else the executable, links resolved.
func (e *env) selfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if p := e.invokedAs(); p != "" {
		if a, err := os.Stat(p); err == nil {
			if b, err := os.Stat(exe); err == nil && os.SameFile(a, b) {
				return p, nil
			}
		}
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return exe, nil
}

// invokedAs is the absolute path the user ran lore by (argv[0]: a path, or
// a name looked up in PATH as the shell did), or "".
func (e *env) invokedAs() string {
	switch {
	case e.argv0 == "":
		return ""
	case filepath.IsAbs(e.argv0):
		return filepath.Clean(e.argv0)
	case strings.ContainsRune(e.argv0, filepath.Separator):
		return filepath.Join(e.cwd, e.argv0)
	}
	for _, dir := range filepath.SplitList(e.getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // the shell's "." or "": not a place to hand an agent
		}
		p := filepath.Join(dir, e.argv0)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
