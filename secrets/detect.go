package secrets

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// rule is a ruleSpec ready to run: its regex and allowlists compile the
// first time one of its keywords appears in a text.
type rule struct {
	*ruleSpec
	once sync.Once
	c    compiledRule
}

func (r *rule) compiled() compiledRule {
	r.once.Do(func() {
		r.c = compiledRule{re: regexp.MustCompile(r.regex)}
		for _, a := range r.allow {
			r.c.allow = append(r.c.allow, compileAllow(a))
		}
	})
	return r.c
}

type compiledRule struct {
	re    *regexp.Regexp
	allow []allowlist
}

type allowlist struct {
	target    string
	and       bool
	regexes   []*regexp.Regexp
	stopwords []string
}

func compileAllow(a allowSpec) allowlist {
	out := allowlist{target: a.target, and: a.and}
	for _, re := range a.regexes {
		out.regexes = append(out.regexes, regexp.MustCompile(re))
	}
	for _, w := range a.stopwords {
		out.stopwords = append(out.stopwords, strings.ToLower(w))
	}
	return out
}

// ruleSet is every rule, gitleaks' then lore's (rules.go, then languages.go),
// and the keywords that unlock them.
type ruleSet struct {
	rules  []rule
	global func() allowlist
	index  func() *keywordIndex
	scans  atomic.Int32 // texts scanned without the index
}

// keywordIndex maps the first two (lower-cased ASCII) bytes of each
// keyword to the keywords and the rules they unlock, so finding which
// rules apply to a long text is one pass over it.
type keywordIndex struct {
	first   [1 << 16]uint16 // 1 + the index in buckets; 0: no keyword starts so
	buckets [][]keyword
	// folded are the keywords beyond ASCII (пароль, contraseña, 密码) by
	// their first byte: a text beyond ASCII, whose case the bytes do not
	// fold (ПАРОЛЬ), is lower-cased once and searched for them.
	folded    [256][]keyword
	hasFolded bool
}

type keyword struct {
	word  string
	rules []int
}

var rules = sync.OnceValue(newRuleSet)

func newRuleSet() *ruleSet {
	rs := &ruleSet{global: sync.OnceValue(func() allowlist { return compileAllow(gitleaksGlobal) })}
	rs.rules = make([]rule, 0, len(gitleaksRules)+len(loreRules)+len(languageRules))
	for _, specs := range [][]ruleSpec{gitleaksRules, loreRules, languageRules} {
		for i := range specs {
			rs.rules = append(rs.rules, rule{ruleSpec: &specs[i]})
		}
	}
	rs.index = sync.OnceValue(func() *keywordIndex {
		ix := &keywordIndex{}
		for r := range rs.rules {
			for _, w := range rs.rules[r].keywords {
				ix.add(strings.ToLower(w), r)
			}
		}
		return ix
	})
	return rs
}

// add indexes keyword w (lower-cased, two bytes at least) of rule r.
func (ix *keywordIndex) add(w string, r int) {
	var b *[]keyword
	if strings.IndexFunc(w, func(c rune) bool { return c >= utf8.RuneSelf }) >= 0 {
		b, ix.hasFolded = &ix.folded[w[0]], true
	} else {
		k := key(w[0], w[1])
		if ix.first[k] == 0 {
			ix.buckets = append(ix.buckets, nil)
			ix.first[k] = uint16(len(ix.buckets))
		}
		b = &ix.buckets[ix.first[k]-1]
	}
	for i := range *b {
		if (*b)[i].word == w {
			(*b)[i].rules = append((*b)[i].rules, r)
			return
		}
	}
	*b = append(*b, keyword{w, []int{r}})
}

func key(a, b byte) int { return int(lowerASCII(a))<<8 | int(lowerASCII(b)) }

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// A process's first few short texts (up to shortText bytes each, at most
// scanTexts of them) find their rules by looking for each keyword in turn,
// which costs less than building the index for them (a prompt's start,
// which receipts keep, is scrubbed inside the hook; a capture scrubs a
// handful of fields); after that, or for a longer text, the index is
// built, as doctor, which checks every record, needs it.
const (
	shortText = 1024
	scanTexts = 32
)

// candidates are the rules one of whose keywords text contains, in order.
func (rs *ruleSet) candidates(text string) []int {
	if len(text) <= shortText && rs.scans.Add(1) <= scanTexts {
		return rs.scanned(text)
	}
	return rs.indexed(text)
}

// scanned is candidates by looking for each keyword in turn.
func (rs *ruleSet) scanned(text string) []int {
	var out []int
	lower := strings.ToLower(text)
	for r := range rs.rules {
		if slices.ContainsFunc(rs.rules[r].keywords, func(w string) bool { return strings.Contains(lower, strings.ToLower(w)) }) {
			out = append(out, r)
		}
	}
	return out
}

