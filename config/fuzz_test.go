package config

import (
	"math"
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
	f.Add([]byte("[inject]\nmin_relevance = nan\n[weights]\npattern = nan\n"))
	f.Add([]byte("[inject]\nthreshold = 5\nmin_relevance = 0.1\nmax_items = 99\n[weights]\npattern = 9\n"))
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
		// threshold is read and ignored, so any value of it loads.
		if cfg.Inject.Budget < 0 || !(cfg.Inject.HalfLifeDays > 0) || math.IsInf(cfg.Inject.HalfLifeDays, 1) ||
			!(cfg.Inject.MinRelevance >= MinRelevanceFloor) || cfg.Inject.MaxItems < 1 || cfg.Inject.MaxItems > MaxItemsCap {
			t.Fatalf("invalid config accepted: %+v", cfg.Inject)
		}
		for k, w := range cfg.Weights {
			if !(w >= 0 && w <= WeightCap) {
				t.Fatalf("weight %s = %g accepted", k, w)
			}
		}
		if len(cfg.Synonyms) > SynonymsCap {
			t.Fatalf("%d synonym groups accepted", len(cfg.Synonyms))
		}
	})
}
