package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lore/record"
)

// A record a formatter spread over lines is joined back into one line by
// --fix, in the same rewrite that quarantines a conflict marker and a torn
// tail, and every other byte stays where it was: the CRLF line endings,
// a line that does not read, the records around it.
func TestDoctorJoinsASpreadRecord(t *testing.T) {
	s := newTestStore(t)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(obs("b", "spread")), "", "  "); err != nil {
		t.Fatal(err)
	}
	spread := strings.ReplaceAll(pretty.String(), "\n", "\r\n")
	n := strings.Count(spread, "\n") + 1
	typo := strings.Replace(obs("d", "typo"), `,"text"`, ` "text"`, 1)
	head := obs("a", "one") + "\r\n"
	tail := "\r\n" + typo + "\r\n<<<<<<< HEAD\r\n" + obs("c", "three") + "\r\n"
	content := head + spread + tail + obs("e", "torn")[:20]
	path := filepath.Join(s.Dir, "inbox", "2020-01", "hand.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	probs, err := s.Doctor(false)
	if err != nil {
		t.Fatal(err)
	}
	want := []wantProblem{
		{2, "spread", true, "lines 2-" + strconv.Itoa(n+1) + " hold one record (obs-bbbbbbbb) spread over several lines, as a formatter leaves it"},
		{n + 2, "malformed", false, "malformed record skipped"},
		{n + 3, "conflict", true, "git conflict marker"},
		{n + 5, "torn", true, "torn last line"},
	}
	checkProblems(t, s.Rel(path), probs, want, false)
	if readFile(t, path) != content {
		t.Fatal("doctor without --fix changed the file")
	}

	probs, err = s.Doctor(true)
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, s.Rel(path), probs, want, true)
	wantFile := head + obs("b", "spread") + "\r\n" + typo + "\r\n" + obs("c", "three") + "\r\n"
	if got := readFile(t, path); got != wantFile {
		t.Fatalf("after --fix\n%q\nwant\n%q", got, wantFile)
	}
	if q := quarantined(t, s); q != "<<<<<<< HEAD\r\n"+obs("e", "torn")[:20] {
		t.Fatalf("quarantined %q", q)
	}
	recs, _, _ := record.ParseShard(path, []byte(wantFile))
	if len(recs) != 3 {
		t.Fatalf("%d records after --fix, want 3", len(recs))
	}
}

// A shard that is a Git LFS pointer is one problem, which --fix leaves.
func TestDoctorNamesAnLFSPointer(t *testing.T) {
	s := newTestStore(t)
	ptr := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	path := filepath.Join(s.Dir, "journal", "2020-01", "ptr.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(ptr), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fix := range []bool{false, true} {
		probs, err := s.Doctor(fix)
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) != 1 || probs[0].File != s.Rel(path) || probs[0].Line != 0 || probs[0].Kind != "lfs-pointer" || probs[0].Fixable ||
			!strings.HasPrefix(probs[0].Message, "a Git LFS pointer, not records: run git lfs pull") {
			t.Fatalf("fix %v: %+v", fix, probs)
		}
	}
	if readFile(t, path) != ptr {
		t.Fatal("--fix changed the pointer")
	}
}

func TestMissingAttrs(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"lore's", gitattributes, nil},
		{"none", "", []string{`"*.jsonl merge=union text eol=lf -filter diff"`, `"*.toml merge text eol=lf -filter diff"`}},
		{"before filters were switched off", "*.jsonl merge=union text eol=lf\n*.toml text eol=lf\n",
			[]string{`"*.jsonl -filter diff"`, `"*.toml merge -filter diff"`}},
		{"a later line sets a filter again", gitattributes + "*.jsonl filter=lfs\n", []string{`"*.jsonl -filter"`}},
		{"a later line unspecifies diff", gitattributes + "*.toml !diff\n", []string{`"*.toml diff"`}},
		{"a comment is no line", "# *.jsonl merge=union text eol=lf -filter diff\n" + "*.toml merge text eol=lf -filter diff\n",
			[]string{`"*.jsonl merge=union text eol=lf -filter diff"`}},
	} {
		if got := missingAttrs(c.text); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: missing %q, want %q", c.name, got, c.want)
		}
	}
}

