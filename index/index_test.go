package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"lore/record"
	"lore/store"
)

// The index is derived: whatever happened to the shards, a snapshot must
// list exactly the current records a fresh parse of every shard finds.

func tokenizer() Tokenizer {
	return Tokenizer{Version: "test", Terms: func(r *record.Record) ([]string, []string) {
		return strings.Fields(strings.ToLower(r.Text)), strings.Fields(strings.ToLower(r.Rationale))
	}}
}

func newTestStore(t testing.TB) *store.Store {
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

// age moves the mtime of everything in the store but .local back by d.
func age(t testing.TB, dir string, d time.Duration) {
	t.Helper()
	when := time.Now().Add(-d)
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil && !strings.Contains(p, store.LocalDir) {
			os.Chtimes(p, when, when)
		}
		return nil
	})
}

func open(t *testing.T, s *store.Store, prompt bool) *Snapshot {
	t.Helper()
	snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tokenizer(), Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// openThorough opens the index as doctor does.
func openThorough(t *testing.T, s *store.Store) *Snapshot {
	t.Helper()
	snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tokenizer(), Thorough: true})
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
	if k == record.Failure {
		r.ErrorType, r.Tool = "NonZeroExit", "Bash"
	}
	if err := s.Append(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// state is what a snapshot serves, one line per current record.
func state(snap *Snapshot) []string {
	var out []string
	for _, r := range snap.Records() {
		out = append(out, fmt.Sprintf("%s %d %s/%s", r.ID, r.Time.UnixNano(), r.Text, r.Status))
	}
	slices.Sort(out)
	return out
}

func truth(t *testing.T, s *store.Store) []string {
	t.Helper()
	set, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range set.Current() {
		out = append(out, fmt.Sprintf("%s %d %s/%s", r.ID, r.Time.UnixNano(), r.Text, r.Status))
	}
	slices.Sort(out)
	return out
}

func mustMatch(t *testing.T, s *store.Store, snap *Snapshot, what string) {
	t.Helper()
	got, want := state(snap), truth(t, s)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: index serves\n  %s\nshards hold\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if snap.Count() != len(want) {
		t.Fatalf("%s: Count %d, want %d", what, snap.Count(), len(want))
	}
	set, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	versions := func(rs []*record.Record) (out []string) {
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%d %s", r.Time.UnixNano(), r.Text))
		}
		return out
	}
	for _, r := range snap.Records() {
		if got, want := versions(snap.History(r.ID)), versions(set.History(r.ID)); !slices.Equal(got, want) {
			t.Fatalf("%s: history of %s is %v, want %v", what, r.ID, got, want)
		}
		if id, err := snap.Resolve(r.ID); err != nil || id != r.ID {
			t.Fatalf("%s: Resolve(%s) = %q, %v", what, r.ID, id, err)
		}
	}
	// The accessors that read part of a doc read what Doc does.
	for i := range snap.Len() {
		d := snap.Doc(i)
		kind, status := snap.KindStatus(i)
		title, body := snap.Lengths(i)
		errorType, tool := snap.ErrorTool(i)
		if snap.ID(i) != d.ID || kind != d.Kind || status != d.Status || snap.Created(i) != d.Created ||
			title != d.NTitle || body != d.NBody || errorType != d.ErrorType || tool != d.Tool {
			t.Fatalf("%s: doc %d's accessors disagree with Doc %+v", what, i, d)
		}
	}
	// A kind's rows are read alone (OfKind, Newest with kinds) exactly
	// as a walk over every row finds them.
	for _, k := range record.AllKinds() {
		var want, got []int
		for i := range snap.Len() {
			if kind, _ := snap.KindStatus(i); kind == k && snap.Current(i) {
				want = append(want, i)
			}
		}
		for r := range snap.OfKind(k) {
			got = append(got, r.Doc)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: OfKind(%s) yields docs %v, want %v", what, k, got, want)
		}
		all := snap.Newest(0, nil, func(kind record.Kind, _ string) bool { return kind == k })
		if ofKind := snap.Newest(0, []record.Kind{k}, func(record.Kind, string) bool { return true }); !slices.Equal(ofKind, all) {
			t.Fatalf("%s: Newest of %s reads %d records, a walk over every row %d", what, k, len(ofKind), len(all))
		}
	}
	// Every current record is found by its terms, and nothing else is.
	for _, r := range snap.Records() {
		w := strings.Fields(strings.ToLower(r.Text))[0]
		found := false
		for _, p := range snap.Postings(w) {
			if !snap.Current(int(p.Doc)) {
				t.Fatalf("%s: postings for %q hold a version that is not current", what, w)
			}
			found = found || snap.Record(int(p.Doc)).ID == r.ID
		}
		if !found {
			t.Fatalf("%s: %s not found by %q", what, r.ID, w)
		}
	}
}

