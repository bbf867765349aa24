package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

const (
	oneA = `{"v":1,"id":"dec-2hx8m80c1m83m5kyv","kind":"decision","ts":"2026-11-23T07:15:48.8Z","text":"Use JSONL","tags":["a","b"],"rationale":"why"}`
	oneB = `{"v":1,"id":"dec-gnwepqk21m83m5kzb","kind":"decision","ts":"2026-11-23T07:15:49Z","text":"second"}`
)

// pretty is line spread as json.dumps(obj, indent=2) writes it, keys in
// their order.
func pretty(t *testing.T, line string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(line), "", "  "); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSpreadRecordIsOneWarning(t *testing.T) {
	p := pretty(t, oneA)
	n := strings.Count(p, "\n") + 1
	for _, tc := range []struct{ name, data string }{
		{"middle", oneB + "\n" + p + "\n" + oneB + "\n"},
		{"crlf", oneB + "\r\n" + strings.ReplaceAll(p, "\n", "\r\n") + "\r\n" + oneB + "\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := ParseJSONL("s.jsonl", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 2 || recs[1].Source.Line != n+2 {
				t.Fatalf("records %d (second at line %d), want 2, the second at line %d", len(recs), recs[len(recs)-1].Source.Line, n+2)
			}
			if len(warns) != 1 || warns[0].Kind != WarnSpread || warns[0].Pos.Line != 2 {
				t.Fatalf("warnings %v, want one WarnSpread at line 2", warns)
			}
			if want := SpreadMsg(2, n+1); warns[0].Msg != want {
				t.Fatalf("warning %q, want %q", warns[0].Msg, want)
			}
		})
	}
	// at the end of the file, with no newline after its last line
	recs, warns, _ := ParseJSONL("s.jsonl", []byte(oneB+"\n"+p))
	if len(recs) != 1 || len(warns) != 1 || warns[0].Kind != WarnSpread {
		t.Fatalf("spread last: %d records, warnings %v", len(recs), warns)
	}
}

func TestSpreadJoinsExactly(t *testing.T) {
	p := pretty(t, oneA)
	first, rest, _ := strings.Cut(p, "\n")
	rest += "\n" + oneB + "\n"
	n, size, joined := Spread([]byte(first), []byte(rest))
	if string(joined) != oneA {
		t.Fatalf("joined %s\nwant   %s", joined, oneA)
	}
	if n != strings.Count(p, "\n") || rest[size:] != oneB+"\n" {
		t.Fatalf("took %d lines, %d bytes: left %q", n, size, rest[size:])
	}
}

// What is not one record is never taken for one: the lines stay as they
// were, each with its own warning.
func TestSpreadRefusesWhatIsNotOneRecord(t *testing.T) {
	p := pretty(t, oneA)
	cut := p[:len(p)/2]
	for _, tc := range []struct{ name, data string }{
		{"torn before a record", cut + "\n" + oneB + "\n"},
		{"not a record", "{\n  \"a\": 1\n}\n" + oneB + "\n"},
		{"more on its last line", strings.TrimSuffix(p, "}") + "} x\n" + oneB + "\n"},
		{"blank line inside", strings.Replace(p, "\n", "\n\n", 1) + "\n" + oneB + "\n"},
		{"conflict marker inside", strings.Replace(p, "\n", "\n=======\n", 2) + "\n" + oneB + "\n"},
		{"a one-line record with text after", oneA + " {\n}\n" + oneB + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, _ := ParseJSONL("s.jsonl", []byte(tc.data))
			for _, w := range warns {
				if w.Kind == WarnSpread {
					t.Fatalf("read as spread: %v", w)
				}
			}
			if len(recs) != 1 || recs[0].ID != "dec-gnwepqk21m83m5kzb" {
				t.Fatalf("records %v, want the one whole line", recs)
			}
		})
	}
}

// A shard of lines that each look like a start costs each line once, not
// the rest of the file each.
func TestSpreadStaysLinear(t *testing.T) {
	data := []byte(strings.Repeat("{\n", 50000) + strings.Repeat("  \"a\": {\n", 50000))
	start := time.Now()
	if _, warns, _ := ParseJSONL("s.jsonl", data); len(warns) != 100000 {
		t.Fatalf("%d warnings, want one a line", len(warns))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestLFSPointerIsOneWarning(t *testing.T) {
	ptr := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	for _, name := range []string{"journal/2026-11/a.jsonl", "patterns/2026-11/a.toml"} {
		recs, warns, err := ParseShard(name, []byte(ptr))
		if err != nil || len(recs) != 0 || len(warns) != 1 || warns[0].Kind != WarnLFSPointer || warns[0].Pos.Line != 0 {
			t.Fatalf("%s: %v %v %v", name, recs, warns, err)
		}
		if !strings.Contains(warns[0].String(), name+": a Git LFS pointer, not records") {
			t.Fatalf("warning %q", warns[0])
		}
	}
	if IsLFSPointer([]byte("version https://git-lfs.github.com/spec/v10\n")) || IsLFSPointer([]byte(oneA)) {
		t.Fatal("not a pointer taken for one")
	}
}

// A reader's error names the field and what it holds, never a Go type.
func TestLineErrorsNameNoGoType(t *testing.T) {
	for _, l := range []string{
		`"a"`, `5`, `[1]`, `true`,
		`{"v":"1","id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z"}`,
		`{"v":1.5,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z"}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"yesterday"}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":5}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","created":"x"}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","tags":"x"}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","tags":[1]}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","anchors":[{"path":5}]}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","anchors":{"path":5}}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","confidence":"high"}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","anti":"yes"}`,
		`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","kind":7}`,
	} {
		_, err := UnmarshalLine([]byte(l))
		if err == nil {
			t.Fatalf("%s: read", l)
		}
		for _, leak := range []string{"Go ", "record.", "plain", "int", "float64", "[]string", "2006-01-02T15:04:05Z07:00", "UnmarshalJSON"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s: %q names %q", l, err, leak)
			}
		}
	}
	for _, tc := range []struct{ line, want string }{
		{`"a"`, "the line is a string, not a JSON object"},
		{`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"2026-11-23T07:15:48Z","tags":"x"}`, "tags: is a string, where a list of strings is expected"},
		{`{"v":1,"id":"dec-2hx8m80c1m83m5kyv","ts":"yesterday"}`, `ts: "yesterday" is not a time as lore writes it`},
	} {
		if _, err := UnmarshalLine([]byte(tc.line)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
	_, w, _ := ParseTOML("p.toml", []byte("[[pattern]]\nv = 1\nid = \"pat-2hx8m80c1m83m5kyv\"\nts = \"yesterday\"\n"))
	if len(w) != 1 || strings.Contains(w[0].Msg, "2006") {
		t.Errorf("TOML time: %v", w)
	}
}
