package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The commented config that init writes must say exactly the built-in
// defaults, or a fresh store would behave differently from no config.
func TestDefaultConfigMatchesDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(DefaultConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromFile, defaults()) {
		t.Errorf("DefaultConfig and defaults() differ:\n%+v\n%+v", fromFile, defaults())
	}
}

func TestConfigErrorsNameFileLineAndKey(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"[inject]\nbudget = \"x\"\n", `config.toml:2: key "inject.budget": incompatible types`},
		{"[inject]\n\nbudgte = 1\n", `config.toml:3: unknown key "inject.budgte"`},
		{"[weights]\nwidget = 1.0\n", `config.toml:2: key "widget": not a kind`},
		{"format = 1\n[inject\n", `to end table name`},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "config.toml"), []byte(c.body), 0o644)
		_, err := LoadConfig(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %q: error %v, want %q", c.body, err, c.want)
		}
	}
}
