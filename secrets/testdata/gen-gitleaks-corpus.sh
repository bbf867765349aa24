#!/usr/bin/env bash
# Regenerates gitleaks-corpus.jsonl from the true/false positives that
# gitleaks' own rule generator validates (cmd/generate/config).
#
# Usage: secrets/testdata/gen-gitleaks-corpus.sh [gitleaks-version]   (default v8.30.1)
# Output: secrets/testdata/gitleaks-corpus.jsonl (override with OUT=path)
# KEEP_TMP=1 keeps the patched gitleaks copy and raw log for inspection.
# Needs: go, network access to the Go module proxy (or a warm module cache).
set -euo pipefail

version="${1:-v8.30.1}"
module="github.com/zricethezav/gitleaks/v8"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$here/gitleaks-corpus.jsonl}"
max_per_kind=2
max_bytes=2000

die() { echo "gen-gitleaks-corpus: $*" >&2; exit 1; }

tmp="$(mktemp -d)"
cleanup() {
	if [ -n "${KEEP_TMP:-}" ]; then echo "gen-gitleaks-corpus: kept $tmp" >&2; return; fi
	chmod -R u+w "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

export GOWORK=off GOFLAGS=-mod=mod

# 1. Locate the module (downloading it if needed) and copy it somewhere writable.
dl="$(cd "$tmp" && go mod download -json "$module@$version")" || die "go mod download failed: $dl"
moddir="$(printf '%s\n' "$dl" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[ -n "$moddir" ] && [ -d "$moddir" ] || die "no module Dir in go mod download output: $dl"
src="$tmp/gitleaks"
cp -R "$moddir" "$src"
chmod -R u+w "$src"

# 2. Patch utils.Validate / utils.ValidateWithPaths to log every tp and fp.
utils="$src/cmd/generate/config/utils"
[ -f "$utils/validate.go" ] || die "missing $utils/validate.go"
cat > "$utils/zz_corpus_record.go" <<'EOF'
package utils

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"unicode/utf8"
)

type corpusEntry struct {
	Rule    string `json:"rule"`
	Kind    string `json:"kind"`
	Text    string `json:"text"`
	Path    string `json:"path,omitempty"`
	BadUTF8 bool   `json:"bad_utf8,omitempty"`
}

