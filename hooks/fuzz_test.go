package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// userCodexConfig is a user's Codex config.toml as people write it: comments,
// top-level keys, another MCP server with a subtable and a quoted name,
// a profile and a multi-line string (the shape of
// testdata/script/mcp_install.txtar's codex.orig.toml, with more of TOML).
const userCodexConfig = `# my codex config
model = "gpt-5-codex"
instructions = """
Be brief.
"""

[mcp_servers.github]
command = "gh-mcp" # the GitHub server
args = ["--stdio"]

[mcp_servers.github.env]
GITHUB_TOKEN_FILE = "~/.config/gh/token"

[mcp_servers."docs.search"]
command = "docs-mcp"

[profiles.fast]
model = "gpt-5-mini"
`

// rest is everything a config.toml sets but lore's server, for comparing
// what lore's edit left alone.
func rest(t *testing.T, data []byte) string {
	t.Helper()
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		t.Fatalf("%v in %q", err, data)
	}
	if servers, ok := m["mcp_servers"].(map[string]any); ok {
		delete(servers, MCPServerName)
		if len(servers) == 0 {
			delete(m, "mcp_servers")
		}
	}
	return fmt.Sprintf("%#v", m)
}

// Codex's config.toml is the user's, hand-written: whatever it holds,
// uninstalling lore's server from it either refuses and leaves the file as
// it was or leaves every key but lore's as it was, and installing it
// either refuses and leaves the file as it was,
// or writes a file that parses, whose mcp_servers.lore is lore's entry and
// whose every other key and value is as it was; installing again changes
// nothing, and uninstalling removes lore's entry, again leaving every
// other key as it was (and the very bytes, for a file that had no lore
// entry and ended with a newline).
func FuzzEditCodexTOML(f *testing.F) {
	f.Add(userCodexConfig, "/usr/local/bin/lore")
	f.Add(userCodexConfig+"\n[mcp_servers.lore]\ncommand = \"/opt/lore\"\nargs = [\"mcp\"]\n\n[mcp_servers.lore.env]\nX = \"1\"\n", "/usr/local/bin/lore")
	f.Add("[mcp_servers.lore] # lore\ncommand = \"lore\"\nargs = [\"mcp\"]\n[other]\nx = 1", "lore")
	f.Add("[mcp_servers]\nlore = { command = \"lore\", args = [\"mcp\"] }\n", "lore")
	// lore's subtable apart from its table, before it, and CRLF lines
	f.Add("[mcp_servers.lore]\ncommand = \"lore\"\nargs = [\"mcp\"]\n\n# gh\n[mcp_servers.gh]\ncommand = \"gh\"\n\n[mcp_servers.lore.env]\nX = \"1\"\n", "/opt/lore")
	f.Add("[mcp_servers.lore.env]\nX = \"1\"\n[a]\nb = 1\n[mcp_servers.'lore'] # mine\ncommand = \"lore\"\nargs = [\"mcp\"]\n", "/opt/lore")
	f.Add("a = 1\r\n[mcp_servers.lore]\r\ncommand = \"lore\"\r\nargs = [\"mcp\"]\r\n", "lore")
	f.Add("model = \"x\"\n[mcp_servers.lore", "lore")
	f.Add("x = 1", "/Users/Ada Lovelace/go/bin/lore")
	f.Add("", "C:\\Program Files\\lore.exe")
	f.Add("instructions = \"\"\"\nTo add lore, write\n[mcp_servers.lore]\ncommand = \"lore\"\nunder\n[mcp_servers]\n\"\"\"\n", "lore")
	path := filepath.Join(f.TempDir(), "config.toml")
	f.Fuzz(func(t *testing.T, data, command string) {
		if command == "" {
			command = "lore"
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		read := func() []byte {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		before, beforeErr := codexEntry(path, []byte(data))
		if _, err := editCodexTOML(path, nil); err == nil {
			// uninstalling from the file as it is
			if got, err := codexEntry(path, read()); err != nil || got != nil || rest(t, read()) != rest(t, []byte(data)) {
				t.Fatalf("uninstalling from %q left %q (lore's entry %+v, %v)", data, read(), got, err)
			}
		} else if got := read(); string(got) != data {
			t.Fatalf("uninstall refused (%v) and changed the file:\n%q\nto\n%q", err, data, got)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		entry := &MCPEntry{Command: command, Args: ServeArgs}
		_, err := editCodexTOML(path, entry)
		if err != nil {
			if got := read(); string(got) != data {
				t.Fatalf("refused (%v) and changed the file:\n%q\nto\n%q", err, data, got)
			}
			return
		}
		if beforeErr != nil {
			t.Fatalf("installed into a file that does not parse (%v)", beforeErr)
		}
		out := read()
		got, err := codexEntry(path, out)
		if err != nil || got == nil || got.Command != command || !slices.Equal(got.Args, ServeArgs) {
			t.Fatalf("installed into %q; mcp_servers.lore reads as %+v, %v:\n%s", data, got, err, out)
		}
		if a, b := rest(t, []byte(data)), rest(t, out); a != b {
			t.Fatalf("installing changed the rest of %q:\n%s\nwas\n%s\nnow\n%s", data, out, a, b)
		}
		if changed, err := editCodexTOML(path, entry); changed || err != nil {
			t.Fatalf("installing again: changed %v, %v", changed, err)
		}

		if _, err := editCodexTOML(path, nil); err != nil {
			t.Fatalf("uninstall after install: %v:\n%s", err, out)
		}
		after := read()
		if got, err := codexEntry(path, after); err != nil || got != nil {
			t.Fatalf("uninstalled; mcp_servers.lore reads as %+v, %v:\n%s", got, err, after)
		}
		if a, b := rest(t, []byte(data)), rest(t, after); a != b {
			t.Fatalf("install and uninstall changed the rest of %q:\n%s", data, after)
		}
		if before == nil && (data == "" || strings.HasSuffix(data, "\n")) && string(after) != data {
			t.Fatalf("install and uninstall changed\n%q\nto\n%q", data, after)
		}
	})
}

// opencode's plugin file may be anyone's: whatever it holds, lore reads its
// status without a panic, calls it its own only when it has lore's header,
// and never overwrites or removes a file without it. What lore installs
// runs exactly the command asked for (argvOf's words, read back from
// the LORE_ARGV line) and adds no line to the template, whatever the
// command holds.
func FuzzOpencodePlugin(f *testing.F) {
	ours, err := pluginText([]string{"/usr/local/bin/lore", "inject", "--stdin"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(ours), `"/opt/my tools/lore" inject --stdin --host-trusted`)
	f.Add([]byte(pluginHeader().ReplaceAllString(pluginTemplate, "// lore opencode plugin, version 0")), "lore inject --stdin")
	f.Add([]byte("export const Lore = async () => ({}) // someone else's\n"), "lore inject --stdin")
	f.Add([]byte("// lore opencode plugin, version 99999999999999999999\nconst LORE_ARGV = [1, \"x\"];\nconst LORE_ARGV = [\"a\"];\n"), `"a\"b" x`)
	f.Add([]byte{}, "lore\tinject\u2028--stdin\n</script>")
	a, err := FindAgent("opencode")
	if err != nil {
		f.Fatal(err)
	}
	tg, err := NewTarget(a, "project", f.TempDir(), UserDirs{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, existing []byte, command string) {
		if err := os.Remove(tg.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if len(existing) > 0 {
			if err := os.MkdirAll(filepath.Dir(tg.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tg.Path, existing, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, mine := pluginVersion(existing)
		st, err := Status(tg)
		if err != nil || len(st) == 0 || st[0].Installed != mine {
			t.Fatalf("status of %q: %+v, %v (lore's header: %v)", existing, st, err, mine)
		}
		if st[0].Command != "" && (!mine || !pluginArgv().Match(existing)) {
			t.Fatalf("status read command %q from a file without lore's header or LORE_ARGV line", st[0].Command)
		}

		_, err = Install(tg, command)
		if len(existing) > 0 && !mine {
			if err == nil {
				t.Fatalf("installed over a file without lore's header: %q", existing)
			}
			if got, _ := os.ReadFile(tg.Path); !bytes.Equal(got, existing) {
				t.Fatalf("a file without lore's header changed")
			}
			if _, err := Uninstall(tg); err == nil {
				t.Fatalf("uninstall removed a file without lore's header")
			}
			return
		}
		argv, splitErr := argvOf(command)
		if err != nil {
			if splitErr == nil {
				t.Fatalf("install of %q: %v", command, err)
			}
			return
		}
		plugin, _ := os.ReadFile(tg.Path)
		if strings.Count(string(plugin), "\n") != strings.Count(pluginTemplate, "\n") {
			t.Fatalf("command %q added lines to the plugin:\n%s", command, plugin)
		}
		st, err = Status(tg)
		if err != nil || !st[0].Installed || st[0].Problem != "" {
			t.Fatalf("after install: %+v, %v", st, err)
		}
		valid := !slices.ContainsFunc(argv, func(s string) bool { return !utf8.ValidString(s) })
		if valid && (st[0].Command != strings.Join(argv, " ") || st[0].Binary != argv[0]) {
			t.Fatalf("installed %q (argv %q); the plugin runs %q", command, argv, st[0].Command)
		}
		if removed, err := Uninstall(tg); !removed || err != nil {
			t.Fatalf("uninstall: %v %v", removed, err)
		}
		if _, err := os.Stat(tg.Path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the plugin is still there: %v", err)
		}
	})
}
