package lore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseJSONL: any bytes give records and warnings, never a panic, and
// every record returned is valid and re-encodes to one line that parses back.
func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"dec-abcdefgh012345678","ts":"2026-01-01T00:00:00Z","text":"ok"}` + "\n"))
	f.Add([]byte("<<<<<<< HEAD\n=======\n>>>>>>> x\n{\"v\":1"))
	f.Add([]byte(`{"v":1,"id":"pat-abcdefgh012345678","kind":"pattern","ts":"2026-01-01T00:00:00Z","x":{"y":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, warns, err := ParseJSONL("f", data)
		if err != nil {
			return // a newer-format record: refused, not guessed
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if len(recs)+len(warns) > lines {
			t.Fatalf("%d records and %d warnings from %d lines", len(recs), len(warns), lines)
		}
		for _, r := range recs {
			out, err := r.MarshalLine()
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			if bytes.Count(out, []byte("\n")) != 1 {
				t.Fatalf("re-encoded record spans lines: %q", out)
			}
			back, err := UnmarshalLine(bytes.TrimSuffix(out, []byte("\n")))
			if err != nil || back.ID != r.ID || !back.Time.Equal(r.Time) {
				t.Fatalf("round trip failed: %v %q", err, out)
			}
		}
	})
}

// FuzzParseTOML: any bytes, never a panic; every record parsed is valid.
func FuzzParseTOML(f *testing.F) {
	f.Add([]byte("[[pattern]]\nv = 1\nid = \"pat-abcdefgh012345678\"\nts = 2026-01-01T00:00:00Z\ntext = \"x\"\n"))
	f.Add([]byte("# c\n[[pattern]]\nv = 1\n<<<<<<< HEAD\ntext = \"a\"\n=======\n[[pattern]]\n"))
	f.Add([]byte("[[pattern]]\nv = 2\nid = \"pat-abcdefgh012345678\"\nts = 2026-01-01T00:00:00Z\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, _, err := ParseTOML("f", data)
		if err != nil {
			return
		}
		for _, r := range recs {
			if !ValidID(r.ID) || r.Time.IsZero() || r.V < 1 || r.V > FormatVersion {
				t.Fatalf("invalid record accepted: %+v", r)
			}
		}
	})
}

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
