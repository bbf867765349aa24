package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/record"
)

// Two lore versions on one machine (a plugin's bundled binary beside one
// on the PATH) keep an index each: one that writes its own does not make
// the other's a rebuild. They shared one directory, and each rebuilt the
// whole index whenever the other had written it.
func TestIndexesOfTwoFormatsLiveApart(t *testing.T) {
	s := newTestStore(t)
	writeShards(t, s, 6, 3)
	age(t, s.Dir, time.Hour)
	other := tokenizer()
	other.Version = "other" // terms made another way: a newer lore
	openWith := func(tok Tokenizer) *Snapshot {
		t.Helper()
		snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tok})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	openWith(tokenizer())
	openWith(other)
	for i := range 3 {
		capture(t, s, record.Decision, "a decision taken between the two")
		for _, tok := range []Tokenizer{tokenizer(), other} {
			if snap := openWith(tok); snap.parsed != 1 {
				t.Errorf("round %d, tokenizer %s: %d shards parsed, want the one captured to", i, tok.Version, snap.parsed)
			}
		}
	}
	if formatDir(tokenizer()) == formatDir(other) {
		t.Fatal("one directory for two formats")
	}
	for _, tok := range []Tokenizer{tokenizer(), other} {
		if readManifest(s, tok) == nil {
			t.Errorf("no index of tokenizer %s", tok.Version)
		}
	}
}

// An index of another format that no lore has written for two weeks is
// removed by the next lore that writes its own, as are the files of the
// layout before one directory per format; one written lately is kept, as
// the lore that writes it may still run.
func TestStaleIndexesOfOtherFormatsAreRemoved(t *testing.T) {
	s := newTestStore(t)
	writeShards(t, s, 2, 2)
	root := indexRoot(s.Dir)
	old := time.Now().Add(-staleIndexAge - time.Hour)
	write := func(rel string, when time.Time) {
		t.Helper()
		p := filepath.Join(root, rel)
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		} else if err := os.WriteFile(p, []byte("an index"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest", time.Now()) // the layout before, still written by an older lore
	write("20250101T000000-0123456789ab.seg", old)
	write("LOREIDX4-LORESEG8-kw9_r3/manifest", old)
	write("LOREIDX4-LORESEG8-kw9_r3/20250101T000000-0123456789ab.seg", old)
	write("LOREIDX4-LORESEG8-kw9_r3/", old)
	write("LOREIDX6-LORESEG10-kw11_r3/manifest", time.Now())
	write("LOREIDX5-LORESEG9-kw10_r2/", old) // a lore that died before its first manifest
	// An old index a lore catches up now: its manifest is old until it
	// publishes, its segment being written is not.
	write("LOREIDX4-LORESEG8-kw9_r2/manifest", old)
	write("LOREIDX4-LORESEG8-kw9_r2/.tmp-20261208T000000-0123456789ab.seg-42", time.Now())
	write("LOREIDX4-LORESEG8-kw9_r2/", old)
	// An old index a lore has begun to catch up, not yet written to.
	write("LOREIDX3-LORESEG7-kw8_r3/manifest", old)
	write("LOREIDX3-LORESEG7-kw8_r3/catchup", old)
	write("LOREIDX3-LORESEG7-kw8_r3/", old)
	catchingUp, ok := tryLock(filepath.Join(root, "LOREIDX3-LORESEG7-kw8_r3", "catchup"))
	if !ok {
		t.Fatal("cannot take the catch-up lock")
	}
	open(t, s, false)
	want := map[string]bool{
		"manifest": true, "20250101T000000-0123456789ab.seg": true, // kept: its manifest is fresh
		"LOREIDX6-LORESEG10-kw11_r3": true, "LOREIDX4-LORESEG8-kw9_r2": true, formatDir(tokenizer()): true,
	}
	if renameOpen { // where there are locks
		want["LOREIDX3-LORESEG7-kw8_r3"] = true
	}
	names := func() map[string]bool {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, e := range entries {
			got[e.Name()] = true
		}
		return got
	}
	if got := names(); !sameKeys(got, want) {
		t.Errorf("after the first write: %v, want %v", got, want)
	}
	// The older lore stops running: its manifest ages; the catch-up ends.
	os.Chtimes(filepath.Join(root, "manifest"), old, old)
	catchingUp()
	delete(want, "LOREIDX3-LORESEG7-kw8_r3")
	capture(t, s, record.Decision, "a decision that makes the index write")
	open(t, s, false)
	delete(want, "manifest")
	delete(want, "20250101T000000-0123456789ab.seg")
	if got := names(); !sameKeys(got, want) {
		t.Errorf("once the layout before is stale: %v, want %v", got, want)
	}
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// A file where the index's directory belongs (left by hand or by a tool)
// is replaced by the directory: with it there, no index was ever written
// and every command read the whole store.
func TestFileInPlaceOfTheIndexDirectory(t *testing.T) {
	for _, where := range []string{"format", "root"} {
		s := newTestStore(t)
		writeShards(t, s, 4, 2)
		age(t, s.Dir, time.Hour)
		file := indexDir(s, tokenizer())
		if where == "root" {
			file = indexRoot(s.Dir)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("hi\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if snap := open(t, s, false); snap.Unsaved != nil {
			t.Fatalf("a file in place of the %s directory: the index was not written: %v", where, snap.Unsaved)
		}
		if snap := open(t, s, false); snap.parsed != 0 {
			t.Errorf("a file in place of the %s directory: the next reader parsed %d shards, want none", where, snap.parsed)
		}
	}
}
