package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// switchCase installs lore's hooks for agent at project scope in a fresh
// repository and home, writes files (relative paths: "home/…" or
// "repo/…") and returns the status's problems, one per event.
func switchCase(t *testing.T, agent string, files map[string]string) []string {
	t.Helper()
	base := t.TempDir()
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "repo")
	a, _ := FindAgent(agent)
	tg, err := NewTarget(a, "project", repo, UserDirs{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(tg.Path), 0o755)
	if _, err := Install(tg, "lore inject --stdin"); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		if p == tg.Path {
			// The switch goes in next to lore's hooks, as a user would set it.
			data, _ := os.ReadFile(p)
			content = strings.Replace(string(data), "{", "{"+content+",", 1)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Status(tg)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, ev := range st {
		if !ev.Installed {
			t.Fatalf("%s: %s not installed", agent, ev.Event)
		}
		problems = append(problems, strings.ReplaceAll(ev.Problem, base+string(filepath.Separator), ""))
	}
	return problems
}

func TestStatusNamesTheSettingThatTurnsHooksOff(t *testing.T) {
	const claudeOff = `disabled by "disableAllHooks": true in %s, which turns off all of Claude Code's hooks`
	const geminiOff = `disabled by "hooksConfig": {"enabled": false} in %s, which turns off all of Gemini CLI's hooks`
	for _, c := range []struct {
		name, agent string
		files       map[string]string
		want        string // the problem's start, %s the file; "" for none
	}{
		{"claude, none", "claude", nil, ""},
		{"claude, in lore's file", "claude", map[string]string{"repo/.claude/settings.json": `"disableAllHooks": true`}, claudeOff},
		{"claude, in the user's", "claude", map[string]string{"home/.claude/settings.json": `{"disableAllHooks": true}`}, claudeOff},
		{"claude, in the local file", "claude", map[string]string{"repo/.claude/settings.local.json": "\ufeff{\"disableAllHooks\": true}"}, claudeOff},
		{"claude, user's undone by the project's", "claude", map[string]string{
			"home/.claude/settings.json": `{"disableAllHooks": true}`, "repo/.claude/settings.json": `"disableAllHooks": false`}, ""},
		{"claude, project's undone by the local file", "claude", map[string]string{
			"repo/.claude/settings.json": `"disableAllHooks": true`, "repo/.claude/settings.local.json": `{"disableAllHooks": false}`}, ""},
		{"claude, only true turns them off", "claude", map[string]string{"repo/.claude/settings.json": `"disableAllHooks": "yes"`}, ""},
		{"gemini, none", "gemini", map[string]string{"home/.gemini/settings.json": `{"hooksConfig": {"enabled": true}}`}, ""},
		{"gemini, in lore's file", "gemini", map[string]string{"repo/.gemini/settings.json": `"hooksConfig": {"enabled": false}`}, geminiOff},
		{"gemini, in the user's, with comments", "gemini", map[string]string{
			"home/.gemini/settings.json": "{\n  // off for now\n  \"hooksConfig\": {\"enabled\": false,},\n}"}, geminiOff},
		{"gemini, user's undone by the project's", "gemini", map[string]string{
			"home/.gemini/settings.json": `{"hooksConfig": {"enabled": false}}`, "repo/.gemini/settings.json": `"hooksConfig": {"enabled": true}`}, ""},
		{"gemini, lore's hook by name", "gemini", map[string]string{"home/.gemini/settings.json": `{"hooksConfig": {"disabled": ["other", "lore"]}}`},
			`disabled by "hooksConfig": {"disabled": ["lore"]} in %s: remove it from that list`},
		{"gemini, another hook", "gemini", map[string]string{"home/.gemini/settings.json": `{"hooksConfig": {"disabled": ["lore inject --stdin"]}}`}, ""},
		{"codex has no such setting", "codex", map[string]string{"repo/.codex/hooks.json": `"disableAllHooks": true`}, ""},
	} {
		want := c.want
		for f := range c.files {
			// Every case that expects a problem writes one file, the one named.
			want = strings.Replace(want, "%s", filepath.FromSlash(f), 1)
		}
		for _, p := range switchCase(t, c.agent, c.files) {
			if c.agent == "codex" {
				// Codex's own problem (an untrusted project) is all there is.
				if strings.Contains(p, "disable") {
					t.Errorf("%s: problem %q", c.name, p)
				}
				continue
			}
			if want == "" && p != "" || !strings.HasPrefix(p, want) {
				t.Errorf("%s: problem %q, want %q…", c.name, p, want)
			}
		}
	}
}
