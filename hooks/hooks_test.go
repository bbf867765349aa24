package hooks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestObjectKeepsKeyOrder(t *testing.T) {
	in := `{"z": 1, "a": {"y": [1, 2], "b": null}, "m": "x"}`
	o, err := parseSettings([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.keys, []string{"z", "a", "m"}) {
		t.Fatalf("keys %v", o.keys)
	}
	out, _ := render(o)
	if !strings.HasPrefix(string(out), "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": [") {
		t.Errorf("render lost order or indentation:\n%s", out)
	}
}

func TestCommandQuotingAndBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the commands below are sh's")
	}
	for _, c := range []struct{ bin, scope, cmd string }{
		{"/usr/local/bin/lore", "user", "/usr/local/bin/lore inject --stdin"},
		{"/usr/local/bin/lore", "project", "/usr/local/bin/lore inject --stdin --host-trusted"},
		{"/Users/Ada Lovelace/go/bin/lore", "user", `'/Users/Ada Lovelace/go/bin/lore' inject --stdin`},
		{"/home/ada/bin/lore-dev", "user", "/home/ada/bin/lore-dev inject --stdin"},
		{"/opt/R&D/lore", "user", `'/opt/R&D/lore' inject --stdin`},
		{"/opt/cost$5/lore", "user", `'/opt/cost$5/lore' inject --stdin`},
		{"/opt/it's/lore", "user", `'/opt/it'\''s/lore' inject --stdin`},
	} {
		got := Command(c.bin, c.scope)
		if got != c.cmd {
			t.Errorf("Command(%q) = %q, want %q", c.bin, got, c.cmd)
		}
		if !(Target{}).Runs(got) || binaryOf(got) != c.bin {
			t.Errorf("%q: recognised=%v binary=%q", got, (Target{}).Runs(got), binaryOf(got))
		}
	}
	for cmd, bin := range map[string]string{
		"LORE_CONTEXT_BUDGET=500 /usr/local/bin/lore inject --stdin": "/usr/local/bin/lore",
		`"/opt/my tools/lore" inject --stdin`:                        "/opt/my tools/lore",
		`/opt/my\ tools/lore inject --stdin`:                         "/opt/my tools/lore",
	} {
		if !(Target{}).Runs(cmd) || binaryOf(cmd) != bin {
			t.Errorf("%q: recognised=%v binary=%q, want %q", cmd, (Target{}).Runs(cmd), binaryOf(cmd), bin)
		}
	}
	for _, other := range []string{"echo lore", "./scripts/guard.sh", "explore inject --stdin", "lore resume", "lorem inject --stdin",
		"folklore-x inject --stdin", "echo 'lore inject --stdin'", `echo "lore inject --stdin" >> log`, "X=lore inject --stdin"} {
		if (Target{}).Runs(other) {
			t.Errorf("%q taken for lore's hook", other)
		}
	}
}

// sh runs the program Command names, whatever the characters of its path.
func TestCommandRunsTheBinaryInSh(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	for _, dir := range []string{"R&D", "cost$5", "it's", "a b;c`d`", `back\slash`} {
		bin := filepath.Join(t.TempDir(), dir, "lore")
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"ran $*\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("sh", "-c", Command(bin, "user")).CombinedOutput()
		if err != nil || string(out) != "ran inject --stdin\n" {
			t.Errorf("%s: %q, %v", Command(bin, "user"), out, err)
		}
	}
}

// A lore binary installed under another name (mem) writes its own path:
// status, a second install and uninstall must know that hook as lore's,
// and nothing else that runs mem.
func TestRenamedBinaryFindsItsHooks(t *testing.T) {
	a, _ := FindAgent("claude")
	tg, err := NewTarget(a, "project", t.TempDir(), UserDirs{})
	if err != nil {
		t.Fatal(err)
	}
	tg.Self = "/opt/bin/mem"
	for cmd, want := range map[string]bool{
		"/opt/bin/mem inject --stdin --host-trusted": true,
		"mem inject --stdin":                         true,
		"/opt/bin/mem resume":                        false,
		"/usr/bin/mem inject --stdin":                false,
		"/opt/bin/memo inject --stdin":               false,
		"/opt/tools/memory-bin":                      false,
	} {
		if got := tg.Runs(cmd); got != want {
			t.Errorf("Runs(%q) = %v, want %v", cmd, got, want)
		}
	}
	cmd := Command(tg.Self, tg.Scope)
	if changed, err := Install(tg, cmd); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	if changed, err := Install(tg, cmd); err != nil || changed {
		t.Fatalf("a second install changed the file: %v %v", changed, err)
	}
	st, err := Status(tg)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range st {
		if !ev.Installed || ev.Command != cmd {
			t.Errorf("%s: installed %v, command %q", ev.Event, ev.Installed, ev.Command)
		}
	}
	if changed, err := Uninstall(tg); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if data, _ := os.ReadFile(tg.Path); strings.Contains(string(data), "mem") {
		t.Errorf("uninstall left lore's hook:\n%s", data)
	}
}

