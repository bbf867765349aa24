package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"lore/record"
)

// BenchmarkOpenThorough is a scan that stats every shard by name (doctor's;
// the session start's over patterns), in a store whose directories did not
// change since the index described them.
func BenchmarkOpenThorough(b *testing.B) {
	s := newTestStore(b)
	writeShards(b, s, 4000, 1)
	age(b, s.Dir, time.Hour)
	o := SnapshotOptions{Tokenizer: tokenizer(), Thorough: true}
	if _, err := Open(context.Background(), s, o); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Open(context.Background(), s, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenPrompt is a prompt's open of a store whose directories did
// not change: a stat per kind and month directory (60 of them).
func BenchmarkOpenPrompt(b *testing.B) {
	s := newTestStore(b)
	kinds := record.AllKinds()
	for i := range 1000 {
		k := kinds[i%len(kinds)]
		p := filepath.Join(s.Dir, k.Dir(), fmt.Sprintf("2024-%02d", i%12+1), fmt.Sprintf("main-s%03d%s", i, k.Ext()))
		writeRecords(b, p, k, 1, i)
	}
	age(b, s.Dir, time.Hour)
	o := SnapshotOptions{Tokenizer: tokenizer(), Prompt: true, Budget: 30 * time.Millisecond}
	if _, err := Open(context.Background(), s, o); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Open(context.Background(), s, o); err != nil {
			b.Fatal(err)
		}
	}
}
