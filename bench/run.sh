#!/usr/bin/env bash
# Times the built lore binary as whole processes on generated stores of 1k,
# 10k and 100k records: median of 9 runs after a warm-up, and peak RSS.
# Prints a Markdown table (the README's). Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")"
LORE_BENCH=1 go test -run TestBinaryTimings -count=1 -v -timeout 60m . | sed -n 's/^ *bench_test.go:[0-9]*: //p'
