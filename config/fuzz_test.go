package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadConfig: any config.toml loads or is refused with a positioned
// error, never a panic; what loads is valid.
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte(DefaultConfig))
	f.Add([]byte("[inject]\nbudget = \"x\"\n"))
	f.Add([]byte("[weights]\npattern = -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(dir)
		if err != nil {
			if !strings.Contains(err.Error(), "config.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if cfg.Inject.Budget < 0 || cfg.Inject.Threshold < 0 || cfg.Inject.Threshold > 1 || cfg.Inject.HalfLifeDays <= 0 {
			t.Fatalf("invalid config accepted: %+v", cfg.Inject)
		}
	})
}