func TestWarmIndexParsesNothing(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Decision, "use jsonl storage")
	d := capture(t, s, record.Decision, "use sqlite index")
	capture(t, s, record.Pattern, "table driven tests")
	if _, err := s.Update(record.Decision, d.ID, func(r *record.Record) error { r.Status = record.StatusAbandoned; return nil }); err != nil {
		t.Fatal(err)
	}
	age(t, s.Dir, time.Hour)
	cold := open(t, s, false)
	mustMatch(t, s, cold, "cold")
	if cold.parsed == 0 {
		t.Fatal("the cold open parsed nothing")
	}
	for _, prompt := range []bool{false, true} {
		warm := open(t, s, prompt)
		mustMatch(t, s, warm, "warm")
		if warm.parsed != 0 {
			t.Fatalf("warm open (prompt=%v) parsed %d shards", prompt, warm.parsed)
		}
	}
}

// Shards written just before the first read are re-read until they are
// safely older than the index, then never again: no state in which every
// read pays for them.
func TestRecentShardsHealTheIndex(t *testing.T) {
	defer func(w int64) { racyWindow = w }(racyWindow)
	racyWindow = int64(100 * time.Millisecond)
	s := newTestStore(t)
	capture(t, s, record.Decision, "fresh decision")
	mustMatch(t, s, open(t, s, true), "first")
	time.Sleep(2 * time.Duration(racyWindow))
	open(t, s, true) // re-reads the racy shard once more and writes it back
	if snap := open(t, s, true); snap.parsed != 0 {
		t.Fatalf("still re-parsing %d shards after the window", snap.parsed)
	}
}

func TestAppendParsesOnlyTheAppendedShard(t *testing.T) {
	s := newTestStore(t)
	for i := range 300 {
		path := filepath.Join(s.Dir, "journal", "2025-01", fmt.Sprintf("main-old%03d.jsonl", i))
		writeRecords(t, path, record.Decision, 3, i)
	}
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	capture(t, s, record.Decision, "one more decision")
	snap := open(t, s, true)
	mustMatch(t, s, snap, "after a capture")
	if snap.parsed != 1 {
		t.Fatalf("a capture made the open parse %d shards", snap.parsed)
	}
}

