package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"lore/record"
	"lore/store"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNewTokenizerRebuilds(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Decision, "Alpha Beta")
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	upper := Tokenizer{Version: "test2", Terms: func(r *record.Record) ([]string, []string) { return strings.Fields(r.Text), nil }}
	snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: upper})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Postings("Alpha")) != 1 || len(snap.Postings("alpha")) != 0 {
		t.Fatal("terms from the old tokenizer served")
	}
}

// An index that a binary with other shard readers built is rebuilt, though
// no shard changed: what an unchanged shard reads as is what changed (a
// TOML table in conflict, once dropped, is now read as both sides). The
// shard is edited behind the index's back, its size, inode and time kept,
// so that only a rebuild can see the edit.
func TestIndexOfOtherReadersRebuilds(t *testing.T) {
	defer func(v string) { readVersion = v }(readVersion)
	s := newTestStore(t)
	capture(t, s, record.Decision, "Alpha Beta")
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	shards, _ := filepath.Glob(filepath.Join(s.Dir, "journal", "*", "*.jsonl"))
	if len(shards) != 1 {
		t.Fatalf("shards %v, want one", shards)
	}
	shard := shards[0]
	fi, err := os.Stat(shard)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(shard)
	if err := os.WriteFile(shard, bytes.Replace(data, []byte("Alpha"), []byte("Gamma"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(shard, fi.ModTime(), fi.ModTime())
	if len(open(t, s, false).Postings("alpha")) != 1 {
		t.Fatal("the index did not trust the unchanged shard: this test shows nothing")
	}
	readVersion += "-next"
	snap := open(t, s, false)
	if len(snap.Postings("gamma")) != 1 || len(snap.Postings("alpha")) != 0 {
		t.Fatal("an index of other readers was served")
	}
}

// Random histories: captures, revisions, new shards from a pull, removed
// and replaced shards, rewrites by rename, in any month, read at any age
// and by concurrent readers. After each step the index must agree with a
// fresh parse.
func TestRandomHistoriesMatchAFreshParse(t *testing.T) {
	defer func(w int64, n int) { racyWindow, smallSegment = w, n }(racyWindow, smallSegment)
	racyWindow = int64(20 * time.Millisecond)
	for seed := range uint64(8) {
		// Small segments merge into the next; with 0, every update is a
		// segment of its own, and the view resolves across all of them.
		smallSegment = []int{0, 1024}[seed%2]
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			s := newTestStore(t)
			var ids []string
			for step := range 60 {
				switch op := rng.IntN(7); {
				case op <= 1 || len(ids) == 0:
					k := []record.Kind{record.Decision, record.Failure, record.Pattern}[rng.IntN(3)]
					ids = append(ids, capture(t, s, k, fmt.Sprintf("word%d step %d", rng.IntN(5), step)).ID)
				case op == 2:
					id := ids[rng.IntN(len(ids))]
					k, _ := record.KindOfID(id)
					_, err := s.Update(k, id, func(r *record.Record) error { r.Text = fmt.Sprintf("word%d revised %d", rng.IntN(5), step); return nil })
					var nf *store.NotFoundError
					if err != nil && !errors.As(err, &nf) { // a checkout may have removed it
						t.Fatal(err)
					}
				case op == 3: // a pull: new shards, some in old months
					month := fmt.Sprintf("2025-%02d", rng.IntN(3)+1)
					for _, r := range writeRecords(t, filepath.Join(s.Dir, "journal", month, fmt.Sprintf("other-%d.jsonl", step)), record.Decision, rng.IntN(4)+1, step) {
						ids = append(ids, r.ID)
					}
				case op == 4: // a checkout removes or replaces a shard
					files, _ := s.Files()
					if len(files) == 0 {
						continue
					}
					f := files[rng.IntN(len(files))]
					os.Remove(f)
					if rng.IntN(2) == 0 && strings.HasSuffix(f, ".jsonl") {
						k := record.Decision
						if strings.Contains(f, "failures") {
							k = record.Failure
						}
						for _, r := range writeRecords(t, f, k, 2, 100+step) {
							ids = append(ids, r.ID)
						}
					}
				case op == 5: // a rewrite by rename (doctor, purge)
					files, _ := s.Files()
					if len(files) == 0 {
						continue
					}
					f := files[rng.IntN(len(files))]
					data, _ := os.ReadFile(f)
					if err := store.WriteAtomic(f, data); err != nil {
						t.Fatal(err)
					}
				case op == 6:
					age(t, s.Dir, time.Duration(rng.IntN(3))*time.Hour)
				}
				if rng.IntN(4) == 0 {
					time.Sleep(time.Duration(racyWindow))
				}
				if rng.IntN(5) == 0 { // two readers at once
					var wg sync.WaitGroup
					for range 2 {
						wg.Go(func() {
							if _, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tokenizer()}); err != nil {
								t.Error(err)
							}
						})
					}
					wg.Wait()
				}
				mustMatch(t, s, open(t, s, rng.IntN(2) == 0), fmt.Sprintf("step %d", step))
			}
		})
	}
}

