package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// geminiSettings is a user's Gemini CLI settings.json as people write it:
// comments of both kinds, on lines of their own and after values, a hook
// and an MCP server of their own.
const geminiSettings = `{
  // my Gemini settings
  "theme": "GitHub", // the light one
  /* hooks of my own */
  "hooks": {
    "BeforeAgent": [
      {
        // checks the prompt first
        "hooks": [
          {
            "name": "guard",
            "type": "command",
            "command": "./guard.sh"
          }
        ]
      }
    ]
  },
  "mcpServers": {
    "github": {"command": "gh-mcp"} // the GitHub server
  }
}
`

// commentsOf is the text of each comment in data, in order.
func commentsOf(data []byte) []string {
	_, spans := blankComments(data)
	var out []string
	for _, c := range spans {
		out = append(out, string(data[c.start:c.end]))
	}
	return out
}

func geminiTarget(t *testing.T, content string) Target {
	t.Helper()
	a, _ := FindAgent("gemini")
	tg, err := NewTarget(a, "project", t.TempDir(), UserDirs{})
	if err != nil {
		t.Fatal(err)
	}
	writeSettingsFile(t, tg.Path, content)
	return tg
}

// Gemini CLI reads its settings with comments allowed (strip-json-comments,
// then JSON.parse), and writes them back keeping them: lore's hooks status,
// install and uninstall, and its MCP server's, read such a file and keep
// every comment, and uninstall gives back the file as it was, byte for
// byte, in a Windows editor's style too.
func TestGeminiSettingsKeepTheirComments(t *testing.T) {
	for _, orig := range []string{geminiSettings, windowsStyle(geminiSettings)} {
		tg := geminiTarget(t, orig)
		want := commentsOf([]byte(orig))
		check := func(what string) []byte {
			t.Helper()
			data, _ := os.ReadFile(tg.Path)
			if got := commentsOf(data); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: comments %q, want %q\n%s", what, got, want, data)
			}
			if _, err := parseFile(data, true); err != nil {
				t.Errorf("%s: %v\n%s", what, err, data)
			}
			if strings.HasPrefix(orig, bom) {
				checkWindowsStyle(t, what, data)
			}
			return data
		}
		st, err := Status(tg)
		if err != nil || st[0].Installed {
			t.Fatalf("status: %+v %v", st, err)
		}
		if changed, err := Install(tg, "lore inject --stdin"); err != nil || !changed {
			t.Fatalf("install: %v %v", changed, err)
		}
		installed := check("install")
		if !strings.Contains(string(installed), "        // checks the prompt first\n") && !strings.Contains(string(installed), "        // checks the prompt first\r\n") {
			t.Errorf("install moved the user's lines:\n%s", installed)
		}
		if st, err := Status(tg); err != nil || !st[0].Installed || !st[2].Installed {
			t.Errorf("status after install: %+v %v", st, err)
		}
		if changed, err := Install(tg, "lore inject --stdin"); err != nil || changed {
			t.Errorf("a second install: %v %v", changed, err)
		}
		if changed, err := Install(tg, "/opt/lore inject --stdin"); err != nil || !changed {
			t.Fatalf("install from another binary: %v %v", changed, err)
		}
		check("install from another binary")
		mcp := MCPTarget{Host: MCPHosts()[3], Scope: "project", Path: tg.Path}
		if mcp.Host.Name != "gemini" {
			t.Fatal(mcp.Host.Name)
		}
		if changed, err := InstallMCP(mcp, "/opt/lore"); err != nil || !changed {
			t.Fatalf("mcp install: %v %v", changed, err)
		}
		check("mcp install")
		if e, err := MCPStatus(mcp); err != nil || e == nil || e.Command != "/opt/lore" {
			t.Errorf("mcp status: %+v %v", e, err)
		}
		if changed, err := UninstallMCP(mcp); err != nil || !changed {
			t.Fatalf("mcp uninstall: %v %v", changed, err)
		}
		if changed, err := Uninstall(tg); err != nil || !changed {
			t.Fatalf("uninstall: %v %v", changed, err)
		}
		if got, _ := os.ReadFile(tg.Path); string(got) != orig {
			t.Errorf("after uninstall:\n%s\nwant\n%s", got, orig)
		}
	}
}

