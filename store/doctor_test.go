package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/record"
)

// Hand-edit damage and crash damage to a shard, and what doctor does about
// each. Shards are committed, so the rule under test is: --fix takes out
// only bytes it can prove are not a record (a torn JSONL tail, JSONL
// conflict-marker lines), keeps them in the quarantine, and leaves every
// other byte of the file where it was.

// obs is a whole observation line with an ID made from c.
func obs(c, text string) string {
	return `{"v":1,"id":"obs-` + strings.Repeat(c, 8) + `000000000","kind":"observation","ts":"2020-01-01T00:00:00Z","text":"` + text + `"}`
}

// table is a whole [[pattern]] table with an ID made from c.
func table(c, text string) string {
	return "[[pattern]]\nv = 1\nid = \"pat-" + strings.Repeat(c, 8) + "000000000\"\nts = 2020-01-01T00:00:00Z\ntext = \"" + text + "\"\n"
}

type wantProblem struct {
	line    int
	kind    string
	fixable bool
	msg     string // a part of the message
}

var damage = []struct {
	name    string
	kind    record.Kind // which shard format
	content string
	want    []wantProblem
	removed []int // the lines --fix takes out (1-based)
}{
	// Patterns files: people edit them by hand, and a table that does not
	// read is never taken out, whatever is wrong with it.
	{name: "toml unclosed quote", kind: record.Pattern,
		content: table("a", "good") + "\n[[pattern]]\nv = 1\nid = \"pat-bbbbbbbb000000000\"\nts = 2020-01-01T00:00:00Z\ntext = \"one typo\n\n" + table("c", "also good"),
		want:    []wantProblem{{11, "malformed", false, "malformed [[pattern]] table skipped"}}},
	{name: "toml missing ]]", kind: record.Pattern,
		// The bad header joins the table above, so neither reads: removing
		// "the bad table" would have taken a good record with it.
		content: table("a", "good") + "\n[[pattern]\nv = 1\nid = \"pat-bbbbbbbb000000000\"\nts = 2020-01-01T00:00:00Z\ntext = \"b\"\n",
		want:    []wantProblem{{7, "malformed", false, "expected end of table array name delimiter"}}},
	{name: "toml bad value type", kind: record.Pattern,
		content: table("a", "good") + "validations = \"many\"\n\n" + table("b", "good too"),
		want:    []wantProblem{{6, "malformed", false, "validations: is a string, where an integer is expected"}}},
	{name: "toml duplicate key", kind: record.Pattern,
		content: table("a", "good") + "text = \"again\"\n\n" + table("b", "good too"),
		want:    []wantProblem{{6, "malformed", false, "text"}}},
	{name: "toml table cut off at the end of the file", kind: record.Pattern,
		content: table("a", "good") + "\n[[pattern]]\nv = 1\nid = \"pat-bbbbbbbb000000000\"\nts = 2020-01-01T00:00:00Z\ntext = \"cut",
		want:    []wantProblem{{11, "malformed", false, "the file ends inside this table"}}},
	{name: "toml append cut in its header", kind: record.Pattern,
		// The header's start holds no record, and the table above it reads.
		content: table("a", "good") + "\n[[pat",
		want:    []wantProblem{{7, "torn", true, "header with no table after it"}},
		removed: []int{7}},
	{name: "toml append cut in its header, and a capture after it", kind: record.Pattern,
		// The capture started a new line: the fragment is a table of its
		// own, which costs neither the table above nor the one after.
		content: table("a", "good") + "\n[[pat\n\n" + table("c", "after"),
		want:    []wantProblem{{7, "torn", true, "header with no table after it"}},
		removed: []int{7}},
	{name: "toml two appends cut in their headers", kind: record.Pattern,
		content: table("a", "good") + "\n[[pat\n[[\n\n" + table("c", "after"),
		want:    []wantProblem{{7, "torn", true, "header with no table after it"}, {8, "torn", true, "header with no table after it"}},
		removed: []int{7, 8}},
	{name: "toml append cut right after its header", kind: record.Pattern,
		content: table("a", "good") + "\n[[pattern]]\n# nothing yet\n\n" + table("c", "after"),
		want:    []wantProblem{{7, "torn", true, "header with no table after it"}},
		removed: []int{7}},
	{name: "toml header without its keys' table", kind: record.Pattern,
		// A header that lost its closing brackets before keys: they may be
		// a record, so the table stays for a person.
		content: table("a", "good") + "\n[[pat\nv = 1\nid = \"pat-bbbbbbbb000000000\"\nts = 2020-01-01T00:00:00Z\ntext = \"b\"\n",
		want:    []wantProblem{{7, "malformed", false, "malformed [[pattern]] table skipped"}}},
	{name: "toml conflict markers", kind: record.Pattern,
		// Both sides read (two versions of pat-bbbbbbbb): only the markers
		// are reported.
		content: table("a", "good") + "\n[[pattern]]\nv = 1\nid = \"pat-bbbbbbbb000000000\"\n<<<<<<< HEAD\nts = 2020-01-01T00:00:00Z\ntext = \"ours\"\n=======\nts = 2020-01-02T00:00:00Z\ntext = \"theirs\"\n>>>>>>> other\n",
		want: []wantProblem{
			{10, "conflict", false, "git conflict marker in a patterns file"},
			{13, "conflict", false, "git conflict marker"},
			{16, "conflict", false, "git conflict marker"},
		}},
	{name: "toml conflict with one side malformed", kind: record.Pattern,
		// Ours reads; theirs is reported at its line, in the file's order.
		content: table("a", "good") + "\n[[pattern]]\nv = 1\nid = \"pat-bbbbbbbb000000000\"\nts = 2020-01-01T00:00:00Z\n<<<<<<< HEAD\ntext = \"ours\"\n=======\ntext = \"theirs\"\nvalidations = \"many\"\n>>>>>>> other\n",
		want: []wantProblem{
			{11, "conflict", false, "git conflict marker in a patterns file"},
			{13, "conflict", false, "git conflict marker"},
			{15, "malformed", false, "validations: is a string, where an integer is expected"},
			{16, "conflict", false, "git conflict marker"},
		}},
	{name: "toml stray text", kind: record.Pattern,
		content: "patterns for the deploy\n" + table("a", "good"),
		want:    []wantProblem{{1, "malformed", false, "text outside a [[pattern]] table"}}},
	{name: "toml CRLF", kind: record.Pattern,
		content: strings.ReplaceAll(table("a", "good")+"\n"+table("b", "good too"), "\n", "\r\n")},
	{name: "toml empty lines", kind: record.Pattern,
		content: "\n\n" + table("a", "good") + "\n\n\n" + table("b", "good too") + "\n\n"},

	// JSONL: a line that does not read is a record someone may have
	// mistyped, unless it is provably the torn end of an interrupted write.
	{name: "jsonl missing opening brace mid-file", kind: record.Observation,
		content: obs("a", "one") + "\n" + strings.TrimPrefix(obs("b", "two"), "{") + "\n" + obs("c", "three") + "\n",
		want:    []wantProblem{{2, "malformed", false, "malformed record skipped: "}}},
	{name: "jsonl missing closing brace mid-file", kind: record.Observation,
		content: obs("a", "one") + "\n" + strings.TrimSuffix(obs("b", "two"), "}") + "\n" + obs("c", "three") + "\n",
		want:    []wantProblem{{2, "malformed", false, "the line is cut off"}}},
	{name: "jsonl invalid escape", kind: record.Observation,
		content: obs("a", "one") + "\n" + obs("b", `C:\qtwo`) + "\n" + obs("c", "three") + "\n",
		want:    []wantProblem{{2, "malformed", false, "invalid character 'q' in string escape code"}}},
	{name: "jsonl invalid escape on the last line without newline", kind: record.Observation,
		content: obs("a", "one") + "\n" + obs("b", `C:\qtwo`),
		want:    []wantProblem{{2, "malformed", false, "in string escape code"}}},
	{name: "jsonl bad id", kind: record.Observation,
		content: obs("a", "one") + "\n" + strings.Replace(obs("b", "two"), "obs-bbbbbbbb", "obs-!!", 1) + "\n" + obs("c", "three") + "\n",
		want:    []wantProblem{{2, "malformed", false, `bad id "obs-!!000000000"`}}},
	{name: "jsonl missing ts", kind: record.Observation,
		content: obs("a", "one") + "\n" + strings.Replace(obs("b", "two"), `"ts":"2020-01-01T00:00:00Z",`, "", 1) + "\n",
		want:    []wantProblem{{2, "malformed", false, `missing timestamp "ts"`}}},
	{name: "jsonl bad id on the last line without newline", kind: record.Observation,
		// Whole JSON is something someone wrote, newline or not.
		content: obs("a", "one") + "\n" + strings.Replace(obs("b", "two"), "obs-bbbbbbbb", "obs-!!", 1),
		want:    []wantProblem{{2, "malformed", false, "bad id"}}},
	{name: "jsonl torn last line", kind: record.Observation,
		content: obs("a", "one") + "\n" + obs("b", "two") + "\n" + obs("c", "three")[:40],
		want:    []wantProblem{{3, "torn", true, "torn last line"}},
		removed: []int{3}},
	{name: "jsonl torn last line in a CRLF file", kind: record.Observation,
		content: obs("a", "one") + "\r\n" + obs("b", "two") + "\r\n" + obs("c", "three")[:12],
		want:    []wantProblem{{3, "torn", true, "torn last line"}},
		removed: []int{3}},
	{name: "jsonl torn line a later append started after", kind: record.Observation,
		// The fragment has its newline now: lore cannot prove it is not a
		// record cut by a hand edit, so it says what it looks like.
		content: obs("a", "one") + "\n" + obs("b", "two")[:30] + "\n" + obs("c", "three") + "\n",
		want:    []wantProblem{{2, "malformed", false, "if it is the rest of an interrupted write, delete it"}}},
	{name: "jsonl conflict markers", kind: record.Observation,
		content: obs("a", "one") + "\n<<<<<<< HEAD\n" + obs("b", "ours") + "\n=======\n" + obs("c", "theirs") + "\n>>>>>>> other\n",
		want: []wantProblem{
			{2, "conflict", true, "git conflict marker"},
			{4, "conflict", true, "git conflict marker"},
			{6, "conflict", true, "git conflict marker"},
		},
		removed: []int{2, 4, 6}},
	{name: "jsonl diff3 conflict markers, CRLF, and a torn tail", kind: record.Observation,
		content: "<<<<<<< HEAD\r\n" + obs("b", "ours") + "\r\n||||||| base\r\n" + obs("a", "base") + "\r\n=======\r\n" + obs("c", "theirs") + "\r\n>>>>>>> other\r\n" + obs("d", "torn")[:20],
		want: []wantProblem{
			{1, "conflict", true, "git conflict marker"},
			{3, "conflict", true, "git conflict marker"},
			{5, "conflict", true, "git conflict marker"},
			{7, "conflict", true, "git conflict marker"},
			{8, "torn", true, "torn last line"},
		},
		removed: []int{1, 3, 5, 7, 8}},
	// Read all the same, but worth a person's look.
	{name: "jsonl bytes that are not UTF-8", kind: record.Observation,
		content: obs("a", "one") + "\n" + obs("b", "caf\xe9 \xff") + "\n" + obs("c", "three") + "\n",
		want:    []wantProblem{{2, "encoding", false, "not UTF-8, read as U+FFFD"}}},
	{name: "toml bytes that are not UTF-8", kind: record.Pattern,
		content: table("a", "one") + "\n" + table("b", "na\xefve"),
		want:    []wantProblem{{11, "malformed", false, "invalid UTF-8 byte"}}},
	{name: "jsonl a decision in the inbox", kind: record.Observation,
		content: obs("a", "one") + "\n" + `{"v":1,"id":"dec-bbbbbbbb000000000","kind":"decision","ts":"2020-01-01T00:00:00Z","text":"two"}` + "\n",
		want:    []wantProblem{{2, "misplaced", false, "dec-bbbbbbbb is a decision in inbox/ (lore keeps decisions in journal/)"}}},
	{name: "jsonl CRLF", kind: record.Observation,
		content: obs("a", "one") + "\r\n" + obs("b", "two") + "\r\n"},
	{name: "jsonl empty lines", kind: record.Observation,
		content: "\n" + obs("a", "one") + "\n\n   \n" + obs("b", "two") + "\n\n"},
	{name: "jsonl last record without newline", kind: record.Observation,
		content: obs("a", "one") + "\n" + obs("b", "two")},
}

