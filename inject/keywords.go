package inject

import (
	"strings"
	"unicode"
)

// Keywords extracts the significant terms of text, in order of first
// appearance, without duplicates: lower-cased, stemmed, stopwords and
// one-letter tokens out, code identifiers and paths split into their words
// (formatBytes → format, bytes; utils/format.ts → utils, format, ts;
// DEPLOY_ENV → deploy, env).
func Keywords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(text) {
		if stopwords[w] || len(w) < 2 || isNumber(w) {
			continue
		}
		s := Stem(w)
		if len(s) < 2 || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// words splits text at anything that is not a letter or digit and at
// camelCase humps, lower-casing the pieces.
func words(text string) []string {
	var out []string
	rs := []rune(text)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, c := range rs {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			flush(i)
			continue
		}
		if start >= 0 && i > 0 && isHump(rs, i) {
			flush(i)
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

// isHump reports a camelCase boundary before rs[i]: aB, or the B in ABc.
func isHump(rs []rune, i int) bool {
	prev, cur := rs[i-1], rs[i]
	if unicode.IsLower(prev) && unicode.IsUpper(cur) {
		return true
	}
	if unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
		return true
	}
	return false
}

func isNumber(w string) bool {
	for _, c := range w {
		if !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// Stem folds word forms together (deploying, deployed, deployment → deploy;
// parses, parsing → pars). It is deliberately light: the same folding runs
// on prompts and records, so consistency matters more than linguistics.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	type rule struct {
		suffix, repl string
		min          int // minimum stem length left
	}
	for _, r := range []rule{
		{"ational", "ate", 3}, {"ization", "ize", 3}, {"ations", "ate", 3}, {"ation", "ate", 3},
		{"ments", "", 3}, {"ment", "", 3}, {"ness", "", 3},
		{"ings", "", 3}, {"ing", "", 3}, {"ies", "y", 2}, {"ied", "y", 2},
		{"ed", "", 3}, {"ly", "", 4}, {"es", "", 3}, {"s", "", 3},
	} {
		if strings.HasSuffix(w, r.suffix) && len(w)-len(r.suffix) >= r.min {
			base := w[:len(w)-len(r.suffix)] + r.repl
			if r.suffix == "s" && (strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is")) {
				continue
			}
			if r.suffix == "es" && !(strings.HasSuffix(base, "s") || strings.HasSuffix(base, "x") ||
				strings.HasSuffix(base, "ch") || strings.HasSuffix(base, "sh") || strings.HasSuffix(base, "z")) {
				base = w[:len(w)-1] // "files" → "file", not "fil"
			}
			w = undouble(base)
			break
		}
	}
	w = strings.TrimSuffix(w, "e")
	if n := len(w); n > 3 && w[n-1] == 'y' {
		w = w[:n-1] + "i" // flaky, flakiness → flaki
	}
	return w
}

// undouble turns "runn" (from running) into "run".
func undouble(w string) string {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouslz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// stopwords are words that say nothing about what a prompt is about:
// English function words and the filler people type to agents.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a about above after again against all almost also am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don done down during
each either else etc even ever every few for from further get gets getting got had hadn has hasn have
haven having he her here hers herself him himself his how however i if in into is isn it its itself just
let lets like ll made make makes many may me might mine more most much must mustn my myself need needs
no nor not now of off ok okay on once one only or other our ours ourselves out over own please pls re
really same shall she should shouldn since so some still such sure than thank thanks that the their theirs
them themselves then there these they this those though through thus to too under until up upon us use
used using ve very via want wants was wasn we well were weren what whats when where whether which while
who whom whose why will with within without won would wouldn yes yet you your yours yourself yourselves
hey hi hello help can't i'm it's let's gonna wanna kind sort thing things stuff something anything
everything way ways lot lots bit quick quickly maybe actually basically right look looks looking see
try tried trying know think go going went again new old good bad better best today tomorrow yesterday
now currently`) {
		m[w] = true
	}
	return m
}()
