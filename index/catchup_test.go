package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"lore/record"
)

// CatchUp merges an index of many files into one (lore index); and in the
// background after an update cut by its deadline (Behind), it reads the
// shards left pending, one of them gone since (read as gone).
func TestCatchUpReadsWhatACutBuildLeft(t *testing.T) {
	defer func(n int) { smallSegment = n }(smallSegment)
	smallSegment = 0 // a segment is merged only into one at least as large
	s := newTestStore(t)
	writeShards(t, s, 40, 2)
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	// Later updates each smaller than the one before, as a hook's catching
	// up after a fresh clone leaves them (older months hold fewer): none
	// is merged into the next.
	for i, n := range []int{30, 20, 10} {
		p := filepath.Join(s.Dir, "journal", fmt.Sprintf("2025-0%d", i+1), "main-u.jsonl")
		writeRecords(t, p, record.Decision, n, 100+i)
		settle(p)
		open(t, s, true)
	}
	if snap, err := CatchUp(context.Background(), s, tokenizer(), false); err != nil || snap.Segments() != 1 || snap.Read() != 0 {
		t.Fatalf("CatchUp of a current index in 4 segments: %v, %d segments, %d shards read", err, snap.Segments(), snap.Read())
	}
	// The four files it merged were written a moment ago, but the
	// manifest it replaced named them: none stays on disk.
	if files := segmentFiles(t, s.Dir); len(files) != 1 {
		t.Errorf("after merging into one segment, the index directory holds %v", files)
	}
	for i := range 20 {
		// In one directory, which even a cut prompt reads (one a level):
		// its shards are left pending, not its directory unread.
		p := filepath.Join(s.Dir, "failures", "2025-06", fmt.Sprintf("main-f%02d.jsonl", i))
		writeRecords(t, p, record.Failure, 2, 200+i)
		settle(p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cut, err := Open(ctx, s, SnapshotOptions{Tokenizer: tokenizer(), Prompt: true, Budget: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Partial || !cut.Behind {
		t.Fatalf("a cut update: partial %v, behind %v, %d segments", cut.Partial, cut.Behind, cut.Segments())
	}
	m := readManifest(s, tokenizer())
	if len(m.pending) < 2 {
		t.Fatalf("%d shards pending after the cut update", len(m.pending))
	}
	if err := os.Remove(filepath.Join(s.Dir, m.pending[0])); err != nil { // gone before its turn
		t.Fatal(err)
	}
	if CatchingUp(s.Dir, tokenizer()) {
		t.Error("CatchingUp with none at work")
	}
	unlock, ok := tryLock(catchUpLock(s.Dir, tokenizer()))
	if !ok {
		t.Fatal("the catch-up lock is taken")
	}
	if snap, err := CatchUp(context.Background(), s, tokenizer(), true); snap != nil || err != nil {
		t.Errorf("CatchUp if idle, with another at it: %v, %v", snap, err)
	}
	if !CatchingUp(s.Dir, tokenizer()) && renameOpen { // where locks are
		t.Error("CatchingUp while another holds the lock: false")
	}
	// The holder makes no heartbeat (stopped, or hung): not at work, so
	// prompts bring the index forward themselves.
	stalled := time.Now().Add(-catchUpStalled - time.Second)
	if err := os.Chtimes(catchUpLock(s.Dir, tokenizer()), stalled, stalled); err != nil {
		t.Fatal(err)
	}
	if CatchingUp(s.Dir, tokenizer()) {
		t.Error("CatchingUp while the holder of the lock has made no heartbeat for a while: true")
	}
	unlock()
	defer func(w int64) { racyWindow = w }(racyWindow)
	racyWindow = int64(time.Millisecond) // what a hook's background run waits out first
	snap, err := CatchUp(context.Background(), s, tokenizer(), true)
	if err != nil || snap == nil {
		t.Fatalf("CatchUp: %v, %v", snap, err)
	}
	if snap.Behind || snap.Partial || snap.Segments() > compactAbove || snap.Read() == 0 {
		t.Errorf("after CatchUp: behind %v, partial %v, %d segments, %d shards read", snap.Behind, snap.Partial, snap.Segments(), snap.Read())
	}
	mustMatch(t, s, snap, "after CatchUp")
	if fi, err := os.Stat(catchUpLock(s.Dir, tokenizer())); err != nil || time.Since(fi.ModTime()) > catchUpStalled {
		t.Errorf("CatchUp made no heartbeat: %v", err)
	}
	if snap := open(t, s, true); snap.parsed != 0 || snap.Behind {
		t.Errorf("the open after CatchUp parsed %d shards (behind %v)", snap.parsed, snap.Behind)
	}
}

// ColdBudget bounds a build without an index as Budget bounds an update:
// a hook on a fresh clone reads what it can, newest first, and leaves the
// rest pending (Behind) for lore index.
func TestColdBudgetCutsABuildWithoutAnIndex(t *testing.T) {
	defer func(n int) { smallSegment = n }(smallSegment)
	smallSegment = 0 // a segment is merged only into one at least as large
	s := newTestStore(t)
	writeShards(t, s, 40, 1)
	// The newest month, read first, holds more than all the rest: the
	// cut build's file is larger than what is left for CatchUp.
	for i := range 2 {
		writeRecords(t, filepath.Join(s.Dir, "journal", "2025-12", fmt.Sprintf("main-n%d.jsonl", i)), record.Decision, 50, 300+i)
	}
	age(t, s.Dir, time.Hour)
	snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tokenizer(), Prompt: true, ColdBudget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Behind || snap.Read() == 0 || snap.Read() >= 42 {
		t.Fatalf("a cold build past its budget: behind %v, %d of 42 shards read", snap.Behind, snap.Read())
	}
	// By hand, it reads the rest into the one file, not beside it.
	if snap, err := CatchUp(context.Background(), s, tokenizer(), false); err != nil || snap.Behind || snap.Segments() != 1 {
		t.Fatalf("CatchUp after the cut build: %v, behind %v, %d files", err, snap.Behind, snap.Segments())
	}
	mustMatch(t, s, open(t, s, true), "after CatchUp")
}

// A prompt while lore index works in the background reads one changed
// directory a level and writes nothing: publishing would make the
// catch-up's work lost. Once it is done, a prompt writes what it read.
func TestPromptLeavesTheIndexToACatchUpAtWork(t *testing.T) {
	s := newTestStore(t)
	writeShards(t, s, 24, 1)
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	for i := range 12 { // a pull into every month
		writeRecords(t, filepath.Join(s.Dir, "journal", fmt.Sprintf("2024-%02d", i+1), "other-p.jsonl"), record.Decision, 1, 500+i)
	}
	age(t, s.Dir, 30*time.Minute)
	before := readManifest(s, tokenizer())
	unlock, ok := tryLock(catchUpLock(s.Dir, tokenizer()))
	if !ok {
		t.Fatal("the catch-up lock is taken")
	}
	prompt := SnapshotOptions{Tokenizer: tokenizer(), Prompt: true, Budget: time.Minute}
	snap, err := Open(context.Background(), s, prompt)
	if err != nil {
		t.Fatal(err)
	}
	if renameOpen { // where locks are
		if m := readManifest(s, tokenizer()); !m.sameAs(before) {
			t.Error("a prompt wrote the index while a catch-up was at work")
		}
		if !snap.Behind {
			t.Error("a prompt while a catch-up works read every changed directory")
		}
	}
	unlock()
	snap, err = Open(context.Background(), s, prompt)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Behind {
		t.Error("a prompt once the catch-up is done: still behind")
	}
	mustMatch(t, s, snap, "after the catch-up")
}

// segmentFiles lists the segment files in the index directory of the store
// at storeDir.
func segmentFiles(t *testing.T, storeDir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(indexDirOf(storeDir, tokenizer()), "*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}
