package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/record"
	"lore/store"
)

var testTok = Tokenizer{Version: "test1", Terms: func(r *record.Record) ([]string, []string) {
	return strings.Fields(strings.ToLower(r.Text)), strings.Fields(strings.ToLower(r.Rationale))
}}

// age sets every file and directory under dir to d in the past, so the
// cache trusts them (entries newer than the cache's racy window are re-read).
func age(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	when := time.Now().Add(-d)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !strings.Contains(p, store.LocalDir) {
			os.Chtimes(p, when, when)
		}
		return nil
	})
}

func newTestStore(t *testing.T) *store.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if _, err := store.Init(dir); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.SetOrigin(record.Origin{Author: "T", Branch: "main", Commit: strings.Repeat("a", 40)})
	return s
}

func texts(snap *Snapshot) []string {
	var out []string
	for _, r := range snap.Records() {
		out = append(out, r.Text+"/"+r.Status)
	}
	slices.Sort(out)
	return out
}

func snapshot(t *testing.T, s *store.Store, fast bool) *Snapshot {
	t.Helper()
	snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: testTok, Fast: fast})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func capture(t *testing.T, s *store.Store, k record.Kind, text string) *record.Record {
	t.Helper()
	r, err := s.New(k, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSnapshotWarmMatchesFreshParse(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Decision, "use jsonl storage")
	capture(t, s, record.Pattern, "table driven tests")
	d := capture(t, s, record.Decision, "use sqlite index")
	if _, err := s.Update(record.Decision, d.ID, func(r *record.Record) error { r.Status = record.StatusAbandoned; return nil }); err != nil {
		t.Fatal(err)
	}
	age(t, s.Dir, time.Hour)
	want := []string{"table driven tests/", "use jsonl storage/", "use sqlite index/abandoned"}
	for _, fast := range []bool{false, true, false} { // cold, warm, warm
		if got := texts(snapshot(t, s, fast)); !slices.Equal(got, want) {
			t.Fatalf("fast=%v: %v, want %v", fast, got, want)
		}
	}
	if _, err := os.Stat(cachePath(s)); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	// Terms are served from the index.
	snap := snapshot(t, s, true)
	if ps := snap.Postings("jsonl"); len(ps) != 1 || !ps[0].Title || snap.Record(ps[0].Doc).Text != "use jsonl storage" {
		t.Fatalf("postings for jsonl: %v", ps)
	}
}

func TestSnapshotSeesAppendsAsDelta(t *testing.T) {
	s := newTestStore(t)
	d := capture(t, s, record.Decision, "first decision")
	age(t, s.Dir, time.Hour)
	snapshot(t, s, true) // writes the cache
	capture(t, s, record.Decision, "second decision")
	if _, err := s.Update(record.Decision, d.ID, func(r *record.Record) error { r.Text = "first, revised"; return nil }); err != nil {
		t.Fatal(err)
	}
	age(t, s.Dir, 30*time.Minute)
	snap := snapshot(t, s, true)
	if got, want := texts(snap), []string{"first, revised/", "second decision/"}; !slices.Equal(got, want) {
		t.Fatalf("after appends: %v, want %v", got, want)
	}
	if snap.remap == nil {
		t.Fatalf("small appends in fast mode should be merged as a delta, not rebuild the cache")
	}
	// "first" was in the old headline only (the revision tokenizes "first,").
	if ps := snap.Postings("first"); len(ps) != 0 {
		t.Fatalf("superseded version still indexed: %v", ps)
	}
	if ps := snap.Postings("second"); len(ps) != 1 || snap.Record(ps[0].Doc).Text != "second decision" {
		t.Fatalf("appended record not indexed: %v", ps)
	}
}

func TestSnapshotRebuildsWhenAShardShrinks(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Observation, "keep me")
	capture(t, s, record.Observation, "purge me")
	age(t, s.Dir, time.Hour)
	snapshot(t, s, true)
	files, _ := s.Files(record.Observation)
	data, _ := os.ReadFile(files[0])
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(files[0], []byte(lines[0]), 0o644)
	age(t, s.Dir, 30*time.Minute)
	if got := texts(snapshot(t, s, true)); !slices.Equal(got, []string{"keep me/"}) {
		t.Fatalf("after shrinking: %v", got)
	}
}

func TestSnapshotSurvivesADamagedCache(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Failure, "deploy failed")
	age(t, s.Dir, time.Hour)
	snapshot(t, s, false)
	data, _ := os.ReadFile(cachePath(s))
	for _, cut := range []int{len(cacheMagic) + 3, len(data) / 2, len(data) - 1} {
		os.WriteFile(cachePath(s), data[:cut], 0o644)
		if got := texts(snapshot(t, s, true)); !slices.Equal(got, []string{"deploy failed/"}) {
			t.Fatalf("cache cut at %d: %v", cut, got)
		}
	}
	garbage := append([]byte(cacheMagic), strings.Repeat("\xff", 64)...)
	os.WriteFile(cachePath(s), garbage, 0o644)
	if got := texts(snapshot(t, s, true)); !slices.Equal(got, []string{"deploy failed/"}) {
		t.Fatalf("garbage cache: %v", got)
	}
}

func TestFastSnapshotSeesPatternsEditedInPlace(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Pattern, "old wording")
	// An older month: only a hand edit could change it.
	old := filepath.Join(s.Dir, "patterns", "2001-01")
	files, _ := s.Files(record.Pattern)
	os.MkdirAll(old, 0o755)
	os.Rename(files[0], filepath.Join(old, "main-x.toml"))
	age(t, s.Dir, time.Hour)
	snapshot(t, s, true)
	path := filepath.Join(old, "main-x.toml")
	data, _ := os.ReadFile(path)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0) // in place, as editors do
	f.Write([]byte(strings.Replace(string(data), "old wording", "new wording", 1)))
	f.Close()
	os.Chtimes(path, time.Now().Add(-30*time.Minute), time.Now().Add(-30*time.Minute))
	if got := texts(snapshot(t, s, true)); !slices.Equal(got, []string{"new wording/"}) {
		t.Fatalf("hand edit missed: %v", got)
	}
}

func TestSnapshotRebuildsForANewTokenizer(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Decision, "Alpha Beta")
	age(t, s.Dir, time.Hour)
	snapshot(t, s, true)
	upper := Tokenizer{Version: "test2", Terms: func(r *record.Record) ([]string, []string) { return strings.Fields(r.Text), nil }}
	snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: upper, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Postings("Alpha")) != 1 || len(snap.Postings("alpha")) != 0 {
		t.Fatalf("terms from the old tokenizer served")
	}
}
