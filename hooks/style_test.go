package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// windowsStyle is s with CRLF line endings, after a byte-order mark.
func windowsStyle(s string) string { return bom + strings.ReplaceAll(s, "\n", "\r\n") }

// checkWindowsStyle fails unless data starts with one byte-order mark and
// ends every line with CRLF.
func checkWindowsStyle(t *testing.T, what string, data []byte) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(bom)) || bytes.HasPrefix(data[len(bom):], []byte(bom)) {
		t.Errorf("%s: the byte-order mark was lost or doubled:\n%q", what, data)
	}
	if lf, crlf := bytes.Count(data, []byte("\n")), bytes.Count(data, []byte("\r\n")); lf == 0 || lf != crlf {
		t.Errorf("%s: %d line endings, %d of them CRLF:\n%q", what, lf, crlf, data)
	}
}

// A settings file a Windows editor wrote, BOM and CRLF, keeps both through
// lore's hooks install and uninstall, and its content comes back as it was.
func TestHooksKeepBOMAndCRLF(t *testing.T) {
	orig := windowsStyle("{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"./guard.sh\"\n          }\n        ]\n      }\n    ]\n  }\n}\n")
	for _, name := range []string{"claude", "codex", "gemini"} {
		a, _ := FindAgent(name)
		tg, err := NewTarget(a, "project", t.TempDir(), UserDirs{})
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(tg.Path), 0o755)
		os.WriteFile(tg.Path, []byte(orig), 0o644)
		if changed, err := Install(tg, "lore inject --stdin"); err != nil || !changed {
			t.Fatalf("%s: install: %v %v", name, changed, err)
		}
		data, _ := os.ReadFile(tg.Path)
		checkWindowsStyle(t, name+" install", data)
		if st, err := Status(tg); err != nil || !st[0].Installed {
			t.Errorf("%s: status after install: %+v %v", name, st, err)
		}
		if changed, err := Uninstall(tg); err != nil || !changed {
			t.Fatalf("%s: uninstall: %v %v", name, changed, err)
		}
		if got, _ := os.ReadFile(tg.Path); string(got) != orig {
			t.Errorf("%s: after uninstall:\n%q\nwant\n%q", name, got, orig)
		}
	}
}

// The same for lore's MCP server in the JSON hosts' configurations.
func TestMCPKeepsBOMAndCRLF(t *testing.T) {
	for _, h := range MCPHosts() {
		if h.TOML {
			continue
		}
		orig := windowsStyle("{\n  \"theme\": \"dark\",\n  \"" + h.Key + "\": {\n    \"github\": {\n      \"command\": \"gh-mcp\"\n    }\n  }\n}\n")
		tg, err := NewMCPTarget(h, "project", t.TempDir(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(tg.Path), 0o755)
		os.WriteFile(tg.Path, []byte(orig), 0o644)
		if changed, err := InstallMCP(tg, "/usr/local/bin/lore"); err != nil || !changed {
			t.Fatalf("%s: install: %v %v", h.Name, changed, err)
		}
		data, _ := os.ReadFile(tg.Path)
		checkWindowsStyle(t, h.Name+" install", data)
		if e, err := MCPStatus(tg); err != nil || e == nil || e.Command != "/usr/local/bin/lore" {
			t.Errorf("%s: status after install: %+v %v", h.Name, e, err)
		}
		if changed, err := UninstallMCP(tg); err != nil || !changed {
			t.Fatalf("%s: uninstall: %v %v", h.Name, changed, err)
		}
		if got, _ := os.ReadFile(tg.Path); string(got) != orig {
			t.Errorf("%s: after uninstall:\n%q\nwant\n%q", h.Name, got, orig)
		}
	}
}

// A file of LF lines without a mark stays so; a mixed file takes the
// ending most of its lines have.
func TestInStyleOf(t *testing.T) {
	out := []byte("{\n  \"a\": 1\n}\n")
	for _, c := range []struct{ orig, want string }{
		{"", "{\n  \"a\": 1\n}\n"},
		{"{}\n", "{\n  \"a\": 1\n}\n"},
		{"{}", "{\n  \"a\": 1\n}\n"},
		{"{\r\n}\r\n", "{\r\n  \"a\": 1\r\n}\r\n"},
		{"{\r\n\n}\r\n", "{\r\n  \"a\": 1\r\n}\r\n"},
		{"{\r\n\n\n}\n", "{\n  \"a\": 1\n}\n"},
		{bom + "{}", bom + "{\n  \"a\": 1\n}\n"},
	} {
		if got := inStyleOf([]byte(c.orig), out); string(got) != c.want {
			t.Errorf("inStyleOf(%q) = %q, want %q", c.orig, got, c.want)
		}
	}
}
