package inject

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sahilm/fuzzy"

	"lore/index"
)

// Similarity of a prompt keyword to a record term, by how they matched.
const (
	simExact   = 1.0
	simPrefix  = 0.85 // configur ~ configurat
	simStem    = 0.75 // store ~ storag
	simSynonym = 0.8  // deploy ~ release, from config
	simTypo    = 0.75 // pacakge ~ package
	simFuzzy   = 0.6  // cfg ~ config: an abbreviation of a short term
)

// synonymGroups are the config's synonym groups, stemmed on first use
// (prompt words are matched by their stems): a prompt needs only the groups
// that hold one of its words, and stemming every group cost each hook a
// sixth of a millisecond.
type synonymGroups struct {
	texts []string // each group's words, as configured
	lower []string // the same, lowercased, for a substring test
	once  []sync.Once
	stems [][]string
}

func newSynonymGroups(cfg map[string][]string) *synonymGroups {
	g := &synonymGroups{}
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		text := k + " " + strings.Join(cfg[k], " ")
		g.texts, g.lower = append(g.texts, text), append(g.lower, foldText(text))
	}
	g.once, g.stems = make([]sync.Once, len(g.texts)), make([][]string, len(g.texts))
	return g
}

// of returns the stems stem q is linked to: every other stem of each group
// that holds q. A group can hold q only if its text holds stemPart(q).
func (g *synonymGroups) of(q string) []string {
	part := stemPart(q)
	var out []string
	for i, lower := range g.lower {
		if !strings.Contains(lower, part) {
			continue
		}
		g.once[i].Do(func() { g.stems[i] = Keywords(g.texts[i]) })
		if !slices.Contains(g.stems[i], q) {
			continue
		}
		for _, s := range g.stems[i] {
			if s != q && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// termMatch is a record term a prompt word matches: how well, how, and
// the records that hold it.
type termMatch struct {
	term  string
	sim   float64
	how   string
	posts []index.Posting // the records holding term, decoded once per query
}

// expand finds the vocabulary terms a prompt keyword matches, and how well.
func (ix *Index) expand(q, raw string) []termMatch {
	found := map[string]termMatch{}
	add := func(t string, sim float64, how string) {
		if cur, ok := found[t]; !ok || sim > cur.sim {
			found[t] = termMatch{term: t, sim: sim, how: how}
		}
	}
	if ix.has(q) {
		add(q, simExact, "exact")
	}
	for _, syn := range ix.synonyms.of(q) {
		if ix.has(syn) {
			add(syn, simSynonym, "synonym")
		}
	}
	// The rest is for words, spelt letter by letter, which people type
	// in other forms, misspell and abbreviate: a pair of characters of a
	// script written without spaces is no such word (接受 is not 接口 in
	// another form, 서비 not a typo of 서버), and matches exactly.
	if isSpaceless(firstRune(q)) {
		return sortedMatches(found)
	}
	// Prefix relations both ways: terms starting with q are a sorted run.
	for _, t := range ix.snap.TermsWithPrefix(q) {
		if t != q && prefixClose(q, t) {
			add(t, simPrefix, "prefix")
		}
	}
	// Lengths in letters, not bytes (тест is four letters, in eight
	// bytes); ASCII's are its bytes'.
	n := runeLen(q)
	// Stems that part only at their last letters (store ~ storag, from
	// storage): the same word in another form the stemmer did not fold;
	// only for a word the store does not hold itself.
	if n >= 5 && !ix.has(q) {
		_, last := utf8.DecodeLastRuneInString(q)
		for _, t := range ix.snap.TermsWithPrefix(q[:len(q)-last]) {
			if t != q && runeLen(t) <= n+2 && !strings.HasPrefix(t, q) {
				add(t, simStem, "word form")
			}
		}
	}
	// Typos, only for a word the store does not hold (one that it holds
	// is probably not a typo): one edit (two for long words), same first
	// letter; a word of four or five letters only by swapping two letters
	// (tets ~ test; taken is not token). The word as typed is tried too, as
	// a stem can hide a typo (tets → tet).
	for _, w := range slices.Compact([]string{q, raw}) {
		wn := runeLen(w)
		if wn < 4 || ix.has(q) {
			continue
		}
		_, first := utf8.DecodeRuneInString(w)
		for _, t := range ix.snap.TermsWithPrefix(w[:first]) {
			tn := runeLen(t)
			if abs(tn-wn) > 2 || wn <= 5 && !sameLetters(w, t) {
				continue
			}
			limit := 1
			if wn >= 8 {
				limit = 2
			}
			if damerau(w, t, limit) <= limit {
				add(t, simTypo, "typo")
			}
		}
	}
	// Abbreviations and partial identifiers: q as a subsequence of a short
	// field term, starting at the same letter (cfg ~ config).
	if len(q) >= 3 && len(found) == 0 && isAbbreviation(q) {
		// Only the terms starting with q's letter can qualify.
		for _, m := range fuzzy.Find(q, ix.snap.TermsWithPrefix(q[:1])) {
			t := m.Str
			if t[0] == q[0] && float64(len(q))/float64(runeLen(t)) >= 0.5 && runeLen(t) <= 12 {
				add(t, simFuzzy, "fuzzy")
			}
		}
	}
	return sortedMatches(found)
}

// sortedMatches are the terms found, in order.
func sortedMatches(found map[string]termMatch) []termMatch {
	out := make([]termMatch, 0, len(found))
	for _, m := range found {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].term < out[j].term })
	return out
}

// runeLen is the length of s in letters.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// sameLetters reports two words made of the same letters.
func sameLetters(a, b string) bool {
	if !ascii(a) || !ascii(b) {
		x, y := []rune(a), []rune(b)
		slices.Sort(x)
		slices.Sort(y)
		return slices.Equal(x, y)
	}
	x, y := []byte(a), []byte(b)
	slices.Sort(x)
	slices.Sort(y)
	return string(x) == string(y)
}

// isAbbreviation reports a word of Latin letters with no vowel after its
// first letter (cfg, pkg, msg, env): fuzzy matching is for those, not for
// real words (send is not second). The vowels are ASCII's, so it says
// nothing of words in other scripts (тест has none of them), which are no
// abbreviations of this kind.
func isAbbreviation(w string) bool {
	return ascii(w) && !strings.ContainsAny(w[1:], "aeiouy")
}

// prefixClose accepts a prefix relation when the shorter word is long
// enough and most of the longer one (test ~ tests, not test ~ testimonial),
// in letters.
func prefixClose(short, long string) bool {
	s := runeLen(short)
	return s >= 4 && float64(s)/float64(runeLen(long)) >= 0.6
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// damerau is the optimal-string-alignment distance between a and b, in
// letters, giving up (returning limit+1) once it must exceed limit.
func damerau(a, b string, limit int) int {
	if !ascii(a) || !ascii(b) {
		return osa([]rune(a), []rune(b), limit) // a byte of a letter is no letter
	}
	return osa([]byte(a), []byte(b), limit) // no copy: osa neither writes nor keeps them
}

// osa is damerau on the letters of two words: ASCII's bytes or runes.
func osa[E byte | rune](a, b []E, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
