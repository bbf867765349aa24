// Package bench measures lore: Go benchmarks of the pieces (go test -bench
// ./bench); with LORE_BENCH=1, whole-process timings of the built binary on
// generated stores of 1k, 10k and 100k records (bench/run.sh); and with
// LORE_BENCH=scale, whole-process timings on stores of 1k to 300k records in
// several states, as ratios to a hello-world process (bench/scale.sh).
package bench
