package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hashes are what Codex 0.169.0 itself reported (app-server hooks/list,
// currentHash) for these handlers.
func TestCodexHookHashMatchesCodex(t *testing.T) {
	ten := 10
	h := codexHandler{Command: "/tmp/cxbin/lore inject --stdin --host-trusted", Timeout: &ten}
	m1, m2 := "startup|resume|clear", "startup|resume|clear|compact"
	for _, c := range []struct {
		event   string
		matcher *string
		want    string
	}{
		{"SessionStart", &m1, "sha256:5679571708d1b3f9618bbd1b78b912deb8072ca114e59d02a685734da238f223"},
		{"SessionStart", &m2, "sha256:384768776ff9ba209160b7608bdd2ac4d0bd2a547d8d6212d61771e11237ef17"},
		{"UserPromptSubmit", nil, "sha256:c31e4f2ef14b0799e492e56afbab55afc02a513e8a5c4ac34629c3b36e6fdeaf"},
		{"UserPromptSubmit", &m1, "sha256:c31e4f2ef14b0799e492e56afbab55afc02a513e8a5c4ac34629c3b36e6fdeaf"}, // ignored there
	} {
		if got := codexHookHash(c.event, c.matcher, h); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.event, c.matcher, got, c.want)
		}
	}
}

func TestCodexStatusSaysWhatCodexStillNeeds(t *testing.T) {
	codex, _ := FindAgent("codex")
	root, home := t.TempDir(), t.TempDir()
	tg, err := NewTarget(codex, "project", root, UserDirs{Home: t.TempDir(), CodexHome: home})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(tg, "/usr/bin/lore inject --stdin --host-trusted"); err != nil {
		t.Fatal(err)
	}
	problems := func() []string {
		st, err := Status(tg)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ev := range st {
			if !ev.Installed {
				t.Fatalf("%s not installed", ev.Event)
			}
			out = append(out, ev.Problem)
		}
		return out
	}
	if p := problems(); !strings.Contains(p[0], "codex exec --trust") {
		t.Errorf("untrusted project: %q", p)
	}
	config := "[projects." + quote(root) + "]\ntrust_level = \"trusted\"\n"
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644)
	for _, p := range problems() {
		if !strings.Contains(p, "not trusted by Codex") {
			t.Errorf("untrusted hook: %q", p)
		}
	}
	ten := 10
	for _, ev := range codex.Events {
		var m *string
		if ev.Matcher != "" {
			m = &ev.Matcher
		}
		hash := codexHookHash(ev.Name, m, codexHandler{Command: "/usr/bin/lore inject --stdin --host-trusted", Timeout: &ten})
		if ev.Name == "Stop" {
			hash = "sha256:stale"
		}
		config += "[hooks.state." + quote(tg.Path+":"+codexEventLabels[ev.Name]+":0:0") + "]\ntrusted_hash = " + quote(hash) + "\n"
	}
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644)
	p := problems()
	if p[0] != "" || p[1] != "" || !strings.Contains(p[2], "changed since Codex trusted it") {
		t.Errorf("trusted, trusted, stale: %q", p)
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }
