package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"lore/index"
	"lore/inject"
	"lore/store"
)

func main() {
	s, _ := store.Open(os.Args[1])
	f, _ := os.Create("/tmp/pull.prof")
	pprof.StartCPUProfile(f)
	t := time.Now()
	snap, _ := index.Open(context.Background(), s, index.SnapshotOptions{Tokenizer: inject.Tokenizer(), Prompt: true})
	t2 := time.Now()
	inject.PromptContext(inject.NewIndex(snap, s.Config), s.Config, "the invoice export times out on CI after the upgrade", 2000, time.Now(), nil)
	fmt.Println(t2.Sub(t), time.Since(t2))
	pprof.StopCPUProfile()
}
