package index

import (
	"context"
	"testing"
	"time"
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