// --fix puts lore's current lines in place of its old ones, keeps every
// line of the user's, and writes nothing more a second time.
func TestFixedAttributes(t *testing.T) {
	old := "# mine\n*.md text\n# lore: records are append-only lines; keep both sides on merge.\n*.jsonl merge=union text eol=lf\n*.toml text eol=lf\n# after\n"
	for _, c := range []struct{ name, text, want string }{
		{"old lines replaced in place", old, "# mine\n*.md text\n" + gitattributes + "# after\n"},
		{"the user's own file", "*.md text\n", "*.md text\n" + gitattributes},
		{"a line changed by hand", "*.jsonl merge=binary\n", "*.jsonl merge=binary\n" + gitattributes},
		{"one old line", "*.jsonl merge=union text eol=lf\n*.toml merge text eol=lf -filter diff\n",
			gitattributes + "*.toml merge text eol=lf -filter diff\n"},
	} {
		got := fixedAttributes(c.text, nil)
		if got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
		if m := missingAttrs(got); m != nil {
			t.Errorf("%s: still missing %q", c.name, m)
		}
		if again := fixedAttributes(got, nil); again != got {
			t.Errorf("%s: a second fix wrote\n%s", c.name, again)
		}
	}
	if got := fixedAttributes("", os.ErrNotExist); got != gitattributes {
		t.Errorf("a missing file: %q", got)
	}
}

// An old store is told, and --fix writes the lines.
func TestDoctorFixesOldAttributes(t *testing.T) {
	s := newTestStore(t)
	path := filepath.Join(s.Dir, ".gitattributes")
	if err := os.WriteFile(path, []byte("*.jsonl merge=union text eol=lf\n*.toml text eol=lf\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	probs, _ := s.Doctor(false)
	want := []wantProblem{{0, "attributes", true, `missing lore's "*.jsonl -filter diff" and "*.toml merge -filter diff"`}}
	checkProblems(t, s.Rel(path), probs, want, false)
	probs, _ = s.Doctor(true)
	checkProblems(t, s.Rel(path), probs, want, true)
	if got := readFile(t, path); got != gitattributes {
		t.Fatalf("after --fix %q", got)
	}
	if probs, _ := s.Doctor(false); len(probs) != 0 {
		t.Fatalf("after --fix: %v", probs)
	}
}

func TestStatusCode(t *testing.T) {
	for want, st := range map[string][4]bool{
		"UU": {false, true, true, true}, "DU": {false, true, false, true}, "UD": {false, true, true, false},
		"AA": {false, false, true, true}, "AU": {false, false, true, false}, "UA": {false, false, false, true},
		"DD": {false, true, false, false},
	} {
		if got := statusCode(st); got != want {
			t.Errorf("%v: %s, want %s", st, got, want)
		}
	}
}

func TestIgnoreRuleWords(t *testing.T) {
	all := []string{"journal/", "patterns/", "failures/", "transfer/", "inbox/"}
	for _, c := range []struct {
		rule IgnoreRule
		want string
	}{
		{IgnoreRule{Source: ".gitignore", Line: "1", Pattern: ".*", Records: all, Files: []string{".lore/config.toml", ".lore/.gitattributes"}},
			"the store's records, .lore/config.toml and .lore/.gitattributes (.gitignore:1: .*)"},
		{IgnoreRule{Source: "/home/a/.config/git/ignore", Line: "3", Pattern: "*.toml", Records: []string{"patterns/"}, Files: []string{".lore/config.toml"}},
			"the store's records in patterns/ and .lore/config.toml (/home/a/.config/git/ignore:3: *.toml)"},
		{IgnoreRule{Source: ".gitignore", Line: "2", Pattern: ".*", Files: []string{".lore/.gitattributes"}},
			".lore/.gitattributes (.gitignore:2: .*)"},
	} {
		if got := c.rule.String(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	ig := &Ignored{name: ".lore", Rules: []IgnoreRule{
		{Source: ".gitignore", Line: "1", Pattern: "*.jsonl", store: ".lore"},
		{Source: ".lore/.gitignore", Line: "5", Pattern: "*.toml", store: ".lore"},
	}}
	if got, want := ig.Hint(), "add two lines at the end of .gitignore, beside .lore/: !.lore/ and !.lore/**; remove line 5 (*.toml) from .lore/.gitignore"; got != want {
		t.Errorf("hint %q, want %q", got, want)
	}
}