func TestResolveAndShards(t *testing.T) {
	s := newTestStore(t)
	a := capture(t, s, record.Decision, "alpha")
	capture(t, s, record.Decision, "beta")
	if _, err := s.Update(record.Decision, a.ID, func(r *record.Record) error { r.Text = "alpha two"; return nil }); err != nil {
		t.Fatal(err)
	}
	snap := open(t, s, false)
	id, err := snap.Resolve(a.ID[:len(a.ID)-2])
	if err != nil || id != a.ID {
		t.Fatalf("Resolve: %q %v", id, err)
	}
	if _, err := snap.Resolve("dec-"); err == nil {
		t.Fatal("an ambiguous prefix resolved")
	}
	if _, err := snap.Resolve("dec-zzzz"); err == nil {
		t.Fatal("an unknown prefix resolved")
	}
	d, ok := snap.Lookup(a.ID)
	if !ok || snap.Record(d).Text != "alpha two" {
		t.Fatalf("Lookup: %v %v", ok, snap.Record(d))
	}
	if sh := snap.Shards(a.ID); len(sh) != 1 || !strings.HasPrefix(sh[0], "journal/") {
		t.Fatalf("Shards: %v", sh)
	}
}

// A shard changed in place within the same timestamp tick, keeping its
// size: stat cannot tell, the checksum of a recently modified shard can.
func TestRacyInPlaceChangeIsSeen(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Decision, "alpha decision")
	files, _ := s.Files(record.Decision)
	fi, _ := os.Stat(files[0])
	mustMatch(t, s, open(t, s, true), "first")
	data, _ := os.ReadFile(files[0])
	os.WriteFile(files[0], []byte(strings.Replace(string(data), "alpha", "gamma", 1)), 0o644)
	os.Chtimes(files[0], fi.ModTime(), fi.ModTime())
	snap := open(t, s, true)
	mustMatch(t, s, snap, "after the racy change")
	if got := state(snap); !strings.Contains(got[0], "gamma") {
		t.Fatalf("served %v", got)
	}
}

// A segment the manifest names has vanished (another process merged it
// away and the retry found it gone too): the index is rebuilt, not trusted.
func TestMissingSegmentRebuilds(t *testing.T) {
	s := newTestStore(t)
	writeRecords(t, filepath.Join(s.Dir, "journal", "2025-03", "other-a.jsonl"), record.Decision, 3, 1)
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	segs, _ := filepath.Glob(filepath.Join(indexDir(s, tokenizer()), "*.seg"))
	for _, seg := range segs {
		os.Remove(seg)
	}
	mustMatch(t, s, open(t, s, true), "segments removed")
}

