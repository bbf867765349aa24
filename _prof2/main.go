package main

import (
	"context"
	"os"
	"runtime/pprof"

	"lore/index"
	"lore/inject"
	"lore/store"
)

func main() {
	s, _ := store.Open(os.Args[1])
	f, _ := os.Create("/tmp/open.prof")
	pprof.StartCPUProfile(f)
	for range 100 {
		index.Open(context.Background(), s, index.SnapshotOptions{Tokenizer: inject.Tokenizer()})
	}
	pprof.StopCPUProfile()
}
