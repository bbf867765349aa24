package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"lore/store"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MCPHost is an agent whose MCP configuration lore can add its server to.
// The formats, each from the host's documentation:
//   - Claude Code ("Connect Claude Code to tools via MCP"): project scope
//     .mcp.json, user scope ~/.claude.json, both {"mcpServers": {name:
//     {"command", "args", "env"}}}.
//   - Cursor ("Model Context Protocol"): .cursor/mcp.json in the project or
//     the home directory, {"mcpServers": {name: {"command", "args"}}}.
//   - Codex CLI (docs/config.md, "mcp_servers"): [mcp_servers.<name>] with
//     command and args in config.toml: $CODEX_HOME/config.toml (default
//     ~/.codex), or .codex/config.toml in a trusted project.
//   - Gemini CLI (docs/tools/mcp-server.md): "mcpServers" in
//     .gemini/settings.json (project or home), {"command", "args"}.
//   - VS Code ("Use MCP servers in VS Code"): .vscode/mcp.json, {"servers":
//     {name: {"type": "stdio", "command", "args"}}}; the user profile's
//     mcp.json for user scope. VS Code edits the file as JSON with
//     comments, so it may hold them.
type MCPHost struct {
	Name, Title string
	ProjectFile string // relative to the repository root
	UserFile    string // relative to the home directory ("" for Codex: $CODEX_HOME)
	Key         string // the JSON object that holds the servers
	TOML        bool   // Codex's config.toml
	Typed       bool   // entries say "type": "stdio"
	Comments    bool   // the file may hold comments (Gemini CLI's settings, VS Code's mcp.json; see jsonc.go)
	Expands     VarSyntax
}

// MCPServerName is the name lore's server is registered under.
const MCPServerName = "lore"

// MCPHosts lists the agents lore mcp install knows.
func MCPHosts() []MCPHost {
	return []MCPHost{
		{Name: "claude", Title: "Claude Code", ProjectFile: ".mcp.json", UserFile: ".claude.json", Key: "mcpServers", Expands: BraceVars},
		{Name: "cursor", Title: "Cursor", ProjectFile: ".cursor/mcp.json", UserFile: ".cursor/mcp.json", Key: "mcpServers", Expands: BraceVars},
		{Name: "codex", Title: "Codex CLI", ProjectFile: ".codex/config.toml", TOML: true},
		{Name: "gemini", Title: "Gemini CLI", ProjectFile: ".gemini/settings.json", UserFile: ".gemini/settings.json", Key: "mcpServers", Comments: true, Expands: DollarVars},
		{Name: "vscode", Title: "VS Code", ProjectFile: ".vscode/mcp.json", UserFile: ".config/Code/User/mcp.json", Key: "servers", Typed: true, Comments: true, Expands: BraceVars},
	}
}

// FindMCPHost returns the host called name.
func FindMCPHost(name string) (MCPHost, error) {
	var names []string
	for _, h := range MCPHosts() {
		if h.Name == name {
			return h, nil
		}
		names = append(names, h.Name)
	}
	return MCPHost{}, fmt.Errorf("unknown agent %q (want %s)", name, strings.Join(names, ", "))
}

// MCPTarget is one MCP configuration file: a host at a scope.
type MCPTarget struct {
	Host  MCPHost
	Scope string
	Path  string
	// HostDir is the host's own directory, which install does not create
	// (Codex's $CODEX_HOME at user scope), or "".
	HostDir string
}

// NewMCPTarget places host's configuration for scope. Codex's user scope
// is $CODEX_HOME (codexHome, "" for ~/.codex), which install needs to
// exist; status and uninstall look there all the same, to say what is not
// there.
func NewMCPTarget(h MCPHost, scope, repoRoot, home, codexHome string) (MCPTarget, error) {
	switch scope {
	case "project":
		if repoRoot == "" {
			return MCPTarget{}, errors.New("project scope needs a git repository; run inside one, or use --scope user")
		}
		return MCPTarget{Host: h, Scope: scope, Path: filepath.Join(repoRoot, h.ProjectFile)}, nil
	case "user":
		if h.TOML {
			if codexHome == "" {
				if home == "" {
					return MCPTarget{}, errors.New("user scope needs a home directory ($HOME is not set)")
				}
				codexHome = filepath.Join(home, ".codex")
			}
			return MCPTarget{Host: h, Scope: scope, Path: filepath.Join(codexHome, "config.toml"), HostDir: codexHome}, nil
		}
		if home == "" {
			return MCPTarget{}, errors.New("user scope needs a home directory ($HOME is not set)")
		}
		return MCPTarget{Host: h, Scope: scope, Path: filepath.Join(home, h.UserFile)}, nil
	}
	return MCPTarget{}, fmt.Errorf("unknown scope %q (want project or user)", scope)
}