func TestDoctorRemovesOnlyWhatIsProvablyNotARecord(t *testing.T) {
	for _, c := range damage {
		t.Run(c.name, func(t *testing.T) {
			s := newTestStore(t)
			path := filepath.Join(s.Dir, c.kind.Dir(), "2020-01", "hand"+c.kind.Ext())
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(c.content, "\n")
			var wantKept, wantOut strings.Builder
			for i, l := range lines {
				if slices.Contains(c.removed, i+1) {
					wantOut.WriteString(l)
				} else {
					wantKept.WriteString(l)
				}
			}
			recsBefore := versions(t, path, []byte(c.content))

			// Without --fix nothing changes, and every problem is named.
			probs, err := s.Doctor(false)
			if err != nil {
				t.Fatal(err)
			}
			checkProblems(t, s.Rel(path), probs, c.want, false)
			if got := readFile(t, path); got != c.content {
				t.Fatalf("doctor without --fix changed the file:\n%q", got)
			}

			probs, err = s.Doctor(true)
			if err != nil {
				t.Fatal(err)
			}
			checkProblems(t, s.Rel(path), probs, c.want, true)
			got := readFile(t, path)
			if got != wantKept.String() {
				t.Errorf("after --fix the file is\n%q\nwant\n%q", got, wantKept.String())
			}
			if after := versions(t, path, []byte(got)); !slices.Equal(after, recsBefore) {
				t.Errorf("record versions before %q, after %q", recsBefore, after)
			}
			if q := quarantined(t, s); q != wantOut.String() {
				t.Errorf("quarantined %q, want %q", q, wantOut.String())
			}

			// What is left is what needs a person, and doctor says how.
			probs, err = s.Doctor(true)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probs {
				if p.Fixable || p.Fixed {
					t.Errorf("a second --fix still repairs: %v", p)
				}
				if !strings.Contains(p.Message, "by hand, then run 'lore doctor' again") {
					t.Errorf("no fix to make by hand: %v", p)
				}
			}
			if n := len(probs); n != len(c.want)-len(c.removed) {
				t.Errorf("after --fix %d problems remain, want %d: %v", n, len(c.want)-len(c.removed), probs)
			}
			if got2 := readFile(t, path); got2 != got {
				t.Errorf("a second --fix changed the file:\n%q", got2)
			}
		})
	}
}

