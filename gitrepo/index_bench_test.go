package gitrepo

import (
	"os"
	"testing"
)

// BenchmarkParseIndex reads the index named by LORE_BENCH_GIT_INDEX (such
// as a 100k-record benchmark store's .git/index), entries under .lore/.
func BenchmarkParseIndex(b *testing.B) {
	data := benchIndex(b)
	for b.Loop() {
		if _, err := parseIndex(data, 20, ".lore/"); err != nil {
			b.Fatal(err)
		}
	}
}

// A few files' entries, as resume asks after this checkout's current
// shards.
func BenchmarkParseIndexOf(b *testing.B) {
	data := benchIndex(b)
	want := map[string]bool{"journal/2026-11-10/main-abc0001-x10.jsonl": true}
	for b.Loop() {
		if _, err := parseIndexOf(data, 20, ".lore/", want); err != nil {
			b.Fatal(err)
		}
	}
}

// benchIndex is the git index LORE_BENCH_GIT_INDEX names.
func benchIndex(b *testing.B) []byte {
	path := os.Getenv("LORE_BENCH_GIT_INDEX")
	if path == "" {
		b.Skip("set LORE_BENCH_GIT_INDEX to a .git/index")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