// HostDirMissing reports whether t.HostDir is wanted and not a directory.
func (t MCPTarget) HostDirMissing() bool {
	if t.HostDir == "" {
		return false
	}
	info, err := os.Stat(t.HostDir)
	return err != nil || !info.IsDir()
}

// MCPEntry is lore's server as a host runs it.
type MCPEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// ServeArgs are the arguments that make lore an MCP server.
var ServeArgs = []string{"mcp"}

// hostTrusted is the flag a project's configuration adds, as its hooks
// carry (see Command).
const hostTrusted = "--host-trusted"

// serveFlags are the lore mcp flags an entry of lore's may carry.
var serveFlags = []string{"--read-only", hostTrusted}

// isLore reports whether e runs lore's server (lore mcp and its own flags,
// whatever binary), rather than another server someone named lore.
func (e *MCPEntry) isLore() bool {
	return len(e.Args) > 0 && e.Args[0] == ServeArgs[0] &&
		!slices.ContainsFunc(e.Args[1:], func(a string) bool { return !slices.Contains(serveFlags, a) })
}

// argsFor are the arguments lore's entry in t runs with: ServeArgs, the
// flags a user added to the entry there already (--read-only), and
// --host-trusted at project scope.
func argsFor(t MCPTarget, cur *MCPEntry) []string {
	args := slices.Clone(ServeArgs)
	if cur != nil {
		for _, a := range cur.Args[1:] {
			if a != hostTrusted && !slices.Contains(args, a) {
				args = append(args, a)
			}
		}
	}
	if t.Scope == "project" {
		args = append(args, hostTrusted)
	}
	return args
}

// unchanged is a configuration lore could not read, which it leaves alone;
// an error that already says so is kept as it is.
func unchanged(err error) error {
	if strings.HasSuffix(err.Error(), "lore has not changed it") {
		return err
	}
	return fmt.Errorf("%v; fix or move it, lore has not changed it", err)
}

// errForeign refuses to change an entry named lore that is not lore's.
func errForeign(t MCPTarget, cur *MCPEntry) error {
	what := "no command"
	if cur.Command != "" {
		what = strings.TrimSpace(cur.Command + " " + strings.Join(cur.Args, " "))
	}
	return fmt.Errorf("%s: the server named %q runs %s, not lore's server; lore has not changed it (rename it, or remove it by hand)", t.Path, MCPServerName, what)
}

// InstallMCP writes lore's server entry (binary, argsFor) into t, or
// updates it, keeping what else a user put in lore's entry (env, flags);
// it refuses an entry named lore that is another server. It reports
// whether the file changed.
func InstallMCP(t MCPTarget, binary string) (bool, error) {
	if t.HostDirMissing() {
		return false, fmt.Errorf("%s does not exist: is %s installed? (CODEX_HOME names its directory)", t.HostDir, t.Host.Title)
	}
	cur, err := MCPStatus(t)
	if err != nil {
		return false, unchanged(err)
	}
	if cur != nil && !cur.isLore() {
		return false, errForeign(t, cur)
	}
	args := argsFor(t, cur)
	if t.Host.TOML {
		return editCodexTOML(t.Path, &MCPEntry{binary, args})
	}
	return editJSON(t.Path, t.Scope == "project", t.Host.Title, t.Host.Comments, func(root *object) (bool, error) {
		servers, err := childObject(root, t.Host.Key, t.Path)
		if err != nil {
			return false, err
		}
		entry := newObject()
		if raw, ok := servers.get(MCPServerName); ok {
			if entry, err = parseSettings(raw); err != nil {
				return false, fmt.Errorf("%s: %q.%s: %v", t.Path, t.Host.Key, MCPServerName, err)
			}
		}
		if t.Host.Typed {
			entry.set("type", mustJSON("stdio"))
		}
		entry.set("command", mustJSON(binary))
		entry.set("args", mustJSON(args))
		want := mustJSON(entry)
		if cur, ok := servers.get(MCPServerName); ok && sameJSON(cur, want) {
			return false, nil
		}
		servers.set(MCPServerName, want)
		root.set(t.Host.Key, mustJSON(servers))
		return true, nil
	})
}