// VS Code's mcp.json is JSON with comments, as VS Code writes it: lore's
// server goes in and comes out leaving the user's comments and servers as
// they were.
func TestVSCodeMCPKeepsItsComments(t *testing.T) {
	const mine = `{
  // servers this team runs
  "servers": {
    "github": {
      "type": "http", /* the hosted one */
      "url": "https://api.githubcopilot.com/mcp/"
    }
  }
}
`
	host, err := FindMCPHost("vscode")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), ".vscode", "mcp.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(mine), 0o644)
	tg := MCPTarget{Host: host, Scope: "project", Path: path}
	if changed, err := InstallMCP(tg, "/opt/lore"); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	got, _ := os.ReadFile(path)
	for _, kept := range []string{"// servers this team runs", "/* the hosted one */", `"github"`} {
		if !strings.Contains(string(got), kept) {
			t.Errorf("install lost %s:\n%s", kept, got)
		}
	}
	if e, err := MCPStatus(tg); err != nil || e == nil || e.Command != "/opt/lore" {
		t.Errorf("status: %+v %v", e, err)
	}
	if changed, err := UninstallMCP(tg); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if got, _ := os.ReadFile(path); string(got) != mine {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, mine)
	}
}

// What lore would have to rewrite without a comment (the user's note
// inside lore's own hook) is refused, naming the file and the comment's
// line, and the file is left as it was.
func TestGeminiCommentLoreWouldDropIsRefused(t *testing.T) {
	tg := geminiTarget(t, geminiSettings)
	if _, err := Install(tg, "lore inject --stdin"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(tg.Path)
	mine := strings.Replace(string(data), `"name": "lore",`, `"name": "lore", // keep it fast`, 1)
	os.WriteFile(tg.Path, []byte(mine), 0o644)
	line := 1 + strings.Count(mine[:strings.Index(mine, "// keep it fast")], "\n")
	_, err := Uninstall(tg)
	want := tg.Path + ": line " + strconv.Itoa(line) + `: this comment is inside "hooks.BeforeAgent[1]", which lore would rewrite without it; lore has not changed it`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("uninstall: %v\nwant %s…", err, want)
	}
	if got, _ := os.ReadFile(tg.Path); string(got) != mine {
		t.Errorf("the file changed:\n%s", got)
	}
	// Status reads it all the same.
	if st, err := Status(tg); err != nil || !st[0].Installed {
		t.Errorf("status: %+v %v", st, err)
	}
}

// Only Gemini CLI's settings and VS Code's mcp.json may hold comments;
// lore keeps those, not a trailing comma, and still tells another host's
// commented file from a broken one.
func TestCommentsOnlyWhereTheHostAllowsThem(t *testing.T) {
	tg := geminiTarget(t, "{\n  // mine\n  \"theme\": \"dark\",\n}\n")
	if _, err := Status(tg); err == nil || !strings.Contains(err.Error(), "line 4: a trailing comma, which lore does not rewrite") {
		t.Errorf("a trailing comma in Gemini's settings: %v", err)
	}
	a, _ := FindAgent("claude")
	claude, _ := NewTarget(a, "project", filepath.Dir(filepath.Dir(tg.Path)), UserDirs{})
	os.MkdirAll(filepath.Dir(claude.Path), 0o755)
	os.WriteFile(claude.Path, []byte("{\n  // mine\n  \"model\": \"sonnet\"\n}\n"), 0o644)
	if _, err := Install(claude, "lore inject --stdin"); err == nil || !strings.Contains(err.Error(), "line 2: JSON with comments") {
		t.Errorf("Claude Code's settings with a comment: %v", err)
	}
}

