#!/usr/bin/env bash
# Times what anchors cost, as whole processes of the built lore binary, as
# ratios to a hello-world Go process timed in the same run: the prompt hook
# on 10,000 records with anchors on a fifth of them against the same store
# without (interleaved runs), and `lore stale` on 100,000 records with
# 20,000 anchored, steady, with --json, and with its anchor cache removed.
# Prints a Markdown table on stdout and progress on stderr. Options (see
# TestAnchors): LORE_ANCHORS_RUNS=24, LORE_ANCHORS_STALE=100000,
# LORE_SCALE_BIN=/path/to/lore.
set -euo pipefail
cd "$(dirname "$0")"
LORE_BENCH=anchors go test -run '^TestAnchors$' -count=1 -v -timeout 60m . | awk '
	/^ *[a-z_]+_test\.go:[0-9]+: progress: / { sub(/^ *[a-z_]+_test\.go:[0-9]+: progress: /, ""); print > "/dev/stderr"; fflush("/dev/stderr"); next }
	/^ *[a-z_]+_test\.go:[0-9]+: ?/ { sub(/^ *[a-z_]+_test\.go:[0-9]+: ?/, ""); print; fflush(); next }
	/^(=== RUN|--- PASS|PASS$|ok )/ { next }
	{ print > "/dev/stderr" }
'
