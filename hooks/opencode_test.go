package hooks

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func opencodeTarget(t *testing.T) Target {
	t.Helper()
	a, err := FindAgent("opencode")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTarget(a, "project", t.TempDir(), UserDirs{})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestPluginCarriesTheCommandAndItsVersion(t *testing.T) {
	tg := opencodeTarget(t)
	if _, err := Install(tg, `"/opt/my tools/lore" inject --stdin --host-trusted`); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(tg.Path)
	if !strings.Contains(string(data), `const LORE_ARGV = ["/opt/my tools/lore","inject","--stdin","--host-trusted"];`) {
		t.Errorf("plugin does not run the command:\n%s", data)
	}
	if v, ours := pluginVersion(data); !ours || v != PluginVersion() || v < 1 {
		t.Errorf("plugin version %d, ours %v, want %d", v, ours, PluginVersion())
	}
	st, err := Status(tg)
	if err != nil || len(st) == 0 || !st[0].Installed || st[0].Binary != "/opt/my tools/lore" || st[0].Problem != "" {
		t.Fatalf("status %+v %v", st, err)
	}
}

func TestPluginUpgradeReplacesAnOlderVersion(t *testing.T) {
	tg := opencodeTarget(t)
	old := pluginHeader().ReplaceAllString(pluginTemplate, "// lore opencode plugin, version 0")
	os.MkdirAll(filepath.Dir(tg.Path), 0o755)
	os.WriteFile(tg.Path, []byte(old), 0o644)
	if st, _ := Status(tg); !strings.Contains(st[0].Problem, "version 0") {
		t.Errorf("an outdated plugin is not reported: %+v", st[0])
	}
	if changed, err := Install(tg, "lore inject --stdin"); err != nil || !changed {
		t.Fatalf("upgrade: %v %v", changed, err)
	}
	if st, _ := Status(tg); st[0].Problem != "" {
		t.Errorf("after upgrade: %+v", st[0])
	}
}

func TestPluginLeavesSomeoneElsesFileAlone(t *testing.T) {
	tg := opencodeTarget(t)
	theirs := "export const Lore = async () => ({}) // someone else's\n"
	os.MkdirAll(filepath.Dir(tg.Path), 0o755)
	os.WriteFile(tg.Path, []byte(theirs), 0o644)
	if _, err := Install(tg, "lore inject --stdin"); err == nil || !strings.Contains(err.Error(), "not lore's plugin") {
		t.Errorf("install over a foreign lore.js: %v", err)
	}
	if _, err := Uninstall(tg); err == nil {
		t.Error("uninstall removed a foreign lore.js")
	}
	if got, _ := os.ReadFile(tg.Path); string(got) != theirs {
		t.Errorf("foreign file changed:\n%s", got)
	}
}

func TestSplitCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"lore inject --stdin", []string{"lore", "inject", "--stdin"}},
		{`"/Users/Ada Lovelace/go/bin/lore"  inject --stdin`, []string{"/Users/Ada Lovelace/go/bin/lore", "inject", "--stdin"}},
		{`"a\"b" x`, []string{`a"b`, "x"}},
	} {
		if got, err := argvOf(c.in); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("argvOf(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "  ", `"lore inject`} {
		if _, err := argvOf(bad); err == nil {
			t.Errorf("argvOf(%q) accepted", bad)
		}
	}
}

func TestUserScopeFollowsTheHostsEnvironment(t *testing.T) {
	codex, _ := FindAgent("codex")
	home := t.TempDir()
	// A CODEX_HOME that names no directory: status looks there and says
	// why nothing is (HostDirProblem), install refuses and creates nothing.
	missing := filepath.Join(home, "missing")
	tg, err := NewTarget(codex, "user", "", UserDirs{Home: home, CodexHome: missing})
	if err != nil || tg.Path != filepath.Join(missing, "hooks.json") || !strings.Contains(tg.HostDirProblem(), "CODEX_HOME="+missing+" is not a directory") {
		t.Errorf("a missing CODEX_HOME: %v %q %q", err, tg.Path, tg.HostDirProblem())
	}
	if st, err := Status(tg); err != nil || len(st) != len(codex.Events) || st[0].Installed {
		t.Errorf("status with a missing CODEX_HOME: %+v %v", st, err)
	}
	if _, err := Install(tg, "lore inject --stdin"); err == nil || !strings.Contains(err.Error(), "CODEX_HOME") {
		t.Errorf("install with a missing CODEX_HOME: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("install created CODEX_HOME: %v", err)
	}
	tg, err = NewTarget(codex, "user", "", UserDirs{Home: home, CodexHome: home})
	if err != nil || tg.Path != filepath.Join(home, "hooks.json") || tg.HostDirProblem() != "" {
		t.Errorf("CODEX_HOME: %v %v", tg.Path, err)
	}
	oc, _ := FindAgent("opencode")
	tg, _ = NewTarget(oc, "user", "", UserDirs{Home: home, XDGConfig: "/x"})
	if tg.Path != "/x/opencode/plugins/lore.js" {
		t.Errorf("XDG_CONFIG_HOME: %v", tg.Path)
	}
}