// checkProblems compares doctor's report about file with want, in order.
func checkProblems(t *testing.T, file string, probs []Problem, want []wantProblem, fixed bool) {
	t.Helper()
	var got []Problem
	for _, p := range probs {
		if p.File != file {
			t.Errorf("a problem elsewhere in the store: %v", p)
			continue
		}
		got = append(got, p)
	}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		p := got[i]
		if p.Line != w.line || p.Kind != w.kind || p.Fixable != w.fixable || p.Fixed != (fixed && w.fixable) || !strings.Contains(p.Message, w.msg) {
			t.Errorf("problem %d: %+v\nwant line %d, kind %s, fixable %v, fixed %v, message with %q", i, p, w.line, w.kind, w.fixable, fixed && w.fixable, w.msg)
		}
		if !w.fixable && !strings.Contains(p.Message, "edit the") {
			t.Errorf("problem %d does not say what to fix by hand: %s", i, p.Message)
		}
	}
}

// versions is every record version a shard holds, as JSONL lines.
func versions(t *testing.T, path string, data []byte) []string {
	t.Helper()
	recs, _, err := record.ParseShard(path, data)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		line, err := r.MarshalLine()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(line))
	}
	return out
}

// quarantined is everything in the quarantine, in name order.
func quarantined(t *testing.T, s *Store) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.Dir, LocalDir, "quarantine", "*"))
	var b strings.Builder
	for _, f := range files {
		b.WriteString(readFile(t, f))
	}
	return b.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Doctor keeps no record past its shard's check; the versions of one ID