// corpusRecord appends every true/false positive of one Validate call to the
// JSONL file named by $GITLEAKS_CORPUS_OUT. Map inputs are logged in sorted
// key order so the output does not depend on map iteration order.
func corpusRecord(ruleID string, tps, fps any) {
	out := os.Getenv("GITLEAKS_CORPUS_OUT")
	if out == "" {
		return
	}
	var entries []corpusEntry
	add := func(kind string, v any) {
		switch x := v.(type) {
		case []string:
			for _, s := range x {
				entries = append(entries, corpusEntry{Rule: ruleID, Kind: kind, Text: s, BadUTF8: !utf8.ValidString(s)})
			}
		case map[string]string:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				entries = append(entries, corpusEntry{Rule: ruleID, Kind: kind, Text: x[k], Path: k, BadUTF8: !utf8.ValidString(x[k])})
			}
		default:
			panic(fmt.Sprintf("corpusRecord: unsupported positives type %T", v))
		}
	}
	add("tp", tps)
	add("fp", fps)
	f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			panic(err)
		}
	}
}
EOF
awk '
	{ print }
	/^func (Validate|ValidateWithPaths)\(rule config\.Rule, truePositives .*, falsePositives .*\) \*config\.Rule \{$/ {
		print "\tcorpusRecord(rule.RuleID, truePositives, falsePositives)"; n++
	}
	END { if (n != 2) { print "patched " n " functions, want 2" > "/dev/stderr"; exit 1 } }
' "$utils/validate.go" > "$utils/validate.go.new" || die "could not patch validate.go (signatures changed?)"
mv "$utils/validate.go.new" "$utils/validate.go"

# 3. Make generated sample secrets (reggen, randomly seeded by time) reproducible:
#    seed each generator from a counter, so output depends only on call order.
regen="$src/cmd/generate/secrets/regen.go"
if [ -f "$regen" ]; then
	pkg="$(sed -n 's/^package \([A-Za-z0-9_]*\).*/\1/p' "$regen" | head -n1)"
	cat > "$(dirname "$regen")/zz_corpus_seed.go" <<EOF
package $pkg

var corpusSeedCounter int64

func corpusNextSeed() int64 {
	corpusSeedCounter++
	return 0x6c6f7265 + corpusSeedCounter
}
EOF
	awk '
		/^\treturn g\.Generate\(/ { print "\tg.SetSeed(corpusNextSeed())"; n++ }
		{ print }
		END { if (n != 1) { print "patched " n " Generate calls in regen.go, want 1" > "/dev/stderr"; exit 1 } }
	' "$regen" > "$regen.new" || die "could not patch regen.go"
	mv "$regen.new" "$regen"
else
	echo "gen-gitleaks-corpus: warning: $regen not found; generated secrets may vary between runs" >&2
fi

# 4. Some test cases are built by ranging over Go maps, whose order is random.
#    Range over sorted keys instead, so "first N in generator order" is stable.
#    replace_line FILE OLD NEW: replace the one line whose trimmed text is OLD,
#    keeping its indentation (awk turns \n in NEW into a newline; lines after it get the same indentation).
replace_line() {
	local file="$1" old="$2" new="$3" pkg
	if ! grep -qF -- "$old" "$file" 2>/dev/null; then
		echo "gen-gitleaks-corpus: warning: '$old' not in ${file#"$src/"}; order there may vary between runs" >&2
		return 0
	fi
	awk -v old="$old" -v new="$new" '
		{ line = $0; sub(/^[ \t]+/, "", line) }
		line == old {
			ind = substr($0, 1, length($0) - length(line))
			out = new; gsub(/\n/, "\n" ind, out)
			print ind out; n++; next
		}
		{ print }
		END { if (n != 1) { print "replaced " n " lines, want 1" > "/dev/stderr"; exit 1 } }
	' "$file" > "$file.new" || die "could not patch $file"
	mv "$file.new" "$file"
	pkg="$(sed -n 's/^package \([A-Za-z0-9_]*\).*/\1/p' "$file" | head -n1)"
	[ -f "$(dirname "$file")/zz_corpus_sorted.go" ] || cat > "$(dirname "$file")/zz_corpus_sorted.go" <<EOF
package $pkg

import "sort"

func corpusSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
EOF
}
replace_line "$src/cmd/generate/config/utils/generate.go" \
	'for _, v := range samples {' 'for _, k := range corpusSortedKeys(samples) {\n	v := samples[k]'
replace_line "$src/cmd/generate/config/rules/jwt.go" \
	'for key, values := range headers {' 'for _, key := range corpusSortedKeys(headers) {\n	values := headers[key]'

# 5. Check the patched packages compile before running the generator.
(cd "$src" && go build ./cmd/generate/config/utils ./cmd/generate/config/rules ./cmd/generate/secrets) || die "patched packages do not compile"

# 6. Run the generator (from its own dir: it reads rules/config.tmpl relative to cwd).
raw="$tmp/raw.jsonl"
: > "$raw"
if ! (cd "$src/cmd/generate/config" && GITLEAKS_CORPUS_OUT="$raw" go run . "$tmp/gitleaks.toml") > "$tmp/generate.log" 2>&1; then
	tail -n 40 "$tmp/generate.log" >&2
	die "gitleaks config generator failed"
fi
[ -s "$tmp/gitleaks.toml" ] || die "generator wrote no gitleaks.toml"
[ -s "$raw" ] || die "generator recorded no positives"

# 7. Select at most $max_per_kind tps and fps per rule and write the corpus.
mkdir -p "$src/cmd/zzcorpusselect"
cat > "$src/cmd/zzcorpusselect/main.go" <<'EOF'
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

type rawEntry struct {
	Rule    string `json:"rule"`
	Kind    string `json:"kind"`
	Text    string `json:"text"`
	Path    string `json:"path,omitempty"`
	BadUTF8 bool   `json:"bad_utf8,omitempty"`
}

type outEntry struct {
	Rule string `json:"rule"`
	Kind string `json:"kind"`
	Text string `json:"text"`
	Path string `json:"path,omitempty"`
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: zzcorpusselect RAW OUT VERSION MAX_PER_KIND MAX_BYTES")
		os.Exit(2)
	}
	rawPath, outPath, version := os.Args[1], os.Args[2], os.Args[3]
	maxPer, err1 := strconv.Atoi(os.Args[4])
	maxBytes, err2 := strconv.Atoi(os.Args[5])
	if err1 != nil || err2 != nil {
		fail(fmt.Errorf("bad limits %q %q", os.Args[4], os.Args[5]))
	}
	in, err := os.Open(rawPath)
	if err != nil {
		fail(err)
	}
	defer in.Close()

	var (
		sel                              []outEntry
		seen                             = map[string]map[string]bool{}
		raw, empty, tooLong, nul, badUTF8, dups int
	)
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var e rawEntry
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				fail(fmt.Errorf("raw line %d: %v", raw+1, jerr))
			}
			raw++
			if e.Kind != "tp" && e.Kind != "fp" {
				fail(fmt.Errorf("raw line %d: bad kind %q", raw, e.Kind))
			}
			key := e.Rule + "\x00" + e.Kind
			switch {
			case strings.TrimSpace(e.Text) == "":
				empty++ // path-only cases (e.g. pkcs12-file) have no content to scan
			case len(e.Text) > maxBytes:
				tooLong++
			case strings.ContainsRune(e.Text, 0):
				nul++
			case e.BadUTF8:
				badUTF8++
			case seen[key][e.Text]:
				dups++
			case len(seen[key]) >= maxPer:
				// over the per-rule limit
			default:
				if seen[key] == nil {
					seen[key] = map[string]bool{}
				}
				seen[key][e.Text] = true
				sel = append(sel, outEntry{Rule: e.Rule, Kind: e.Kind, Text: e.Text, Path: e.Path})
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err)
		}
	}
	sort.SliceStable(sel, func(i, j int) bool {
		if sel[i].Rule != sel[j].Rule {
			return sel[i].Rule < sel[j].Rule
		}
		return sel[i].Kind < sel[j].Kind
	})

	tmpOut := outPath + ".tmp"
	f, err := os.Create(tmpOut)
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	rules, tpRules := map[string]bool{}, map[string]bool{}
	tps, fps := 0, 0
	for _, e := range sel {
		if err := enc.Encode(e); err != nil {
			fail(err)
		}
		rules[e.Rule] = true
		if e.Kind == "tp" {
			tps++
			tpRules[e.Rule] = true
		} else {
			fps++
		}
	}
	if err := w.Flush(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
	if err := os.Rename(tmpOut, outPath); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "gitleaks %s corpus: %d rules (%d with tps), %d tps, %d fps (from %d raw; skipped %d empty, %d >%d bytes, %d with NUL, %d invalid UTF-8, %d duplicates)\n",
		version, len(rules), len(tpRules), tps, fps, raw, empty, tooLong, maxBytes, nul, badUTF8, dups)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "zzcorpusselect:", err)
	os.Exit(1)
}
EOF
mkdir -p "$(dirname "$out")"
(cd "$src" && go run ./cmd/zzcorpusselect "$raw" "$out" "$version" "$max_per_kind" "$max_bytes") || die "selection failed"