// A hook's budget cut after a pull: the newest month's directory is read
// and its shards parsed first; the shards left are pending and the older
// directories unread, and every later reader reads and parses more, until
// the index is whole; a pending shard removed in between is dropped, not
// reported.
func TestBudgetCutLeavesTheRestPending(t *testing.T) {
	s := newTestStore(t)
	writeRecords(t, filepath.Join(s.Dir, "journal", "2024-01", "main-a.jsonl"), record.Decision, 2, 1)
	age(t, s.Dir, time.Hour)
	mustMatch(t, s, open(t, s, true), "before the pull")
	var pulled []string
	inNewest := 0
	for i := range 40 {
		month := []string{"2024-01", "2024-02", "2026-05"}[i%3]
		if month == "2026-05" {
			inNewest++
		}
		p := filepath.Join(s.Dir, "journal", month, fmt.Sprintf("other-%02d.jsonl", i))
		writeRecords(t, p, record.Decision, 2, 100+i)
		pulled = append(pulled, p)
	}
	age(t, s.Dir, 30*time.Minute)
	cut := func() *Snapshot {
		snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tokenizer(), Prompt: true, Budget: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	first := cut()
	workers := runtime.GOMAXPROCS(0)
	if !first.Partial || first.parsed != workers {
		t.Fatalf("first cut open: partial %v, parsed %d shards; want partial, %d (one per core)", first.Partial, first.parsed, workers)
	}
	m := readManifest(s, tokenizer())
	for _, rel := range m.pending {
		if !strings.Contains(rel, "2026-05") {
			t.Fatalf("pending after the first cut: %s, of a month read before the newest", rel)
		}
	}
	if want := inNewest - workers; len(m.pending) != want {
		t.Fatalf("%d shards of the newest month pending, want %d", len(m.pending), want)
	}
	for _, month := range []string{"2024-01", "2024-02"} {
		if e := m.dirs[filepath.Join("journal", month)]; e == nil || e.mtime != unchecked {
			t.Fatalf("journal/%s after the first cut: %+v, want unchecked", month, e)
		}
	}
	// A pending shard removed, its directory's mtime as the index knows it:
	// only the pending list can tell.
	gone := filepath.Join(s.Dir, m.pending[0])
	fi, err := os.Stat(filepath.Dir(gone))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Dir(gone), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	opens := 1
	for snap := first; snap.Partial; opens++ {
		if opens > len(pulled) {
			t.Fatal("the pending shards never drain")
		}
		before := readManifest(s, tokenizer())
		snap = cut()
		after := readManifest(s, tokenizer())
		if snap.Partial && snap.parsed == 0 && uncheckedDirs(after) == uncheckedDirs(before) {
			t.Fatal("a cut open made no progress")
		}
	}
	mustMatch(t, s, open(t, s, true), "once nothing is pending")
	if m := readManifest(s, tokenizer()); len(m.pending) != 0 {
		t.Fatalf("still pending: %v", m.pending)
	}
}

// uncheckedDirs counts the directories m records as left unchecked.
func uncheckedDirs(m *manifest) int {
	n := 0
	for _, e := range m.dirs {
		if e.mtime == unchecked {
			n++
		}
	}
	return n
}

// Anchors are kept through the index, and Anchored lists the current
// anchored records only: an anchored record whose newest version dropped
// its anchors is not among them.
func TestAnchoredListsCurrentAnchoredRecords(t *testing.T) {
	s := newTestStore(t)
	anchor := []record.Anchor{{Path: "a.go", Blob: strings.Repeat("1", 40), Start: 2, End: 5}}
	a := capture(t, s, record.Decision, "alpha")
	b := capture(t, s, record.Decision, "beta")
	capture(t, s, record.Decision, "gamma")
	c := capture(t, s, record.Decision, "delta")
	two := append([]record.Anchor{{Path: "b/c.go", Blob: strings.Repeat("2", 40), Commit: strings.Repeat("3", 40)}}, anchor...)
	for id, as := range map[string][]record.Anchor{a.ID: anchor, b.ID: anchor, c.ID: two} {
		if _, err := s.Update(record.Decision, id, func(r *record.Record) error { r.Anchors = as; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Update(record.Decision, b.ID, func(r *record.Record) error { r.Anchors = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, fresh := range []bool{false, true} {
		if fresh {
			os.RemoveAll(filepath.Join(s.Dir, store.LocalDir))
		}
		snap := open(t, s, false)
		var got []string
		snap.Anchored(func(doc int, as []record.Anchor) {
			id := snap.Record(doc).ID
			got = append(got, id)
			want := map[string][]record.Anchor{a.ID: anchor, c.ID: two}[id]
			if !reflect.DeepEqual(as, want) || !reflect.DeepEqual(snap.Record(doc).Anchors, want) {
				t.Errorf("%s: anchors read back as %+v / %+v, want %+v", id, as, snap.Record(doc).Anchors, want)
			}
		})
		slices.Sort(got)
		if want := []string{a.ID, c.ID}; !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("Anchored listed %v, want %v", got, want)
		}
		// Every anchored version the index holds: a's, b's first, c's two.
		if n := snap.Anchors(); n != 4 {
			t.Errorf("Anchors() = %d, want 4", n)
		}
	}
}

// An index that cannot be written still serves: the new segment is read
// from memory; and a segment written for a manifest another process holds
// the lock of is removed, not left behind.
func TestUnwritableOrLockedIndexStillServes(t *testing.T) {
	s := newTestStore(t)
	writeRecords(t, filepath.Join(s.Dir, "journal", "2025-03", "other-a.jsonl"), record.Decision, 3, 1)
	age(t, s.Dir, time.Hour)
	dir := indexDir(s, tokenizer())
	t.Cleanup(func() { writeSegmentFile = writeFile })
	writeSegmentFile = func(string, ...[]byte) error { return errors.New("read-only file system") }
	mustMatch(t, s, open(t, s, true), "index directory unwritable")
	writeSegmentFile = writeFile

	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, ok := tryLock(filepath.Join(dir, "lock"))
	if !ok {
		t.Fatal("cannot take the index lock")
	}
	mustMatch(t, s, open(t, s, true), "index locked by another process")
	unlock()
	if segs, _ := filepath.Glob(filepath.Join(dir, "*.seg")); len(segs) != 0 {
		t.Errorf("segments left behind by a build that did not publish: %v", segs)
	}
	mustMatch(t, s, open(t, s, true), "after the lock is released")
	if segs, _ := filepath.Glob(filepath.Join(dir, "*.seg")); len(segs) != 1 {
		t.Errorf("segments after a build that published: %v, want one", segs)
	}
}

// Drop succeeds while a reader writes into the index (a prompt hook during
// a purge): RemoveAll failed with "directory not empty", and the purge,
// done, was reported as failed. Nothing of the old index is left.
func TestDropWhileAReaderWrites(t *testing.T) {
	s := newTestStore(t)
	for range 20 {
		dir := indexDir(s, tokenizer())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			os.WriteFile(filepath.Join(dir, fmt.Sprint("seg-", i)), []byte("old text"), 0o644)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // a reader adding segments as fast as it can
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
					os.WriteFile(filepath.Join(dir, fmt.Sprint("new-", i)), []byte("x"), 0o644)
				}
			}
		}()
		err := Drop(s)
		close(stop)
		<-done
		if err != nil {
			t.Fatalf("Drop with a reader writing: %v", err)
		}
		left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "index*"))
		for _, l := range left {
			if names, _ := os.ReadDir(l); slices.ContainsFunc(names, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), "seg-") }) {
				t.Fatalf("the old index is still in %s", l)
			}
		}
		os.RemoveAll(dir)
	}
}
