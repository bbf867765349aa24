package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"lore/store"
)

func main() {
	s, _ := store.Open(os.Args[1])
	f, _ := os.Create("/tmp/doc.prof")
	pprof.StartCPUProfile(f)
	t := time.Now()
	p, err := s.Doctor(false)
	fmt.Println(time.Since(t), len(p), err)
	pprof.StopCPUProfile()
}