func writeRecords(t testing.TB, path string, k record.Kind, n, seed int) []*record.Record {
	t.Helper()
	var b strings.Builder
	var out []*record.Record
	for i := range n {
		ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seed*1000+i) * time.Second)
		r := &record.Record{V: 1, ID: record.NewID(k, ts), Kind: k, Time: ts, Created: ts,
			Text: fmt.Sprintf("word%d shard %d item %d", seed%7, seed, i)}
		if k == record.Failure {
			r.ErrorType = "NonZeroExit"
		}
		line, err := r.MarshalLine()
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		out = append(out, r)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeadlineCutBuildIsNeverTakenAsComplete(t *testing.T) {
	s := newTestStore(t)
	for i := range 50 {
		writeRecords(t, filepath.Join(s.Dir, "failures", "2025-02", fmt.Sprintf("main-f%02d.jsonl", i)), record.Failure, 2, i)
	}
	age(t, s.Dir, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	snap, err := Open(ctx, s, SnapshotOptions{Tokenizer: tokenizer(), Prompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Partial {
		t.Fatal("a build cut by its deadline is not marked partial")
	}
	mustMatch(t, s, open(t, s, true), "after the cut build")
	if snap := open(t, s, true); snap.parsed != 0 {
		t.Fatalf("parsed %d shards after a complete build", snap.parsed)
	}
}

// A checkout replaces shards with other content (remove, create), removes
// some and adds others, in old months too.
// writeShards writes n journal shards of perShard decisions each, spread
// over twelve months, and returns their paths.
func writeShards(t testing.TB, s *store.Store, n, perShard int) []string {
	var paths []string
	for i := range n {
		p := filepath.Join(s.Dir, "journal", fmt.Sprintf("2024-%02d", i%12+1), fmt.Sprintf("main-s%03d.jsonl", i))
		writeRecords(t, p, record.Decision, perShard, i)
		paths = append(paths, p)
	}
	return paths
}

func TestCheckoutThatReplacesManyShards(t *testing.T) {
	s := newTestStore(t)
	paths := writeShards(t, s, 120, 2)
	age(t, s.Dir, time.Hour)
	mustMatch(t, s, open(t, s, true), "before")
	for i, p := range paths {
		switch i % 3 {
		case 0:
			os.Remove(p)
			writeRecords(t, p, record.Decision, 3, 1000+i) // other content, same name
		case 1:
			os.Remove(p)
		}
	}
	writeRecords(t, filepath.Join(s.Dir, "journal", "2023-05", "other-new.jsonl"), record.Decision, 4, 5000)
	age(t, s.Dir, 30*time.Minute)
	mustMatch(t, s, open(t, s, true), "after the checkout")
}

// After a checkout to a smaller store, the mean record lengths the ranker
// normalises by are the current records', as a fresh index has them, not
// the sums of every segment over the records left.
func TestCheckoutToASmallerStoreKeepsTheLengths(t *testing.T) {
	defer func(n int) { smallSegment = n }(smallSegment)
	smallSegment = 0 // the update is a segment of its own, as at 20k records
	s := newTestStore(t)
	long := writeShards(t, s, 40, 3)
	for i, p := range long { // long headlines, in a segment of their own
		rs := writeRecords(t, p, record.Decision, 3, 100+i)
		var b strings.Builder
		for _, r := range rs {
			r.Text += fmt.Sprintf(" extra%d", i) + " alpha beta gamma delta epsilon zeta eta theta iota kappa"
			line, err := r.MarshalLine()
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeRecords(t, filepath.Join(s.Dir, "failures", "2024-01", "main-short.jsonl"), record.Failure, 5, 900)
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	for _, p := range long[1:] { // the checkout leaves one long shard of 40
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	age(t, s.Dir, 30*time.Minute)
	after := open(t, s, false)
	if err := os.RemoveAll(indexDirOf(s.Dir, tokenizer())); err != nil {
		t.Fatal(err)
	}
	fresh := open(t, s, false)
	if after.Count() != fresh.Count() || after.Count() != 8 {
		t.Fatalf("%d records after the checkout, %d in a fresh index; want 8", after.Count(), fresh.Count())
	}
	at, ab := after.AvgTerms()
	ft, fb := fresh.AvgTerms()
	if math.Abs(at-ft) > 1e-9 || math.Abs(ab-fb) > 1e-9 {
		t.Errorf("mean lengths after the checkout %.3f, %.3f; a fresh index's %.3f, %.3f", at, ab, ft, fb)
	}
}

// A segment that cannot be written (a full disk) is not named by a new
// manifest: the index stays as it was, the reader answers from memory and
// says so, and the next reader, the disk freed, brings the index up to date.
func TestFailedSegmentWriteLeavesTheIndexAsItWas(t *testing.T) {
	s := newTestStore(t)
	writeShards(t, s, 6, 2)
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	before, err := os.ReadFile(manifestPath(s, tokenizer()))
	if err != nil {
		t.Fatal(err)
	}
	pulled := filepath.Join(s.Dir, "journal", "2025-03", "other-pulled.jsonl")
	writeRecords(t, pulled, record.Decision, 3, 77)
	settle(pulled)
	defer func(w func(string, ...[]byte) error) { writeSegmentFile = w }(writeSegmentFile)
	writeSegmentFile = func(string, ...[]byte) error { return syscall.ENOSPC }
	full := open(t, s, true)
	if !errors.Is(full.Unsaved, syscall.ENOSPC) || full.Count() != 15 {
		t.Fatalf("on a full disk: unsaved %v, %d records; want ENOSPC and 15", full.Unsaved, full.Count())
	}
	if after, _ := os.ReadFile(manifestPath(s, tokenizer())); !bytes.Equal(after, before) {
		t.Error("a manifest was published though its segment could not be written")
	}
	writeSegmentFile = writeFile
	freed := open(t, s, true)
	if freed.Unsaved != nil || freed.Read() != 1 {
		t.Errorf("the disk freed: unsaved %v, %d shards read; want the pulled shard read", freed.Unsaved, freed.Read())
	}
	mustMatch(t, s, open(t, s, false), "after the disk was freed")
}

// A shard added to a directory whose mtime is then set back to what the
// index knew (touch -d, cp -p, rsync -t, tools that restore mtimes from
// git) is read: the directory's change time moved.
func TestShardAddedUnderARestoredDirectoryMtimeIsRead(t *testing.T) {
	s := newTestStore(t)
	writeShards(t, s, 4, 2)
	age(t, s.Dir, time.Hour)
	month := filepath.Join(s.Dir, "journal", "2024-01")
	fi, err := os.Stat(month)
	if err != nil {
		t.Fatal(err)
	}
	open(t, s, true)
	time.Sleep(10 * time.Millisecond) // a change time the index has not seen, on coarse clocks too
	added := writeRecords(t, filepath.Join(month, "other-b.jsonl"), record.Decision, 1, 99)
	settle(filepath.Join(month, "other-b.jsonl"))
	if err := os.Chtimes(month, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []bool{true, false} {
		snap := open(t, s, prompt)
		if _, ok := snap.Lookup(added[0].ID); !ok {
			t.Fatalf("prompt %v: the shard added under a restored mtime is not read", prompt)
		}
	}
	mustMatch(t, s, open(t, s, false), "after the mtime was restored")
}

// Shards and directories dated in the future (a clock skew, an archive)
// are dated by their change time for the racy window: once past it, a
// reader neither lists them again nor rewrites the manifest.
func TestFutureMtimesLeaveTheRacyWindow(t *testing.T) {
	defer func(w int64) { racyWindow = w }(racyWindow)
	racyWindow = int64(time.Millisecond)
	s := newTestStore(t)
	writeShards(t, s, 4, 2)
	tomorrow := time.Now().Add(24 * time.Hour)
	filepath.Walk(s.Dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil && !strings.Contains(p, store.LocalDir) {
			os.Chtimes(p, tomorrow, tomorrow)
		}
		return nil
	})
	time.Sleep(20 * time.Millisecond) // the change times past the window; file times tick coarser than time.Now
	open(t, s, false)
	first := readManifest(s, tokenizer())
	time.Sleep(20 * time.Millisecond)
	open(t, s, false)
	if again := readManifest(s, tokenizer()); again.written != first.written {
		t.Error("a reader rewrote the manifest: it took the directories dated tomorrow for changed")
	}
}

// An index a LOREIDX4 lore wrote knows no directory's ctime and no
// segment's checksum: its directories are read once again (a shard added
// under a restored mtime is found), and a thorough scan rebuilds what it
// cannot vouch for.
func TestIndexOfTheFormatBeforeIsCheckedOnce(t *testing.T) {
	defer func(n int) { smallSegment = n }(smallSegment)
	smallSegment = 0 // the old segment is kept, not merged into the next
	s := newTestStore(t)
	writeShards(t, s, 4, 2)
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	m := readManifest(s, tokenizer())
	if err := os.WriteFile(manifestPath(s, tokenizer()), m.encodeAs(manifestMagicV4, tokenizer().stamp()), 0o644); err != nil {
		t.Fatal(err)
	}
	month := filepath.Join(s.Dir, "journal", "2024-01")
	fi, err := os.Stat(month)
	if err != nil {
		t.Fatal(err)
	}
	added := writeRecords(t, filepath.Join(month, "other-b.jsonl"), record.Decision, 1, 99)
	settle(filepath.Join(month, "other-b.jsonl"))
	os.Chtimes(month, fi.ModTime(), fi.ModTime())
	if _, ok := open(t, s, true).Lookup(added[0].ID); !ok {
		t.Fatal("a shard added under a restored mtime, after an upgrade, is not read")
	}
	if got := readManifest(s, tokenizer()); len(got.sums) == 0 || got.sums[0] != 0 {
		t.Fatalf("the segment carried over from the LOREIDX4 index: checksums %v, want 0 (not known) first", got.sums)
	}
	openThorough(t, s)
	if got := readManifest(s, tokenizer()); len(got.sums) != 1 || got.sums[0] == 0 {
		t.Errorf("after a thorough scan: checksums %v, want one known", got.sums)
	}
	mustMatch(t, s, open(t, s, false), "after the upgrade")
}

func TestDamagedIndexIsRebuilt(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Failure, "deploy failed")
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	segs, _ := filepath.Glob(filepath.Join(indexDir(s, tokenizer()), "*.seg"))
	if len(segs) != 1 {
		t.Fatalf("segments: %v", segs)
	}
	data, _ := os.ReadFile(segs[0])
	for _, cut := range []int{3, len(data) / 2, len(data) - 1} {
		segs, _ := filepath.Glob(filepath.Join(indexDir(s, tokenizer()), "*.seg"))
		for _, seg := range segs {
			os.WriteFile(seg, data[:cut], 0o644)
		}
		mustMatch(t, s, open(t, s, true), fmt.Sprintf("segment cut at %d", cut))
		if snap := open(t, s, true); snap.parsed != 0 {
			t.Fatalf("segment cut at %d: the rebuilt index was not kept (%d shards parsed again)", cut, snap.parsed)
		}
	}
	other := slices.Clone(data)
	copy(other, "LORESEG0") // another version of the format
	segs, _ = filepath.Glob(filepath.Join(indexDir(s, tokenizer()), "*.seg"))
	for _, seg := range segs {
		os.WriteFile(seg, other, 0o644)
	}
	mustMatch(t, s, open(t, s, true), "segment of another version")
	if snap := open(t, s, true); snap.parsed != 0 {
		t.Fatal("the index rebuilt over a segment of another version was not kept")
	}
	os.WriteFile(manifestPath(s, tokenizer()), []byte("LOREIDX2garbage"), 0o644)
	mustMatch(t, s, open(t, s, true), "garbage manifest")
	os.Remove(manifestPath(s, tokenizer()))
	mustMatch(t, s, open(t, s, true), "no manifest")
}

// editInPlace captures a record of kind k reading text, makes its shard
// an old one (an earlier month, everything aged, the index written after),
// then rewrites the shard in place, as some editors save (VS Code), with
// text changed to edited and the file's mtime kept in the past.
func editInPlace(t *testing.T, s *store.Store, k record.Kind, text, edited string) {
	t.Helper()
	capture(t, s, k, text)
	old := filepath.Join(s.Dir, k.Dir(), "2001-01")
	files, _ := s.Files(k)
	os.MkdirAll(old, 0o755)
	path := filepath.Join(old, "main-x"+k.Ext())
	os.Rename(files[0], path)
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	data, _ := os.ReadFile(path)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	f.Write([]byte(strings.Replace(string(data), text, edited, 1)))
	f.Close()
	os.Chtimes(path, time.Now().Add(-30*time.Minute), time.Now().Add(-30*time.Minute))
}

func TestPatternsEditedInPlaceAreSeenOutsidePrompts(t *testing.T) {
	s := newTestStore(t)
	editInPlace(t, s, record.Pattern, "old wording", "new wording")
	mustMatch(t, s, open(t, s, false), "hand edit")
}

// A JSONL shard edited in place by hand changes neither its directory nor
// a shard this checkout appends to: only a thorough scan (doctor's) sees it.
func TestThoroughScanSeesJSONLEditedInPlace(t *testing.T) {
	s := newTestStore(t)
	editInPlace(t, s, record.Decision, "use redis for caching", "use valkey for caching")
	if got := state(open(t, s, false)); strings.Contains(strings.Join(got, " "), "valkey") {
		t.Fatalf("a plain scan read the in-place edit (%v): the test no longer shows what Thorough adds", got)
	}
	snap := openThorough(t, s)
	mustMatch(t, s, snap, "in-place edit, thorough scan")
	mustMatch(t, s, open(t, s, false), "plain scan after a thorough one")
}

// A shard overwritten in place with its size and mtime kept (cp -p) looks
// unchanged to every stat: a thorough scan compares its content.
func TestThoroughScanSeesAShardOverwrittenWithItsStatKept(t *testing.T) {
	s := newTestStore(t)
	r := capture(t, s, record.Decision, "keep the gamma flag")
	files, _ := s.Files(record.Decision)
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	fi, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(files[0])
	f, err := os.OpenFile(files[0], os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(strings.Replace(string(data), "keep the gamma", "drop the gamma", 1)))
	f.Close()
	os.Chtimes(files[0], fi.ModTime(), fi.ModTime())
	if got := state(open(t, s, false)); !strings.Contains(strings.Join(got, " "), "keep the gamma") {
		t.Fatalf("a plain scan read the overwrite (%v): the test no longer shows what Thorough adds", got)
	}
	snap := openThorough(t, s)
	if i, ok := snap.Lookup(r.ID); !ok || snap.Record(i).Text != "drop the gamma flag" {
		t.Fatalf("a thorough scan after an overwrite that kept the stat: %v", state(snap))
	}
	if len(snap.Repaired) != 1 || snap.Repaired[0].Kind != "edited-in-place" || !strings.HasSuffix(snap.Repaired[0].File, filepath.Base(files[0])) {
		t.Errorf("repairs reported: %+v, want the shard overwritten", snap.Repaired)
	}
}

// A segment whose content is damaged but whose framing holds is served as
// it reads by a plain scan (only the pages a reader needs are touched); a
// thorough scan (doctor) compares its checksum and rebuilds the index.
func TestThoroughScanRebuildsASegmentDamagedInside(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Decision, "use postgres for the billing ledger")
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	m := readManifest(s, tokenizer())
	if len(m.sums) != len(m.segs) || m.sums[0] == 0 {
		t.Fatalf("the manifest holds checksums %v for segments %v", m.sums, m.segs)
	}
	path := filepath.Join(indexDirOf(s.Dir, tokenizer()), m.segs[0])
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if checksum(data) != m.sums[0] {
		t.Fatalf("the manifest's checksum %08x is not the file's, %08x", m.sums[0], checksum(data))
	}
	i := bytes.Index(data, []byte("postgres for the billing"))
	if i < 0 {
		t.Fatal("the record's text is not in its segment")
	}
	data[i] = 'X'
	if err := os.WriteFile(path, data, 0o644); err != nil { // in place, as damage is
		t.Fatal(err)
	}
	if got := strings.Join(state(open(t, s, false)), " "); !strings.Contains(got, "Xostgres") {
		t.Fatalf("a plain scan did not serve the damaged text (%s): the test no longer shows what the checksum adds", got)
	}
	snap := openThorough(t, s)
	mustMatch(t, s, snap, "a thorough scan of a segment damaged inside")
	if len(snap.Repaired) != 1 || snap.Repaired[0].Kind != "index-damaged" {
		t.Errorf("repairs reported: %+v, want the damaged index file", snap.Repaired)
	}
	mustMatch(t, s, open(t, s, false), "a plain scan after it")
}

// A purge's tombstone supersedes a version another segment holds, however
// late its timestamp: merged from a branch that purged the record, it
// leaves purged a revision made later on a branch that had not seen it.
// settle dates the shard at p and its two directories half an hour back,
// out of the racy window; the rest of the store keeps its times, so a
// reader parses that shard alone.
func settle(p string) {
	when := time.Now().Add(-30 * time.Minute)
	for _, f := range []string{p, filepath.Dir(p), filepath.Dir(filepath.Dir(p))} {
		os.Chtimes(f, when, when)
	}
}

// mergeIn writes line as the one line of a shard another branch's merge
// brought, settled.
func mergeIn(t *testing.T, s *store.Store, line []byte) {
	t.Helper()
	p := filepath.Join(s.Dir, "journal", "2030-01", "other-0000000-merged.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	settle(p)
}

func TestTombstoneSupersedesAVersionInAnotherSegment(t *testing.T) {
	defer func(n int) { smallSegment = n }(smallSegment)
	smallSegment = 0 // the merged shard stays a segment of its own
	s := newTestStore(t)
	writeShards(t, s, 40, 3)
	r := capture(t, s, record.Decision, "the host is db-prod-7")
	later := r.Derive(r.Time.Add(time.Hour), record.Origin{Branch: "main"})
	later.Text = "the host is db-prod-7, renamed"
	if err := s.Append(later); err != nil {
		t.Fatal(err)
	}
	age(t, s.Dir, time.Hour)
	mustMatch(t, s, open(t, s, true), "before the merge")
	// The merge brings the other branch's shard: the purge's tombstone,
	// older than the revision.
	line, _ := record.Tombstone(r, r.Time.Add(time.Minute), record.Origin{Branch: "other"}).MarshalLine()
	mergeIn(t, s, line)
	snap := open(t, s, true)
	if len(snap.segs) < 2 {
		t.Fatalf("%d segments: the test needs the tombstone in a segment of its own", len(snap.segs))
	}
	mustMatch(t, s, snap, "after the merge")
	if _, err := snap.Resolve(r.ID); err == nil || !strings.Contains(err.Error(), "was purged") {
		t.Errorf("Resolve(%s) of a purged record: %v", r.ID, err)
	}
	if len(snap.Postings("renamed")) != 0 {
		t.Error("the purged record's revision is searchable")
	}
}

// unreadable makes readShard fail for the shards whose path contains part,
// as a shard nobody may read does, until the test ends.
func unreadable(t *testing.T, part string) {
	t.Helper()
	t.Cleanup(func() { readShard = os.ReadFile })
	readShard = func(name string) ([]byte, error) {
		if strings.Contains(name, part) {
			return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrPermission}
		}
		return os.ReadFile(name)
	}
}

func TestUnreadableShardIsReportedAndTheRestServed(t *testing.T) {
	s := newTestStore(t)
	old := capture(t, s, record.Decision, "kept in the index")
	capture(t, s, record.Pattern, "readable pattern")
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	added := capture(t, s, record.Decision, "appended since")
	unreadable(t, "journal")

	for _, prompt := range []bool{false, true} {
		snap := open(t, s, prompt)
		if !snap.Partial || snap.Behind {
			t.Errorf("a snapshot missing an unreadable shard: partial %v, behind %v (time would not read it)", snap.Partial, snap.Behind)
		}
		var warned []string
		for _, w := range snap.Warnings {
			if w.Kind == record.WarnUnreadable {
				warned = append(warned, w.String())
			}
		}
		if len(warned) != 1 || !strings.Contains(warned[0], "journal/") || !strings.Contains(warned[0], "permission denied") {
			t.Fatalf("warnings %q, want one naming the journal shard and the cause", warned)
		}
		ids := map[string]bool{}
		for _, r := range snap.Records() {
			ids[r.ID] = true
		}
		if !ids[old.ID] || ids[added.ID] || len(ids) != 2 {
			t.Fatalf("served %v: want the indexed decision and the pattern, not what the unreadable shard gained", ids)
		}
	}

	readShard = os.ReadFile
	snap := open(t, s, false)
	if snap.Partial || len(snap.Warnings) != 0 {
		t.Fatalf("readable again: partial %v, warnings %v", snap.Partial, snap.Warnings)
	}
	mustMatch(t, s, snap, "once the shard reads again")
}

// A hook's open trusts patterns' directories, so it misses a patterns
// file edited in place; Unchanged, asked of the records it shows, sees
// the edit, and says nothing of records in files that did not change.
func TestUnchangedSeesAShownPatternEditedInPlace(t *testing.T) {
	s := newTestStore(t)
	other := capture(t, s, record.Decision, "use a queue for mail")
	editInPlace(t, s, record.Pattern, "old wording", "new wording")
	snap := open(t, s, true)
	if got := state(snap); !strings.Contains(strings.Join(got, " "), "old wording") {
		t.Fatalf("the prompt-mode open read the in-place edit (%v): the test no longer shows what Unchanged adds", got)
	}
	var pattern string
	for _, r := range snap.Records() {
		if r.Kind == record.Pattern {
			pattern = r.ID
		}
	}
	if !snap.Unchanged([]string{other.ID}) {
		t.Error("a decision whose shard did not change is not Unchanged")
	}
	if snap.Unchanged([]string{other.ID, pattern}) {
		t.Error("the pattern edited in place is Unchanged")
	}
	if snap := open(t, s, false); !snap.Unchanged([]string{other.ID, pattern}) {
		t.Error("not Unchanged after an open that compares every patterns shard")
	}
	if !SnapshotOf(snap.Records(), tokenizer()).Unchanged([]string{pattern}) {
		t.Error("a snapshot of records in memory is not Unchanged")
	}
}

// NewestOf keeps the records with a matching version, read from the rows
// (who wrote it, when), newest first; HasVersion agrees.
func TestNewestOfMatchesEveryVersion(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	version := func(id, author string, created time.Time, days int) *record.Record {
		return &record.Record{V: record.FormatVersion, ID: id, Kind: record.Decision, Text: "decision " + id,
			Author: author, Created: created, Time: created.Add(time.Duration(days) * 24 * time.Hour)}
	}
	grace, linus := "Grace Hopper <grace@example.com>", "Linus <linus@example.com>"
	recs := []*record.Record{
		version("dec-a", grace, base, 0),                   // Grace's, old
		version("dec-b", linus, base.Add(time.Hour), 0),    // Linus's, old
		version("dec-b", grace, base.Add(time.Hour), 30),   // revised by Grace later
		version("dec-c", linus, base.Add(2*time.Hour), 0),  // Linus's, old
		version("dec-c", linus, base.Add(2*time.Hour), 40), // revised by Linus later
		version("dec-d", "", base.Add(3*time.Hour), 50),    // no author
	}
	snap := SnapshotOf(recs, tokenizer())
	by := func(who string, from time.Time) *Versions {
		v := &Versions{From: from}
		if who != "" {
			v.Author = func(author string) bool { return strings.Contains(strings.ToLower(author), who) }
		}
		return v
	}
	all := func(record.Kind, string) bool { return true }
	for _, c := range []struct {
		match *Versions
		want  []string // newest first
	}{
		{by("grace", time.Time{}), []string{"dec-b", "dec-a"}},
		{by("linus", time.Time{}), []string{"dec-c", "dec-b"}},      // dec-b: Linus wrote its first version
		{by("linus", base.Add(10*24*time.Hour)), []string{"dec-c"}}, // his revision of dec-c is recent
		{by("grace", base.Add(10*24*time.Hour)), []string{"dec-b"}}, // her revision of dec-b
		{by("", base.Add(45*24*time.Hour)), []string{"dec-d"}},      // --since alone
		{by("nobody", time.Time{}), nil},
	} {
		var got []string
		for _, r := range snap.NewestOf(0, nil, all, c.match) {
			got = append(got, r.ID)
		}
		for _, id := range []string{"dec-a", "dec-b", "dec-c", "dec-d"} {
			if snap.HasVersion(id, c.match) != slices.Contains(c.want, id) {
				t.Errorf("HasVersion(%s) = %v, NewestOf: %v", id, !slices.Contains(c.want, id), c.want)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("got %v, want %v", got, c.want)
		}
	}
	if got := snap.NewestOf(1, nil, all, by("", time.Time{})); len(got) != 1 || got[0].ID != "dec-d" {
		t.Errorf("with a limit of 1: %v", got)
	}
}

// A version in an older segment counts for a record whose current version
// a newer segment holds: a revision merged in after the index was built.
func TestNewestOfReadsVersionsAcrossSegments(t *testing.T) {
	defer func(n int) { smallSegment = n }(smallSegment)
	smallSegment = 0 // the merged shard stays a segment of its own
	s := newTestStore(t)
	writeShards(t, s, 40, 3)
	s.SetOrigin(record.Origin{Author: "Alice <alice@example.com>", Branch: "main", Commit: strings.Repeat("a", 40)})
	r := capture(t, s, record.Decision, "use postgres")
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	later := r.Derive(r.Time.Add(time.Hour), record.Origin{Author: "Linus <linus@example.com>", Branch: "other"})
	later.Text = "use postgres 17"
	line, _ := later.MarshalLine()
	mergeIn(t, s, line)
	snap := open(t, s, true)
	if len(snap.segs) < 2 {
		t.Fatalf("%d segments: the test needs the revision in a segment of its own", len(snap.segs))
	}
	all := func(record.Kind, string) bool { return true }
	for _, who := range []string{"alice", "linus"} {
		v := &Versions{Author: func(a string) bool { return strings.Contains(strings.ToLower(a), who) }}
		got := snap.NewestOf(0, nil, all, v)
		if len(got) != 1 || got[0].ID != r.ID || got[0].Text != "use postgres 17" {
			t.Errorf("--author %s: %v", who, got)
		}
		if !snap.HasVersion(r.ID, v) {
			t.Errorf("HasVersion(%s) by %s is false", r.ID, who)
		}
	}
}