// Splicing lore's change into a commented file, as lore's edits do it:
// what lore adds goes in the file's indentation, what it removes takes its
// lines with it, and the comments stay where they were.
func TestSplice(t *testing.T) {
	for _, c := range []struct {
		name, in string
		change   func(root *object)
		want     string
	}{
		{"add to an empty object", "// c\n{}\n", func(r *object) { r.set("k", mustJSON(1)) }, "// c\n{\n  \"k\": 1\n}\n"},
		{"add after a commented member", "{\n\t\"a\": 1 // one\n}\n", func(r *object) { r.set("k", mustJSON([]int{1})) },
			"{\n\t\"a\": 1, // one\n\t\"k\": [\n\t\t1\n\t]\n}\n"},
		{"remove the last member", "{\n  \"a\": 1, // one\n  \"b\": 2\n}\n", func(r *object) { r.del("b") }, "{\n  \"a\": 1 // one\n}\n"},
		{"remove the first member", "{\n  \"a\": 1,\n  // about b\n  \"b\": 2\n}\n", func(r *object) { r.del("a") }, "{\n  // about b\n  \"b\": 2\n}\n"},
		{"remove the only member", "{ /* c */\n  \"a\": {\n    \"x\": 1\n  }\n}\n", func(r *object) { r.del("a") }, "{ /* c */\n}\n"},
		{"change a nested value", "{\n  \"a\": {\"x\": 1, /* y */ \"y\": 2}\n}\n", func(r *object) { r.set("a", mustJSON(map[string]int{"x": 3, "y": 2})) },
			"{\n  \"a\": {\"x\": 3, /* y */ \"y\": 2}\n}\n"},
		{"a comment only", "// nothing yet", func(r *object) { r.set("k", mustJSON(true)) }, "// nothing yet\n{\n  \"k\": true\n}\n"},
	} {
		blank, _ := blankComments([]byte(c.in))
		root, err := parseJSON(blank, true)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		c.change(root)
		got, err := splice([]byte(c.in), root)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %v\n%s\nwant\n%s", c.name, err, got, c.want)
		}
	}
}

// A container that holds only comments, as people leave one for later
// ("servers": { // add servers here }), takes lore's entry after them, and
// uninstall, which drops a container it has emptied, keeps this one with
// its comments: install then uninstall gives the file back byte for byte,
// in a Windows editor's style too.
func TestCommentOnlyContainerRoundTrips(t *testing.T) {
	vscode, _ := FindMCPHost("vscode")
	gemini, _ := FindMCPHost("gemini")
	hooks := func(tg MCPTarget) (install, uninstall func() (bool, error)) {
		a, _ := FindAgent("gemini")
		ht := Target{Agent: a, Scope: "project", Path: tg.Path}
		return func() (bool, error) { return Install(ht, "lore inject --stdin") }, func() (bool, error) { return Uninstall(ht) }
	}
	mcp := func(tg MCPTarget) (install, uninstall func() (bool, error)) {
		return func() (bool, error) { return InstallMCP(tg, "/opt/lore") }, func() (bool, error) { return UninstallMCP(tg) }
	}
	for _, c := range []struct {
		name  string
		host  MCPHost
		edits func(MCPTarget) (install, uninstall func() (bool, error))
		in    string
	}{
		{"vscode: a comment alone", vscode, mcp, "{\n  \"servers\": {\n    // add servers here\n  }\n}\n"},
		{"vscode: comments before and after", vscode, mcp, "{\n  \"servers\": { // mine\n    /* add servers here */\n  } // the end\n}\n"},
		{"vscode: tabs", vscode, mcp, "{\n\t\"servers\": {\n\t\t// add servers here\n\t}\n}\n"},
		{"vscode: on one line", vscode, mcp, "{\"servers\": { /* add servers here */ }}"},
		{"vscode: no space", vscode, mcp, "{\"servers\": {/* add servers here */}}"},
		{"vscode: another member", vscode, mcp, "{\n  \"inputs\": [],\n  \"servers\": {\n    // add servers here\n  }\n}\n"},
		{"gemini mcp: a comment alone", gemini, mcp, "{\n  \"mcpServers\": {\n    // add servers here\n  }\n}\n"},
		{"gemini mcp: the closing bracket after a comment", gemini, mcp, "{\n  \"mcpServers\": { // mine\n    /* add servers here */ }\n}\n"},
		{"gemini hooks: an event's comment", gemini, hooks, "{\n  \"hooks\": {\n    \"BeforeAgent\": [\n      // mine\n    ]\n  }\n}\n"},
		{"gemini hooks: the hooks' comment", gemini, hooks, "{\n  \"theme\": \"GitHub\",\n  \"hooks\": {\n    // lore's and mine\n  }\n}\n"},
		{"gemini hooks: an event's comment, another event's hook", gemini, hooks,
			"{\n  \"hooks\": {\n    \"Notification\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./n.sh\"}]}],\n    \"AfterAgent\": [\n      /* mine */\n    ]\n  }\n}\n"},
	} {
		for _, in := range []string{c.in, windowsStyle(c.in)} {
			path := filepath.Join(t.TempDir(), "settings.json")
			writeSettingsFile(t, path, in)
			install, uninstall := c.edits(MCPTarget{Host: c.host, Scope: "project", Path: path})
			if changed, err := install(); err != nil || !changed {
				t.Errorf("%s: install: %v %v", c.name, changed, err)
				continue
			}
			installed, _ := os.ReadFile(path)
			if got, want := commentsOf(installed), commentsOf([]byte(in)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: install: comments %q, want %q", c.name, got, want)
			}
			if changed, err := uninstall(); err != nil || !changed {
				t.Errorf("%s: uninstall: %v %v\n%s", c.name, changed, err, installed)
				continue
			}
			if got, _ := os.ReadFile(path); string(got) != in {
				t.Errorf("%s: after uninstall\n%q\nwant\n%q\ninstalled\n%s", c.name, got, in, installed)
			}
			if changed, err := uninstall(); err != nil || changed {
				t.Errorf("%s: a second uninstall: %v %v", c.name, changed, err)
			}
		}
	}
}

