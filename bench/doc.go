// Package bench measures lore: Go benchmarks of the pieces (go test -bench
// ./bench) and, with LORE_BENCH=1, whole-process timings of the built
// binary on generated stores of 1k, 10k and 100k records (bench/run.sh).
package bench
