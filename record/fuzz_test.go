package record

import (
	"bytes"
	"encoding/json"
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

// FuzzHasUnknownKey: when hasUnknownKey says a decodable object has only
// Record's fields, decoding it into a map finds no other key.
func FuzzHasUnknownKey(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"dec-abcdefgh012345678","ts":"2026-01-01T00:00:00Z","text":"ok","tags":["a","b"]}`))
	f.Add([]byte(`{"v":1, "text":"a \"quoted\", {brace}", "extra_field": {"y":[1,{"z":"}"}]}}`))
	f.Add([]byte(`{"text":"x","ID":"dec-1"}`))
	f.Add([]byte(` { "v" : 1 , "tags" : [ ] } `))
	f.Fuzz(func(t *testing.T, line []byte) {
		var all map[string]json.RawMessage
		if json.Unmarshal(line, &all) != nil || hasUnknownKey(line) {
			return
		}
		for k := range all {
			if !knownJSONFields[k] {
				t.Fatalf("%q: key %q missed", line, k)
			}
		}
	})
}