// Lore's entry, the only one, between the user's comments: uninstall
// takes its lines and keeps the container with the comments; a comment
// inside lore's own entry is still refused, naming its line.
func TestUninstallKeepsCommentsAroundTheOnlyEntry(t *testing.T) {
	host, _ := FindMCPHost("vscode")
	for _, c := range []struct{ in, want, err string }{
		{"{\n  \"servers\": {\n    // before\n    \"lore\": {\"command\": \"/opt/lore\", \"args\": [\"mcp\"]}\n    // after\n  }\n}\n",
			"{\n  \"servers\": {\n    // before\n    // after\n  }\n}\n", ""},
		{"{\n  \"servers\": {\n    \"lore\": {\"command\": \"/opt/lore\", \"args\": [\"mcp\"]} // lore's\n  }\n}\n",
			"{\n  \"servers\": {\n    // lore's\n  }\n}\n", ""},
		{"{\n  \"servers\": {\n    /* first */ \"lore\": {\"command\": \"/opt/lore\", \"args\": [\"mcp\"]}, /* second */\n    \"x\": {\"command\": \"x\"}\n  }\n}\n",
			"{\n  \"servers\": {\n    /* first */ /* second */\n    \"x\": {\"command\": \"x\"}\n  }\n}\n", ""},
		{"{\n  \"servers\": {\n    \"lore\": {\n      \"command\": \"/opt/lore\", // mine\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n",
			"", `line 4: this comment is inside "servers", which lore would rewrite without it`},
	} {
		path := filepath.Join(t.TempDir(), "mcp.json")
		writeSettingsFile(t, path, c.in)
		changed, err := UninstallMCP(MCPTarget{Host: host, Scope: "project", Path: path})
		got, _ := os.ReadFile(path)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || string(got) != c.in {
				t.Errorf("%q: %v, want %s, and the file as it was:\n%s", c.in, err, c.err, got)
			}
			continue
		}
		if err != nil || !changed || string(got) != c.want {
			t.Errorf("%q: %v %v\n%q\nwant\n%q", c.in, changed, err, got, c.want)
		}
	}
}

