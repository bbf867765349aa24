package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestIDFormat(t *testing.T) {
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for range 1000 {
		id := NewID(Decision, now)
		if !ValidID(id) {
			t.Fatalf("NewID made an invalid ID %q", id)
		}
		if !strings.HasPrefix(id, "dec-") || len(id) != len("dec-")+17 {
			t.Fatalf("unexpected shape %q", id)
		}
		if seen[ShortID(id)] {
			t.Fatalf("short ID %s repeated within 1000 IDs made in the same millisecond", ShortID(id))
		}
		seen[ShortID(id)] = true
	}
	if got := ShortID("pat-abcdefgh123456789"); got != "pat-abcdefgh" {
		t.Errorf("ShortID = %q", got)
	}
	for _, bad := range []string{"", "dec-", "dec-abc", "xyz-abcdefgh1", "dec-ABCDEFGH1", "dec-abcdefgi"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

func sample() *Record {
	c := 0.9
	now := time.Date(2026, 2, 10, 12, 0, 0, 123456789, time.UTC)
	return &Record{V: 1, ID: "pat-abcdefgh012345678", Kind: Pattern, Time: now, Created: now,
		Text: "Safe bash arithmetic", Context: "set -e scripts", Solution: "x=$((x+1))", Confidence: &c,
		Tags: []string{"bash"}, Author: "Ada <ada@example.com>", Branch: "main", Commit: strings.Repeat("a", 40)}
}

func TestJSONLineRoundTripKeepsUnknownFields(t *testing.T) {
	line := `{"v":1,"id":"dec-abcdefgh012345678","kind":"decision","ts":"2026-02-10T12:00:00Z","text":"Use <JSONL>","future_field":{"a":[1,2]},"zeta":"z"}`
	r, err := UnmarshalLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if r.Created != r.Time {
		t.Errorf("created should default to ts")
	}
	next := r.Derive(r.Time.Add(time.Second), Origin{Branch: "dev"})
	next.Text = "Use JSONL"
	out, err := next.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(out), "\n") || strings.Count(string(out), "\n") != 1 {
		t.Fatalf("not one line: %q", out)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["future_field"]; !ok {
		t.Errorf("unknown field lost: %s", out)
	}
	if m["zeta"] != "z" || m["branch"] != "dev" {
		t.Errorf("fields wrong: %s", out)
	}
	if strings.Contains(string(out), `\u003c`) {
		t.Errorf("HTML-escaped output: %s", out)
	}
}

func TestTOMLTableRoundTrip(t *testing.T) {
	r := sample()
	r.Extra = map[string]any{"reviewer": "grace", "scores": []any{int64(1), int64(2)}}
	data, err := r.MarshalTable()
	if err != nil {
		t.Fatal(err)
	}
	chunks, stray := SplitTables(data)
	if len(chunks) != 1 || len(stray) != 0 {
		t.Fatalf("chunks=%d stray=%v in\n%s", len(chunks), stray, data)
	}
	got, err := UnmarshalTable(chunks[0])
	if err != nil {
		t.Fatalf("%v in\n%s", err, data)
	}
	if !got.Time.Equal(r.Time) || got.Text != r.Text || *got.Confidence != 0.9 || got.Solution != r.Solution {
		t.Errorf("round trip changed the record:\n%+v\n%+v", got, r)
	}
	if got.Extra["reviewer"] != "grace" || got.Extra["scores"] == nil {
		t.Errorf("unknown fields lost: %v", got.Extra)
	}
}

func TestNewerIsByTimestampNotPosition(t *testing.T) {
	a, b := sample(), sample()
	b.Time = a.Time.Add(time.Millisecond)
	b.Text = "later"
	if !Newer(b, a) || Newer(a, b) {
		t.Fatal("later timestamp must win")
	}
	c := sample()
	c.Text = "same time, other content"
	if Newer(a, c) == Newer(c, a) {
		t.Fatal("a tie must have exactly one winner")
	}
}

func TestParseJSONLWarnings(t *testing.T) {
	data := "{\"v\":1,\"id\":\"dec-abcdefgh012345678\",\"ts\":\"2026-01-01T00:00:00Z\",\"text\":\"ok\"}\n" +
		"<<<<<<< HEAD\n" +
		"not json\n" +
		"=======\n" +
		"{\"v\":1,\"id\":\"dec-bbcdefgh012345678\",\"ts\":\"2026-01-01T00:00:00Z\",\"text\":\"other side\"}\n" +
		">>>>>>> branch\n" +
		"{\"v\":1,\"id\":\"dec-cbcdefgh0123"
	recs, warns, err := ParseJSONL("f.jsonl", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("want the 2 good records, got %d", len(recs))
	}
	want := []struct {
		line int
		kind WarningKind
	}{{2, WarnConflict}, {3, WarnMalformed}, {4, WarnConflict}, {6, WarnConflict}, {7, WarnTorn}}
	if len(warns) != len(want) {
		t.Fatalf("warnings: %v", warns)
	}
	for i, w := range want {
		if warns[i].Pos.Line != w.line || warns[i].Kind != w.kind {
			t.Errorf("warning %d = %v (kind %d), want line %d kind %d", i, warns[i], warns[i].Kind, w.line, w.kind)
		}
	}
}

// A byte-order mark before the first line (some Windows editors write
// one) hides no record, in either format.
func TestByteOrderMarkHidesNoRecord(t *testing.T) {
	bom := "\xef\xbb\xbf"
	for name, data := range map[string]string{
		"f.jsonl": bom + "{\"v\":1,\"id\":\"dec-abcdefgh012345678\",\"ts\":\"2026-01-01T00:00:00Z\",\"text\":\"first\"}\n",
		"f.toml":  bom + "[[pattern]]\nv = 1\nid = \"pat-abcdefgh012345678\"\nts = 2026-01-01T00:00:00Z\ntext = \"first\"\n",
	} {
		recs, warns, err := ParseShard(name, []byte(data))
		if err != nil || len(recs) != 1 || recs[0].Text != "first" || len(warns) > 0 {
			t.Errorf("%s with a BOM: %d records, warnings %v, %v", name, len(recs), warns, err)
		}
	}
}

// Lines lore writes take the shortcut decoder, and it decodes them as
// encoding/json does (FuzzDecodeFast checks the rest).
func TestDecodeFastTakesWhatLoreWrites(t *testing.T) {
	r := sample()
	r.Text = "Use \"quotes\", tabs\t, newlines\n, <html> & é"
	r.Anti, r.Validations = true, 4
	r.Next, r.Blocked = []string{"a"}, []string{}
	line, err := r.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	var fast Record
	if !decodeFast(line, &fast) {
		t.Fatalf("declined a line lore wrote: %s", line)
	}
	slow, err := unmarshalLineReflect(line)
	if err != nil || fast.Validate() != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&fast, slow) {
		t.Fatalf("fast decode differs:\n%+v\n%+v", fast, *slow)
	}
	if decodeFast([]byte(`{"v":1,"id":"dec-abcdefgh012345678","ts":"2026-02-10T12:00:00Z","future":1}`), &Record{}) {
		t.Fatal("took a line with an unknown key, whose value belongs in Extra")
	}
}

// Tables lore writes take the shortcut decoder, and it decodes them as the
// TOML library does (FuzzDecodeTableFast checks the rest).
func TestDecodeTableFastTakesWhatLoreWrites(t *testing.T) {
	r := sample()
	r.Text = "Use \"quotes\", tabs\t, newlines\n, é"
	r.Anti, r.Validations = true, 4
	text, err := r.MarshalTable()
	if err != nil {
		t.Fatal(err)
	}
	var fast Record
	if !decodeTableFast(string(text), &fast) {
		t.Fatalf("declined a table lore wrote:\n%s", text)
	}
	slow, err := unmarshalTableLib(TableChunk{Line: 1, Text: string(text)})
	if err != nil || fast.Validate() != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&fast, slow) {
		t.Fatalf("fast decode differs:\n%+v\n%+v", fast, *slow)
	}
	if decodeTableFast("[[pattern]]\nv = 1\nid = \"pat-abcdefgh012345678\"\nts = 2026-02-10T12:00:00Z\nfuture = 1\n", &Record{}) {
		t.Fatal("took a table with an unknown key, whose value belongs in Extra")
	}
}

