package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzParseJSONL: any bytes give records and warnings, never a panic, and
// every record returned is valid and re-encodes to one line that parses back.
func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"dec-abcdefgh012345678","ts":"2026-01-01T00:00:00Z","text":"ok"}` + "\n"))
	f.Add([]byte("<<<<<<< HEAD\n=======\n>>>>>>> x\n{\"v\":1"))
	f.Add([]byte(`{"v":1,"id":"pat-abcdefgh012345678","kind":"pattern","ts":"2026-01-01T00:00:00Z","x":{"y":1}}`))
	f.Add([]byte(`{"v":1,"id":"dec-abc{"v":1,"id":"dec-abcdefgh012345678","ts":"2026-01-01T00:00:00Z","text":"{\"v\""}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, warns, err := ParseJSONL("f", data)
		if err != nil {
			return // a newer-format record: refused, not guessed
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, w := range warns {
			if w.Kind == WarnTornBefore {
				lines++ // a record and a warning from one line
			}
		}
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

// FuzzStringHoldsNoTable: whatever a multi-line string in a table that
// does not read holds (headers, whole tables, torn headers), the file
// reads as the tables around it and one warning for that table: no text
// of the string becomes a record or a problem of its own.
func FuzzStringHoldsNoTable(f *testing.F) {
	f.Add("[[pattern]]\nv = 1\nid = \"pat-ssssssss000000000\"\nts = 2026-01-01T00:00:00Z\ntext = \"s\"\n")
	f.Add("x\n[[pat\n[[ 'pattern' ]] # c\n\"\"\"\n[[pattern]]\nv = 1\nid = \"pat-tttttttt000000000\"\nts = 2026-01-01T00:00:00Z\n")
	f.Add("[\n[[pattern]]\n]\n")
	f.Fuzz(func(t *testing.T, inner string) {
		if strings.Contains(inner, "'''") {
			return // it would close the string
		}
		const rec = "v = 1\nid = \"pat-%s000000000\"\nts = 2026-01-01T00:00:00Z\ntext = \"%s\"\n"
		data := "[[pattern]]\n" + fmt.Sprintf(rec, "aaaaaaaa", "before") +
			"\n[[pattern]]\nid = \"pat-bbbbbbbb000000000\"\nsolution = '''\n" + inner + "'''\n" +
			"\n[[pattern]]\n" + fmt.Sprintf(rec, "cccccccc", "after")
		recs, warns, err := ParseTOML("f", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 || recs[0].Text != "before" || recs[1].Text != "after" || len(warns) != 1 || warns[0].Pos.Line < 7 {
			t.Fatalf("%q: %d records, warnings %v", data, len(recs), warns)
		}
	})
}

// FuzzResolveAdditions: a conflicted patterns file ResolveAdditions
// resolves reads, without markers or warnings, as exactly the versions
// its two sides are read as: none lost, none made up.
func FuzzResolveAdditions(f *testing.F) {
	const rec = "v = 1\nid = \"pat-%s000000000\"\nts = 2026-01-01T00:00:00Z\ntext = \"x\"\n"
	f.Add("[[pattern]]\n" + fmt.Sprintf(rec, "aaaaaaaa") + "\n[[pattern]]\n<<<<<<< HEAD\n" + fmt.Sprintf(rec, "bbbbbbbb") + "=======\n" + fmt.Sprintf(rec, "cccccccc") + ">>>>>>> a\n")
	f.Add("<<<<<<< HEAD\n[[pattern]]\n" + fmt.Sprintf(rec, "bbbbbbbb") + "||||||| base\n=======\n[[pattern]]\n" + fmt.Sprintf(rec, "bbbbbbbb") + "text = \"y\"\n>>>>>>> a\n")
	f.Fuzz(func(t *testing.T, data string) {
		out, ok := ResolveAdditions("f", []byte(data))
		if !ok {
			return
		}
		before, _, err := ParseTOML("f", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		after, warns, err := ParseTOML("f", out)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%q resolved as %q: %v %v", data, out, err, warns)
		}
		for _, l := range strings.SplitAfter(string(out), "\n") {
			if IsConflictMarker([]byte(l)) {
				t.Fatalf("%q resolved as %q: a marker line left", data, out)
			}
		}
		key := func(rs []*Record) []string {
			var ks []string
			for _, r := range rs {
				l, _ := r.MarshalLine()
				ks = append(ks, string(l))
			}
			slices.Sort(ks)
			return slices.Compact(ks)
		}
		if !slices.Equal(key(before), key(after)) {
			t.Fatalf("%q resolved as %q: versions %q, were %q", data, out, key(after), key(before))
		}
	})
}

// FuzzParseTOMLAsWhole: a patterns file the TOML library reads whole, every
// table of it a valid record, is read table by table to the same records:
// splitting at headers never cuts a string, an array or a header TOML
// allows.
func FuzzParseTOMLAsWhole(f *testing.F) {
	const rec = "v = 1\nid = \"pat-abcdefgh012345678\"\nts = 2026-01-01T00:00:00Z\n"
	f.Add([]byte("[[pattern]] # first\n" + rec + "text = \"x\"\n[[ pattern ]]\n" + rec + "text = \"y\"\n"))
	f.Add([]byte("[[\"pattern\"]]\n" + rec + "text = \"\"\"\na\n[[pattern]]\nb\\\"\"\"\"\n"))
	f.Add([]byte("[['pattern']]\n" + rec + "text = '''\n[[pattern]]'''\ntags = [\n\"a\", # [\n\"]\"]\n[[pattern]]\n" + rec + "text = \"z\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var whole patternFile
		if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || toml.Unmarshal(data, &whole) != nil {
			return
		}
		// The library decodes [[Pattern]] into the same field as
		// [[pattern]], in map order: the whole file has no one reading.
		var keys map[string]any
		toml.Unmarshal(data, &keys)
		for k := range keys {
			if k != "pattern" && strings.EqualFold(k, "pattern") {
				return
			}
		}
		for i := range whole.Pattern {
			if whole.Pattern[i].validateStored() != nil {
				return
			}
		}
		recs, _, err := ParseTOML("f", data)
		if err != nil {
			return
		}
		if len(recs) != len(whole.Pattern) {
			t.Fatalf("%q: %d records read table by table, %d whole", data, len(recs), len(whole.Pattern))
		}
		for i, r := range recs {
			if w := whole.Pattern[i]; r.ID != w.ID || r.Text != w.Text || !r.Time.Equal(w.Time) {
				t.Fatalf("%q: record %d read as %q %q, whole as %q %q", data, i, r.ID, r.Text, w.ID, w.Text)
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

// FuzzDecodeFast: the shortcut decoder either declines a line or decodes
// it exactly as encoding/json does, error and all.
func FuzzDecodeFast(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"dec-abcdefgh012345678","kind":"decision","ts":"2026-01-01T00:00:00.5Z","created":"2026-01-01T00:00:00Z","text":"a \"b\" \u00e9\n","tags":["x","y"],"rationale":"r"}`))
	f.Add([]byte(`{"v":1,"id":"pat-abcdefgh012345678","ts":"2026-01-01T00:00:00+02:00","anti":true,"confidence":0.75,"validations":3,"next":[],"blocked":["b"]}`))
	f.Add([]byte(` { "v" : 1 , "id":"fail-abcdefgh01234567","ts":"2026-01-01T00:00:00Z","error_type":"X","tool":"go"} `))
	f.Add([]byte(`{"v":1e0,"id":"obs-abcdefgh012345678","ts":"2026-01-01T00:00:00Z","text":"\ud83d\ude00"}`))
	f.Add([]byte(`{"v":1,"V":2,"id":"obs-abcdefgh012345678","ts":"2026-01-01T00:00:00Z","text":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast Record
		if !decodeFast(line, &fast) {
			return
		}
		ferr := fast.validateStored()
		slow, serr := unmarshalLineReflect(line)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("fast error %v, encoding/json error %v for %q", ferr, serr, line)
		}
		if serr == nil && !reflect.DeepEqual(&fast, slow) {
			t.Fatalf("fast and encoding/json differ for %q:\n%+v\n%+v", line, fast, *slow)
		}
	})
}

// FuzzDecodeTableFast: the shortcut decoder either declines a table or
// decodes it exactly as the TOML library does, error and all.
func FuzzDecodeTableFast(f *testing.F) {
	f.Add("[[pattern]]\nv = 1\nid = \"pat-abcdefgh012345678\"\nkind = \"pattern\"\nts = 2026-07-14T10:56:03.84Z\ncreated = 2026-07-14T10:56:03Z\ntext = \"a \\\"b\\\" \\u00e9\\n\"\ntags = [\"x\", \"y\"]\nconfidence = 0.75\nvalidations = 2\nanti = true\n")
	f.Add("\n[[pattern]]\n# note\nv = 1\nid = \"pat-abcdefgh012345678\"\nts = 2026-07-14T10:56:03+02:00\nnext = []\nblocked = [ \"a\" , \"b\" ]\n")
	f.Add("[[pattern]]\nv = 01\nid = \"pat-abcdefgh012345678\"\nts = 2026-07-14T10:56:03Z\nconfidence = 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		var fast Record
		if !decodeTableFast(text, &fast) {
			return
		}
		ferr := fast.validateStored()
		slow, serr := unmarshalTableLib(TableChunk{Line: 1, Text: text})
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("fast error %v, library error %v for %q", ferr, serr, text)
		}
		if serr == nil && !reflect.DeepEqual(&fast, slow) {
			t.Fatalf("fast and library differ for %q:\n%+v\n%+v", text, fast, *slow)
		}
	})
}
