#!/usr/bin/env bash
# Times the built lore binary as whole processes on generated stores of 1k,
# 10k, 100k and 300k records, in five states (steady, right after a capture,
# steady with a day's captures committed, after a pull of 3,000 records,
# after a checkout rewriting 600 shards), as ratios to a hello-world Go
# process timed in the same run. Prints Markdown
# tables (the README's) on stdout and progress on stderr. The four sizes
# took 8 minutes on 2 cores (5 of them at 300k; allow up to 25 if commands
# are slow); pick sizes with
#   LORE_SCALE_SIZES=1000,10000 bench/scale.sh
set -euo pipefail
cd "$(dirname "$0")"
LORE_BENCH=scale go test -run '^TestScale$' -count=1 -v -timeout 90m . | awk '
	/^ *[a-z_]+_test\.go:[0-9]+: progress: / { sub(/^ *[a-z_]+_test\.go:[0-9]+: progress: /, ""); print > "/dev/stderr"; fflush("/dev/stderr"); next }
	/^ *[a-z_]+_test\.go:[0-9]+: ?/ { sub(/^ *[a-z_]+_test\.go:[0-9]+: ?/, ""); print; fflush(); next }
	/^(=== RUN|--- PASS|PASS$|ok )/ { next }
	{ print > "/dev/stderr" }
'