// at one timestamp are compared by reading their shards again. A version
// that reached the store twice (or three times) is no tie; two contents
// are, once, whether --fix rewrote the shard around them or not.
func TestDoctorTies(t *testing.T) {
	for _, fix := range []bool{false, true} {
		s := newTestStore(t)
		dir := filepath.Join(s.Dir, "inbox", "2020-01")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(obs("a", "one side")+"\n"+obs("b", "same twice")+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte("<<<<<<< HEAD\n"+obs("b", "same twice")+"\n=======\n"+obs("a", "other side")+"\n>>>>>>> theirs\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(obs("a", "one side")+"\n"), 0o644) // a.jsonl's again
		probs, err := s.Doctor(fix)
		if err != nil {
			t.Fatal(err)
		}
		var ties []Problem
		for _, p := range probs {
			if p.Kind == "tie" {
				ties = append(ties, p)
			}
		}
		wantLine := 4
		if fix {
			wantLine = 2 // the marker lines went to the quarantine
		}
		if len(ties) != 1 || ties[0].File != ".lore/inbox/2020-01/b.jsonl" || ties[0].Line != wantLine ||
			!strings.Contains(ties[0].Message, "obs-aaaaaaaa has two different versions") {
			t.Errorf("fix %v: ties %+v, want obs-aaaaaaaa's in b.jsonl line %d", fix, ties, wantLine)
		}
	}
}

func TestDoctorReportsAnUnreadableShard(t *testing.T) {
	s := newTestStore(t)
	add(t, s, record.Decision, "a decision", nil)
	t.Cleanup(func() { readShard = os.ReadFile })
	readShard = func(name string) ([]byte, error) {
		if strings.HasSuffix(name, ".jsonl") {
			return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrPermission}
		}
		return os.ReadFile(name)
	}
	probs, err := s.Doctor(false)
	if err != nil {
		t.Fatalf("doctor failed on an unreadable shard instead of reporting it: %v", err)
	}
	var got []Problem
	for _, p := range probs {
		if p.Kind == "unreadable" {
			got = append(got, p)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0].String(), "journal/") || !strings.Contains(got[0].String(), "permission denied") || got[0].Fixable {
		t.Fatalf("problems %v, want one unreadable journal shard, not fixable", probs)
	}
}

// A directory under .local that doctor cannot read (another user's index
// of another lore version, in a checkout shared by a group) is not this
// user's to check: doctor stopped there with one line, checking nothing.
// One among the records is still an error.
func TestDoctorSkipsWhatItCannotReadUnderLocal(t *testing.T) {
	s := newTestStore(t)
	add(t, s, record.Decision, "a decision", nil)
	theirs := filepath.Join(s.Dir, LocalDir, IndexDir, "LOREIDX9-LORESEG9-kw10_r3")
	if err := os.MkdirAll(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	unreadable := theirs
	t.Cleanup(func() { walkStore = filepath.WalkDir })
	walkStore = func(root string, fn fs.WalkDirFunc) error {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if p == unreadable && err == nil && d.IsDir() {
				if err := fn(p, d, nil); err != nil {
					return err
				}
				return fn(p, d, &os.PathError{Op: "open", Path: p, Err: os.ErrPermission})
			}
			return fn(p, d, err)
		})
	}
	if _, err := s.Doctor(false); err != nil {
		t.Errorf("doctor stopped at another user's index: %v", err)
	}
	unreadable = filepath.Join(s.Dir, "journal")
	if _, err := s.Doctor(false); err == nil {
		t.Error("doctor said nothing of a directory of records it cannot read")
	}
}

// A version dated more than futureSlack ahead of the clock is named; one
// a few minutes ahead (clocks differ that much) is not.
func TestDoctorFutureDates(t *testing.T) {
	s := newTestStore(t)
	now := time.Date(2019, 12, 31, 23, 0, 0, 0, time.UTC) // obs() dates its records 2020-01-01
	dir := filepath.Join(s.Dir, "inbox", "2020-01")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(obs("a", "an hour ahead")+"\n"), 0o644)
	for _, c := range []struct {
		now  time.Time
		want string
	}{
		{now.Add(-time.Minute), "obs-aaaaaaaa is dated 2020-01-01 00:00 UTC, 1 hour ahead"},
		{now.Add(-50 * time.Hour), "obs-aaaaaaaa is dated 2020-01-01 00:00 UTC, 2 days ahead"},
		{now.Add(time.Minute), ""},
	} {
		s.Now = func() time.Time { return c.now }
		probs, err := s.Doctor(false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range probs {
			if p.Kind == "future" {
				got = append(got, p.String())
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("at %v: %q, want no date reported (within the slack)", c.now, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], ".lore/inbox/2020-01/a.jsonl:1: "+c.want)):
			t.Errorf("at %v: %q, want one report %q", c.now, got, c.want)
		}
	}
}
