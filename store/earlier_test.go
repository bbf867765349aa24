package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The shards a checkout wrote before its current ones are remembered,
// newest last, once each, and no more than maxEarlierShards of them.
func TestEarlierShardsAreBounded(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, LocalDir), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Store{Dir: dir}
	var want []string
	for i := range maxEarlierShards + 8 {
		rel := fmt.Sprintf("journal/2026-12/main-%07d-x.jsonl", i)
		rememberEarlier(s, rel)
		want = append(want, rel)
	}
	again := want[len(want)-3]
	rememberEarlier(s, again) // written to again: moves to the end, not there twice
	want = append(slices.DeleteFunc(want, func(rel string) bool { return rel == again }), again)
	want = want[len(want)-maxEarlierShards:]
	if got := WrittenShards(dir); !slices.Equal(got, want) {
		t.Errorf("WrittenShards = %d names %v…, want %d %v…", len(got), got[:2], len(want), want[:2])
	}
}