func TestInstallThenUninstallRestoresTheFile(t *testing.T) {
	for _, a := range Agents() {
		dir := t.TempDir()
		tg, err := NewTarget(a, "project", dir, UserDirs{})
		if err != nil {
			t.Fatal(err)
		}
		// A user's own hook with characters JSON may escape as HTML: they
		// come back as written.
		orig := "{\n  \"theme\": \"dark\",\n  \"lint\": \"npm run lint && echo <ok>\"\n}\n"
		if a.Plugin {
			orig = "" // lore's plugin is a file of its own
		} else {
			os.MkdirAll(filepath.Dir(tg.Path), 0o755)
			os.WriteFile(tg.Path, []byte(orig), 0o644)
		}
		if changed, err := Install(tg, "lore inject --stdin"); err != nil || !changed {
			t.Fatalf("%s: install: %v %v", a.Name, changed, err)
		}
		st, _ := Status(tg)
		for _, ev := range st {
			if !ev.Installed {
				t.Errorf("%s: %s not installed", a.Name, ev.Event)
			}
		}
		if changed, _ := Install(tg, "lore inject --stdin"); changed {
			t.Errorf("%s: a second install changed the file", a.Name)
		}
		if _, err := Uninstall(tg); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(tg.Path); string(got) != orig {
			t.Errorf("%s: after uninstall:\n%s", a.Name, got)
		}
	}
}

// FuzzParseSettings: any bytes parse or are refused, never a panic; what
// parses renders to JSON that parses back to the same keys.
func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"x"}]}]}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := parseSettings(data)
		if err != nil {
			return
		}
		out, err := render(o)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		back, err := parseSettings(out)
		if err != nil || !reflect.DeepEqual(back.keys, o.keys) {
			t.Fatalf("round trip: %v %v %v", err, back, o.keys)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out")
		}
	})
}

// A settings file that is a symbolic link (dotfiles kept in a repository
// of their own) is written through: the link stays, its target changes.
func TestInstallWritesThroughASymlink(t *testing.T) {
	a, _ := FindAgent("claude")
	home := t.TempDir()
	tg, err := NewTarget(a, "project", home, UserDirs{})
	if err != nil {
		t.Fatal(err)
	}
	dotfiles := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(dotfiles, []byte("{\"theme\": \"dark\"}\n"), 0o644)
	os.MkdirAll(filepath.Dir(tg.Path), 0o755)
	if err := os.Symlink(dotfiles, tg.Path); err != nil {
		t.Skip(err)
	}
	if _, err := Install(tg, "lore inject --stdin"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(tg.Path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(dotfiles); !strings.Contains(string(data), "lore inject --stdin") || !strings.Contains(string(data), "dark") {
		t.Errorf("the link's target: %s", data)
	}
}

// A settings file with comments or trailing commas (VS Code's mcp.json
// allows them) is refused untouched, saying why, not as broken JSON.
func TestJSONCIsNamedAsSuch(t *testing.T) {
	for _, c := range []struct {
		in    string
		jsonc bool
	}{
		{"{\n // mine\n \"servers\": {\"x\": {\"command\": \"a//b\"},},\n}\n", true},
		{"{/* a */ \"k\": [1, 2,], \"s\": \"x\\\" /* not a comment */\"}", true},
		{"{\"k\": 1,, }", false},
		{"{\"k\": [,]}", false},
		{"{\"k\": \"unterminated}", false},
	} {
		_, err := parseSettings([]byte(c.in))
		if err == nil || strings.Contains(err.Error(), "JSON with comments or trailing commas") != c.jsonc {
			t.Errorf("parseSettings(%q): %v, want JSONC named: %v", c.in, err, c.jsonc)
		}
	}
}

// A user's VAR=value before lore's hook command is theirs: status reads the
// binary after it, and an install that moves the binary keeps it.
func TestInstallKeepsTheUsersEnvironmentPrefix(t *testing.T) {
	a, _ := FindAgent("claude")
	tg, err := NewTarget(a, "project", t.TempDir(), UserDirs{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(tg, "/old/lore inject --stdin --host-trusted"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(tg.Path)
	os.WriteFile(tg.Path, []byte(strings.ReplaceAll(string(data), `"/old/lore`, `"LORE_CONTEXT_BUDGET=500 /old/lore`)), 0o644)
	if st, _ := Status(tg); !st[0].Installed || st[0].Binary != "/old/lore" {
		t.Fatalf("status %+v, want lore's hook run by /old/lore", st[0])
	}
	if changed, err := Install(tg, "/new/lore inject --stdin --host-trusted"); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	if st, _ := Status(tg); st[0].Command != "LORE_CONTEXT_BUDGET=500 /new/lore inject --stdin --host-trusted" {
		t.Errorf("command %q, want the prefix kept before the new binary", st[0].Command)
	}
	if changed, _ := Install(tg, "/new/lore inject --stdin --host-trusted"); changed {
		t.Error("a second install changed the file")
	}
}
