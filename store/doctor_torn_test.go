package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/record"
)

// A torn line a record was appended to without a newline between (a
// writer that does not look at the shard's last byte; lore's own append
// starts a new line): the record is read, doctor names the line once, and
// --fix keeps the record on the line and the fragment in the quarantine.
func TestDoctorSeparatesARecordFromTheFragmentBeforeIt(t *testing.T) {
	for name, c := range map[string]struct{ content, kept, out string }{
		"mid-file": {
			obs("a", "one") + "\n" + obs("b", "two")[:30] + obs("c", "three") + "\n" + obs("d", "four") + "\n",
			obs("a", "one") + "\n" + obs("c", "three") + "\n" + obs("d", "four") + "\n",
			obs("b", "two")[:30] + "\n"},
		"CRLF": {
			obs("a", "one") + "\r\n" + obs("b", "two")[:12] + obs("c", "three") + "\r\n",
			obs("a", "one") + "\r\n" + obs("c", "three") + "\r\n",
			obs("b", "two")[:12] + "\n"},
		"last line, no newline": {
			obs("a", "one") + "\n" + obs("b", "two")[:50] + obs("c", "three"),
			obs("a", "one") + "\n" + obs("c", "three"),
			obs("b", "two")[:50] + "\n"},
		"first line after a byte-order mark": {
			"\xef\xbb\xbf" + obs("b", "two")[:1] + obs("c", "three") + "\n",
			"\xef\xbb\xbf" + obs("c", "three") + "\n",
			"{\n"},
	} {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t)
			path := filepath.Join(s.Dir, "inbox", "2020-01", "hand.jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			before := versions(t, path, []byte(c.content))
			if !slices.ContainsFunc(before, func(v string) bool { return strings.Contains(v, `"text":"three"`) }) {
				t.Fatalf("the record after the fragment is not read: %q", before)
			}
			line := strings.Count(c.content[:strings.Index(c.content, obs("c", "three"))], "\n") + 1
			want := []wantProblem{{line, "torn", true, "with a record (obs-cccccccc) appended after it on the same line: lore reads the record and skips the fragment"}}
			probs, err := s.Doctor(false)
			if err != nil {
				t.Fatal(err)
			}
			checkProblems(t, s.Rel(path), probs, want, false)

			probs, err = s.Doctor(true)
			if err != nil {
				t.Fatal(err)
			}
			checkProblems(t, s.Rel(path), probs, want, true)
			if !strings.Contains(probs[0].Message, "; the record kept on its line, the fragment moved to .lore/.local/quarantine/") {
				t.Errorf("fixed: %s", probs[0].Message)
			}
			got := readFile(t, path)
			if got != c.kept {
				t.Errorf("after --fix the file is\n%q\nwant\n%q", got, c.kept)
			}
			if after := versions(t, path, []byte(got)); !slices.Equal(after, before) {
				t.Errorf("record versions before %q, after %q", before, after)
			}
			if q := quarantined(t, s); q != c.out {
				t.Errorf("quarantined %q, want %q", q, c.out)
			}
			if probs, _ := s.Doctor(true); len(probs) != 0 {
				t.Errorf("after --fix: %v", probs)
			}
		})
	}
}

// A purge of the record after a fragment takes the record and leaves the
// fragment, as it leaves every byte that is not the record's.
func TestPurgeTakesARecordFromAfterAFragment(t *testing.T) {
	s := newTestStore(t)
	path := filepath.Join(s.Dir, "inbox", "2020-01", "hand.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	content := obs("a", "one") + "\n" + obs("b", "two")[:30] + obs("c", "secret") + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge("obs-cccccccc000000000"); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	if strings.Contains(got, "secret") || !strings.HasPrefix(got, obs("a", "one")+"\n"+obs("b", "two")[:30]+"\n") {
		t.Errorf("after the purge: %q", got)
	}
	recs, _, _ := record.ParseShard(path, []byte(got))
	for _, r := range recs {
		if r.ID == "obs-cccccccc000000000" && !r.Purged() {
			t.Errorf("still holds the record: %+v", r)
		}
	}
}