// indexed is candidates in one pass over text with the keyword index.
func (rs *ruleSet) indexed(text string) []int {
	var out []int
	ix := rs.index()
	var hit []bool
	unlock := func(kw keyword) {
		if hit == nil {
			hit = make([]bool, len(rs.rules))
		}
		for _, r := range kw.rules {
			hit[r] = true
		}
	}
	beyondASCII := false
	for i := 0; i+1 < len(text); i++ {
		beyondASCII = beyondASCII || text[i] >= utf8.RuneSelf
		b := ix.first[key(text[i], text[i+1])]
		if b == 0 {
			continue
		}
		for _, kw := range ix.buckets[b-1] {
			if len(text)-i >= len(kw.word) && equalFoldASCII(text[i:i+len(kw.word)], kw.word) {
				unlock(kw)
			}
		}
	}
	if beyondASCII && ix.hasFolded {
		lower := strings.ToLower(text)
		for i := range len(lower) {
			for _, kw := range ix.folded[lower[i]] {
				if strings.HasPrefix(lower[i:], kw.word) {
					unlock(kw)
				}
			}
		}
	}
	for i, h := range hit {
		if h {
			out = append(out, i)
		}
	}
	return out
}

func equalFoldASCII(s, lower string) bool {
	for i := range len(lower) {
		if lowerASCII(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// span is a secret found in a text: text[start:end], by rule id.
type span struct {
	start, end int
	id         string
}

// find returns the secrets in text, sorted and without overlaps (the
// earlier start wins, then the longer, then the earlier rule: netrc-password
// before password-in-words for the same value).
func find(text string) []span {
	rs := rules()
	var found []span
	for _, ri := range rs.candidates(text) {
		r := &rs.rules[ri]
		c := r.compiled()
		for _, m := range matches(c.re, text, r.overlap) {
			start, end := secretSpan(m, r.secretGroup)
			if start < 0 || start == end {
				continue
			}
			secret := text[start:end]
			if r.entropy != 0 && shannon(secret) <= r.entropy {
				continue
			}
			if r.valid != nil && !r.valid(secret) {
				continue
			}
			match, line := text[m[0]:m[1]], lineAround(text, m[0], m[1])
			if g := rs.global(); allowed(g, secret, match, line) || slices.ContainsFunc(c.allow, func(a allowlist) bool { return allowed(a, secret, match, line) }) {
				continue
			}
			found = append(found, span{start, end, r.id})
		}
	}
	slices.SortStableFunc(found, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	out := found[:0]
	for _, s := range found {
		if n := len(out); n > 0 && s.start < out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// matches are re's matches in text as FindAllStringSubmatchIndex finds
// them, or, with overlap, also those that start inside an earlier match.
func matches(re *regexp.Regexp, text string, overlap bool) [][]int {
	if !overlap {
		return re.FindAllStringSubmatchIndex(text, -1)
	}
	var out [][]int
	for pos := 0; pos < len(text); {
		m := re.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		out = append(out, m)
		_, n := utf8.DecodeRuneInString(text[m[0]:])
		pos = m[0] + max(n, 1)
	}
	return out
}

// secretSpan is where the secret is in a match, as gitleaks takes it: the
// rule's secret group, or else the first non-empty group, or else the
// match, without surrounding newlines.
func secretSpan(m []int, group int) (int, int) {
	switch {
	case group > 0:
		if 2*group+1 >= len(m) {
			return -1, -1
		}
		return m[2*group], m[2*group+1]
	case len(m) > 2:
		for g := 1; 2*g+1 < len(m); g++ {
			if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
				return m[2*g], m[2*g+1]
			}
		}
	}
	return m[0], m[1]
}

func lineAround(text string, start, end int) string {
	from := strings.LastIndexByte(text[:start], '\n') + 1
	to := strings.IndexByte(text[end:], '\n')
	if to < 0 {
		return text[from:]
	}
	return text[from : end+to]
}

// allowed applies one allowlist as gitleaks does.
func allowed(a allowlist, secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	regex := slices.ContainsFunc(a.regexes, func(re *regexp.Regexp) bool { return re.MatchString(target) })
	lower := strings.ToLower(secret)
	stop := slices.ContainsFunc(a.stopwords, func(w string) bool { return strings.Contains(lower, w) })
	if !a.and {
		return regex || stop
	}
	return (len(a.regexes) == 0 || regex) && (len(a.stopwords) == 0 || stop)
}

// shannon is the Shannon entropy of s in bits per byte, as gitleaks
// computes it.
func shannon(s string) float64 {
	var counts [256]int
	for i := range len(s) {
		counts[s[i]]++
	}
	e := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(s))
			e -= p * math.Log2(p)
		}
	}
	return e
}