// UninstallMCP removes lore's server entry, and the servers object if it
// leaves it empty.
func UninstallMCP(t MCPTarget) (bool, error) {
	if _, err := os.Stat(t.Path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if cur, err := MCPStatus(t); err != nil {
		return false, unchanged(err)
	} else if cur != nil && !cur.isLore() {
		return false, errForeign(t, cur)
	}
	if t.Host.TOML {
		return editCodexTOML(t.Path, nil)
	}
	return editJSON(t.Path, false, t.Host.Title, t.Host.Comments, func(root *object) (bool, error) {
		servers, err := childObject(root, t.Host.Key, t.Path)
		if err != nil {
			return false, err
		}
		if _, ok := servers.get(MCPServerName); !ok {
			return false, nil
		}
		servers.del(MCPServerName)
		if len(servers.keys) == 0 {
			root.del(t.Host.Key)
		} else {
			root.set(t.Host.Key, mustJSON(servers))
		}
		return true, nil
	})
}

// MCPStatus reads lore's entry in t: nil if there is none.
func MCPStatus(t MCPTarget) (*MCPEntry, error) {
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if t.Host.TOML {
		return codexEntry(t.Path, data)
	}
	root, err := parseFile(data, t.Host.Comments)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", t.Path, err)
	}
	servers, err := childObject(root, t.Host.Key, t.Path)
	if err != nil {
		return nil, err
	}
	raw, ok := servers.get(MCPServerName)
	if !ok {
		return nil, nil
	}
	var e MCPEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("%s: %q.%s is %s, not a server entry", t.Path, t.Host.Key, MCPServerName, kindOf(raw))
	}
	return &e, nil
}

// Installed reports whether e is lore's server run by an existing binary.
func (e *MCPEntry) Installed() (ok bool, why string) {
	if !e.isLore() {
		return false, fmt.Sprintf("runs %s, not lore mcp", strings.TrimSpace(e.Command+" "+strings.Join(e.Args, " ")))
	}
	if filepath.IsAbs(e.Command) {
		if _, err := os.Stat(e.Command); err != nil {
			return false, e.Command + " no longer exists"
		}
	}
	return true, ""
}

func childObject(root *object, key, path string) (*object, error) {
	raw, ok := root.get(key)
	if !ok {
		return newObject(), nil
	}
	o := newObject()
	if err := json.Unmarshal(raw, o); err != nil {
		return nil, fmt.Errorf("%s: %q is %s, not an object; lore has not changed it", path, key, kindOf(raw))
	}
	return o, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// editJSON applies change to the JSON object in path and writes the file
// atomically if anything changed. A malformed file is refused untouched;
// a missing directory is created only when create allows it. With
// comments, the file may hold comments, which stay (see splice).
func editJSON(path string, create bool, title string, comments bool, change func(root *object) (bool, error)) (bool, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = nil
	case err != nil:
		return false, err
	}
	root, err := parseFile(data, comments)
	if err != nil {
		return false, fmt.Errorf("%s: %v; fix or move it, lore has not changed it", path, err)
	}
	changed, err := change(root)
	if err != nil || !changed {
		return false, err
	}
	var out []byte
	if _, cs := blankComments(data); comments && len(cs) > 0 {
		if out, err = splice(data, root); err != nil {
			return false, fmt.Errorf("%s: %v", path, err)
		}
	} else {
		if out, err = render(root); err != nil {
			return false, err
		}
		out = inStyleOf(data, out)
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if !create {
			return false, fmt.Errorf("%s does not exist: is %s installed? (or use --scope project)", dir, title)
		}
		if err := os.MkdirAll(dir, store.DirMode); err != nil {
			return false, err
		}
	}
	return true, store.WriteThrough(path, out)
}
