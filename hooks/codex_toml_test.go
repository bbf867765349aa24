package hooks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codexFile writes content as a project's .codex/config.toml and returns
// its target.
func codexFile(t *testing.T, content string) MCPTarget {
	t.Helper()
	h, _ := FindMCPHost("codex")
	tg, err := NewMCPTarget(h, "project", t.TempDir(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	writeSettingsFile(t, tg.Path, content)
	return tg
}

// writeSettingsFile writes content at path, making its directory.
func writeSettingsFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Lore's table and its subtables come out wherever they are in the file;
// everything else stays as written, comments and all.
func TestCodexUninstallTakesSubtablesElsewhere(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"env after another server",
			"model = \"o3\"\n\n[mcp_servers.lore]\ncommand = \"lore\"\nargs = [\"mcp\"]\n\n# GitHub's\n[mcp_servers.github]\ncommand = \"gh\"\n\n[mcp_servers.lore.env]\nLORE_DIR = \"/srv/lore\"\n",
			"model = \"o3\"\n\n# GitHub's\n[mcp_servers.github]\ncommand = \"gh\"\n"},
		{"env first, then another table, then lore's",
			"[mcp_servers.lore.env]\nA = \"1\"\n\n[profiles.fast]\nmodel = \"o4-mini\" # quick\n\n[mcp_servers.lore] # lore's memory\ncommand = \"lore\"\nargs = [\"mcp\"]\n",
			"[profiles.fast]\nmodel = \"o4-mini\" # quick\n"},
		{"env right after, then a table",
			"[mcp_servers.lore]\ncommand = \"lore\"\nargs = [\"mcp\"]\n[mcp_servers.lore.env]\nA = \"1\"\n[x]\ny = 1\n",
			"[x]\ny = 1\n"},
	} {
		tg := codexFile(t, c.in)
		if changed, err := UninstallMCP(tg); err != nil || !changed {
			t.Errorf("%s: uninstall: %v %v", c.name, changed, err)
			continue
		}
		if got, _ := os.ReadFile(tg.Path); string(got) != c.want {
			t.Errorf("%s: after uninstall:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// Install edits lore's own table, wherever its subtables are, and a
// header with a comment after it.
func TestCodexInstallFindsLoresTable(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"env before lore's table",
			"[mcp_servers.lore.env]\nA = \"1\"\n\n[mcp_servers.lore]\ncommand = \"/old/lore\"\nargs = [\"mcp\", \"--read-only\"]\n",
			"[mcp_servers.lore.env]\nA = \"1\"\n\n[mcp_servers.lore]\ncommand = \"/new/lore\"\nargs = [\"mcp\", \"--read-only\", \"--host-trusted\"]\n"},
		{"a comment after the header",
			"[mcp_servers.lore] # mine\ncommand = \"/old/lore\"\nargs = [\"mcp\"]\n[other]\nx = 1\n",
			"[mcp_servers.lore] # mine\ncommand = \"/new/lore\"\nargs = [\"mcp\", \"--host-trusted\"]\n[other]\nx = 1\n"},
		{"mostly CRLF lines: lore's are CRLF too",
			"a = 1\r\n[mcp_servers.lore]\r\ncommand = \"/old/lore\"\r\nargs = [\"mcp\"]\n",
			"a = 1\r\n[mcp_servers.lore]\r\ncommand = \"/new/lore\"\r\nargs = [\"mcp\", \"--host-trusted\"]\r\n"},
		{"CRLF lines, a new table",
			"a = 1\r\n",
			"a = 1\r\n\r\n[mcp_servers.lore]\r\ncommand = \"/new/lore\"\r\nargs = [\"mcp\", \"--host-trusted\"]\r\n"},
	} {
		tg := codexFile(t, c.in)
		if changed, err := InstallMCP(tg, "/new/lore"); err != nil || !changed {
			t.Errorf("%s: install: %v %v", c.name, changed, err)
			continue
		}
		if got, _ := os.ReadFile(tg.Path); string(got) != c.want {
			t.Errorf("%s: after install:\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

// What lore cannot edit is refused in one line naming the file, the line
// and what to do, and the file stays as it was.
func TestCodexRefusalNamesTheLine(t *testing.T) {
	// The fake header inside a multi-line string ends lore's block early:
	// removing the rest would change what the string holds.
	in := "x = 1\n[mcp_servers.lore]\ncommand = \"lore\"\nargs = [\"mcp\"]\nnote = \"\"\"\n[not.a.table]\n\"\"\"\n"
	tg := codexFile(t, in)
	_, err := UninstallMCP(tg)
	if err == nil || strings.Contains(err.Error(), "\n") ||
		!regexp.MustCompile(`config\.toml:2: .*lore has not changed it \(edit it by hand\)$`).MatchString(err.Error()) {
		t.Errorf("uninstall: %v", err)
	}
	if got, _ := os.ReadFile(tg.Path); string(got) != in {
		t.Errorf("the file changed:\n%s", got)
	}
}

// mcp_servers written as an inline table cannot be extended by a
// [mcp_servers.lore] table: TOML forbids it and Codex refuses to start
// (checked with codex 0.169.0's `codex mcp list`), though the parser lore
// checks its edit with accepts it. Install refuses, naming the line; the
// other forms of mcp_servers take lore's table.
func TestCodexInlineServersAreRefused(t *testing.T) {
	for _, in := range []string{
		"model = \"o3\"\nmcp_servers = { other = { command = \"x\" } }\n",
		"\"mcp_servers\" = {}\n[profiles.a]\nx = 1\n",
	} {
		tg := codexFile(t, in)
		_, err := InstallMCP(tg, "/usr/local/bin/lore")
		if err == nil || !regexp.MustCompile(`config\.toml:[12]: mcp_servers is an inline table .*lore has not changed it`).MatchString(err.Error()) {
			t.Errorf("install into %q: %v", in, err)
		}
		if got, _ := os.ReadFile(tg.Path); string(got) != in {
			t.Errorf("the file changed:\n%s", got)
		}
	}
	for _, in := range []string{
		"[mcp_servers]\nother = { command = \"x\" }\n",
		"mcp_servers.other.command = \"x\"\n",
		"[profiles.a]\nmcp_servers = { x = 1 }\n", // another table's key
	} {
		tg := codexFile(t, in)
		if _, err := InstallMCP(tg, "/usr/local/bin/lore"); err != nil {
			t.Errorf("install into %q: %v", in, err)
		}
	}
}

// Codex's user scope is $CODEX_HOME (~/.codex): status and uninstall look
// there when it does not exist; install refuses to create it.
func TestCodexUserScopeWithoutItsDirectory(t *testing.T) {
	home := t.TempDir()
	h, _ := FindMCPHost("codex")
	tg, err := NewMCPTarget(h, "user", "", home, "")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Path != filepath.Join(home, ".codex", "config.toml") || !tg.HostDirMissing() {
		t.Errorf("target %+v, missing %v", tg, tg.HostDirMissing())
	}
	if e, err := MCPStatus(tg); e != nil || err != nil {
		t.Errorf("status: %v %v", e, err)
	}
	if changed, err := UninstallMCP(tg); changed || err != nil {
		t.Errorf("uninstall: %v %v", changed, err)
	}
	if _, err := InstallMCP(tg, "/usr/local/bin/lore"); err == nil || !strings.Contains(err.Error(), ".codex does not exist: is Codex CLI installed?") {
		t.Errorf("install: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); err == nil {
		t.Error("install created ~/.codex")
	}
	os.Mkdir(filepath.Join(home, ".codex"), 0o755)
	if tg.HostDirMissing() {
		t.Error("~/.codex is there")
	}
}