// FuzzGeminiComments: whatever commented settings Gemini CLI's lore edits
// meet, an edit either is refused and leaves the file as it was, or keeps
// every comment, in order, and leaves the same settings as the same edit
// of the file with its comments blanked out.
func FuzzGeminiComments(f *testing.F) {
	f.Add([]byte(geminiSettings))
	f.Add([]byte(windowsStyle(geminiSettings)))
	f.Add([]byte("// c\n{}"))
	f.Add([]byte(`{/* a */"hooks": {"AfterAgent": [{"hooks": [{"command": "lore inject --stdin"} /* b */]}]}}`))
	f.Add([]byte("{\"hooks\": {\"SessionStart\": [ // x\n {\"hooks\": [{\"command\": \"lore inject --stdin\"}, {\"command\": \"y\"}]}]}, \"mcpServers\": {\"lore\": {\"command\": \"lore\", \"args\": [\"mcp\"]} // l\n}}"))
	f.Add([]byte("{\"hooks\": {\"BeforeAgent\": [\n // mine\n]}, \"mcpServers\": { /* add servers here */ }}"))
	a, _ := FindAgent("gemini")
	f.Fuzz(func(t *testing.T, data []byte) {
		blank, spans := blankComments(data)
		if len(spans) == 0 {
			return
		}
		if _, err := parseFile(data, true); err != nil {
			return
		}
		dir := t.TempDir()
		commented, _ := NewTarget(a, "project", filepath.Join(dir, "c"), UserDirs{})
		plain, _ := NewTarget(a, "project", filepath.Join(dir, "p"), UserDirs{})
		for _, tg := range []Target{commented, plain} {
			os.MkdirAll(filepath.Dir(tg.Path), 0o755)
		}
		os.WriteFile(commented.Path, data, 0o644)
		os.WriteFile(plain.Path, blank, 0o644)
		mcp := func(tg Target) MCPTarget { return MCPTarget{Host: MCPHosts()[3], Scope: "project", Path: tg.Path} }
		for _, step := range []struct {
			name string
			do   func(Target) (bool, error)
		}{
			{"install", func(tg Target) (bool, error) { return Install(tg, "lore inject --stdin") }},
			{"mcp install", func(tg Target) (bool, error) { return InstallMCP(mcp(tg), "/opt/lore") }},
			{"uninstall", Uninstall},
			{"mcp uninstall", func(tg Target) (bool, error) { return UninstallMCP(mcp(tg)) }},
		} {
			before, _ := os.ReadFile(commented.Path)
			_, err := step.do(commented)
			got, _ := os.ReadFile(commented.Path)
			if err != nil {
				if string(got) != string(before) {
					t.Fatalf("%s: refused (%v) but changed the file:\n%q\nto\n%q", step.name, err, before, got)
				}
				return
			}
			if _, err := step.do(plain); err != nil {
				t.Fatalf("%s: the commented file took it, the plain one not: %v", step.name, err)
			}
			if c, w := commentsOf(got), commentsOf(data); !reflect.DeepEqual(c, w) {
				t.Fatalf("%s: comments %q, want %q in\n%q", step.name, c, w, got)
			}
			gotRoot, err := parseFile(got, true)
			if err != nil {
				t.Fatalf("%s: %v in\n%q", step.name, err, got)
			}
			want, _ := os.ReadFile(plain.Path)
			wantRoot, _ := parseFile(want, false)
			// The same values (invalid UTF-8 read alike: the splice keeps
			// the user's bytes, a rewrite does not) and key order, but for
			// the emptied containers a splice keeps for their comments.
			var g, w any
			json.Unmarshal(mustJSON(gotRoot), &g)
			json.Unmarshal(mustJSON(wantRoot), &w)
			g = withoutHollow(g, w)
			if !reflect.DeepEqual(g, w) || len(g.(map[string]any)) != len(wantRoot.keys) {
				t.Fatalf("%s: settings\n%s\nwant\n%s\nfrom\n%q", step.name, mustJSON(gotRoot), mustJSON(wantRoot), got)
			}
		}
	})
}

// withoutHollow is got without the members want lacks that hold nothing
// but empty objects and arrays: those a splice keeps for their comments.
func withoutHollow(got, want any) any {
	switch g := got.(type) {
	case map[string]any:
		w, _ := want.(map[string]any)
		out := map[string]any{}
		for k, v := range g {
			if wv, ok := w[k]; ok {
				out[k] = withoutHollow(v, wv)
			} else if !isHollow(v) {
				out[k] = v
			}
		}
		return out
	case []any:
		w, _ := want.([]any)
		if len(w) != len(g) {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			out[i] = withoutHollow(g[i], w[i])
		}
		return out
	}
	return got
}

func isHollow(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, x := range v {
			if !isHollow(x) {
				return false
			}
		}
		return true
	}
	return false
}
