//go:build unix

package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO where the manifest belongs (made by hand or a tool) is not read:
// every command blocked on it until killed (new-user run 30). The index
// is rebuilt as if damaged, and the FIFO replaced by a manifest.
func TestFIFOInPlaceOfTheManifest(t *testing.T) {
	s := newTestStore(t)
	writeShards(t, s, 4, 2)
	age(t, s.Dir, time.Hour)
	if err := makeIndexDir(indexDir(s, tokenizer())); err != nil {
		t.Fatal(err)
	}
	path := manifestPath(s, tokenizer())
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	type opened struct {
		snap *Snapshot
		err  error
	}
	done := make(chan opened, 1)
	go func() {
		snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tokenizer()})
		done <- opened{snap, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		mustMatch(t, s, o.snap, "a FIFO for a manifest")
	case <-time.After(10 * time.Second):
		t.Fatal("opening the index blocked on a FIFO named manifest")
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the manifest is not a file after the rebuild: %v %v", fi, err)
	}
}

// A FIFO where a segment the manifest names belongs is not opened either:
// the open blocked until a writer came (new-user run 31). The index is
// rebuilt, as for a damaged segment.
func TestFIFOInPlaceOfASegment(t *testing.T) {
	s := newTestStore(t)
	writeShards(t, s, 4, 2)
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	seg := filepath.Join(indexDir(s, tokenizer()), readManifest(s, tokenizer()).segs[0])
	if err := os.Remove(seg); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(seg, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	want := len(truth(t, s))
	done := make(chan error, 1)
	go func() {
		snap, err := Open(context.Background(), s, SnapshotOptions{Tokenizer: tokenizer()})
		if err == nil && snap.Count() != want {
			err = fmt.Errorf("%d records, want %d", snap.Count(), want)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("opening the index blocked on a FIFO named like a segment")
	}
}