// A version missing its envelope says every missing field at once: a
// hand-written table often lacks them all.
func TestValidateNamesEveryMissingField(t *testing.T) {
	for _, c := range []struct {
		r    Record
		want string
	}{
		{Record{Text: "x"}, `missing format version "v", "id", timestamp "ts"`},
		{Record{V: 1, Text: "x", Time: time.Now()}, `missing "id"`},
		{Record{V: 1, ID: "dec-x", Text: "x", Time: time.Now()}, `bad id "dec-x"`},
	} {
		if err := c.r.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("Validate(%+v) = %v, want %s", c.r, err, c.want)
		}
	}
}

// Patterns people type: headers as TOML allows them, a multi-line string
// holding a line like a header, and a mistake reported at its file line.
func TestParseTOMLReadsHandWrittenTables(t *testing.T) {
	const rec = "v = 1\nts = 2026-11-22T10:00:00Z\n"
	data := "# team patterns\n" +
		"[[pattern]] # from the review\n" + rec + "id = \"pat-aaaaaaaa1m82qf099\"\ntext = \"Safe bash arithmetic\"\n\n" +
		"[[ pattern ]]\n" + rec + "id = \"pat-aaaaaaab1m82qf099\"\ntext = \"\"\"\nWrite one by hand:\n[[pattern]]\nthen its fields\"\"\"\n\n" +
		"[['pattern']]\n" + rec + "id = \"pat-aaaaaaac1m82qf099\"\ntext = \"third\"\nconfidence = \"high\"\n"
	recs, warns, err := ParseTOML("f", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Text != "Safe bash arithmetic" || recs[1].Text != "Write one by hand:\n[[pattern]]\nthen its fields" {
		t.Errorf("records %v, want the first two tables", recs)
	}
	if len(warns) != 1 || warns[0].Pos.Line != 22 || !strings.Contains(warns[0].Msg, "confidence: is a string, where a float is expected") {
		t.Errorf("warnings %v, want the third table's confidence at line 22", warns)
	}
}

// An unclosed string costs the table it is in, not the tables after it.
func TestParseTOMLKeepsTablesAfterAnUnclosedString(t *testing.T) {
	const rec = "v = 1\nts = 2026-11-22T10:00:00Z\n"
	data := "[[pattern]]\n" + rec + "id = \"pat-aaaaaaaa1m82qf099\"\ntext = \"\"\"never closed\n\n" +
		"[[pattern]]\n" + rec + "id = \"pat-aaaaaaab1m82qf099\"\ntext = \"kept\"\n"
	recs, warns, _ := ParseTOML("f", []byte(data))
	if len(recs) != 1 || recs[0].Text != "kept" || len(warns) != 1 || warns[0].Pos.Line != 6 {
		t.Errorf("records %v, warnings %v: want the second table read and the first reported", recs, warns)
	}
}

func TestMistypedFieldGuessesOnlyNearNames(t *testing.T) {
	for key, want := range map[string]string{
		"soluton":     "solution",
		"Confidense":  "confidence",
		"error-type":  "error_type",
		"rationle":    "rationale",
		"reviewed_by": "", // a newer lore's field, or the team's own
		"tag":         "", // too short to tell
		"mood":        "", // two letters from "tool" in a short name
		"soultion":    "solution",
		"ts2":         "",
	} {
		if got := MistypedField(key); got != want {
			t.Errorf("MistypedField(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestMarshalTableWritesBadBytesAsReplacementAndLeavesTheRecord(t *testing.T) {
	r := &Record{V: FormatVersion, ID: "pat-aaaaaaaa1m82qf099", Kind: Pattern, Time: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		Text: "caf\xe9", Tags: []string{"t\xe9st"}, Anchors: []Anchor{{Path: "a\xff.go", Blob: strings.Repeat("ab", 20)}}}
	b, err := r.MarshalTable()
	if err != nil {
		t.Fatal(err)
	}
	recs, warns, err := ParseTOML("p.toml", b)
	if err != nil || len(warns) > 0 || len(recs) != 1 {
		t.Fatalf("read back: %v %v %d records:\n%s", err, warns, len(recs), b)
	}
	if got := recs[0]; got.Text != "caf\uFFFD" || got.Tags[0] != "t\uFFFDst" || got.Anchors[0].Path != "a\uFFFD.go" {
		t.Errorf("read back %q %q %q", got.Text, got.Tags, got.Anchors[0].Path)
	}
	if r.Text != "caf\xe9" || r.Tags[0] != "t\xe9st" || r.Anchors[0].Path != "a\xff.go" {
		t.Errorf("the record itself changed: %q %q %q", r.Text, r.Tags, r.Anchors[0].Path)
	}
}

// A tag is one line of text: a capture with a newline or another control
// character in a tag is refused, naming the tag, in one line.
func TestValidateRefusesTagsThatBreakLines(t *testing.T) {
	for _, tag := range []string{"a\nb", "a\r", "x\ty", "\x1b[31mred", "del\x7f", "c1\u0085", "ls\u2028", "ps\u2029"} {
		r := sample()
		r.Tags = []string{"ok", tag}
		err := r.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "tags" || fe.Value != tag {
			t.Errorf("tag %q: Validate = %v, want a FieldError naming the tag", tag, err)
			continue
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\n\r\t\x1b") || !strings.Contains(msg, strconv.Quote(tag)) ||
			!strings.Contains(msg, "a tag is one line of text") {
			t.Errorf("tag %q: message %q", tag, msg)
		}
	}
	r := sample()
	r.Tags = []string{"c++", "naïve", "two words", "日本", "emoji 👍🏽"}
	if err := r.Validate(); err != nil {
		t.Errorf("printable tags refused: %v", err)
	}
}

// A record written with such a tag before the rule (or by hand) is still
// read, by every decoder, with its tag as written: nothing is dropped.
func TestStoredTagsThatBreakLinesStillRead(t *testing.T) {
	lines := []string{
		`{"v":1,"id":"dec-abcdefgh012345678","kind":"decision","ts":"2026-02-10T12:00:00Z","text":"old","tags":["a\nb","\u001b[31m"]}`,
		`{"v":1,"id":"dec-abcdefgh012345678","kind":"decision","ts":"2026-02-10T12:00:00Z","text":"old","tags":["a\nb","\u001b[31m"],"future":1}`, // encoding/json's path
	}
	for _, l := range lines {
		recs, warns, err := ParseJSONL("f.jsonl", []byte(l+"\n"))
		if err != nil || len(warns) > 0 || len(recs) != 1 || !reflect.DeepEqual(recs[0].Tags, []string{"a\nb", "\x1b[31m"}) {
			t.Errorf("%s: read %v, warnings %v, error %v", l, recs, warns, err)
		}
	}
	tables := []string{
		"[[pattern]]\nv = 1\nid = \"pat-abcdefgh012345678\"\nts = 2026-02-10T12:00:00Z\ntext = \"old\"\ntags = [\"a\\nb\"]\n",
		"[[pattern]]\nv = 1\nid = \"pat-abcdefgh012345678\"\nts = 2026-02-10T12:00:00Z\ntext = \"old\"\ntags = [\"a\\nb\"]\nfuture = 1\n", // the library's path
	}
	for _, tb := range tables {
		recs, warns, err := ParseTOML("f.toml", []byte(tb))
		if err != nil || len(warns) > 0 || len(recs) != 1 || !reflect.DeepEqual(recs[0].Tags, []string{"a\nb"}) {
			t.Errorf("%q: read %v, warnings %v, error %v", tb, recs, warns, err)
		}
	}
}

// Such a record's next version (a revision, abandoning it) keeps its tags
// folded onto one line each, so it can be written.
func TestDeriveFoldsTagsThatBreakLines(t *testing.T) {
	r := sample()
	r.Tags = []string{"a\nb", "a b", "\x1b[31m", "\t", "keep"}
	n := r.Derive(r.Time.Add(time.Second), Origin{})
	if want := []string{"a b", "[31m", "keep"}; !reflect.DeepEqual(n.Tags, want) {
		t.Errorf("Derive's tags %q, want %q", n.Tags, want)
	}
	if err := n.Validate(); err != nil {
		t.Errorf("the next version cannot be written: %v", err)
	}
	if r.Tags[0] != "a\nb" {
		t.Errorf("Derive changed the stored version's tags: %q", r.Tags)
	}
	r.Tags = []string{"x", "y"}
	if n = r.Derive(r.Time, Origin{}); !reflect.DeepEqual(n.Tags, r.Tags) || &n.Tags[0] == &r.Tags[0] {
		t.Errorf("Derive's tags %q, want a copy of %q", n.Tags, r.Tags)
	}
}

// One person is one address, whatever the name and the case; without an
// address, the identity itself.
func TestSameAuthor(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"Ada Lovelace <ada@example.com>", "Ada L. <ADA@example.com>", true},
		{"Ada <ada@example.com>", "Ada <grace@example.com>", false},
		{"ada", "Ada", true},
		{"Ada <ada@example.com>", "ada@example.com", true}, // an address alone
		{"Ada <ada@example.com>", "", false},
	} {
		if got := SameAuthor(c.a, c.b); got != c.want {
			t.Errorf("SameAuthor(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
