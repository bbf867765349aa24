package inject

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"lore/record"
)

// A Token is one significant term of a text: its stem, which matching
// uses, and the word as it was typed, which explanations show.
type Token struct {
	Stem string
	Word string
}

// Keywords extracts the significant terms of text, stemmed, in order of
// first appearance, without duplicates. See Tokens for the rules.
func Keywords(text string) []string {
	var out []string
	var seen map[string]bool // past a few terms; a linear scan is cheaper before
	eachToken(text, func(t Token) {
		switch {
		case seen != nil:
			if seen[t.Stem] {
				return
			}
			seen[t.Stem] = true
		case slices.Contains(out, t.Stem):
			return
		case len(out) == 16:
			seen = make(map[string]bool, 64)
			for _, s := range out {
				seen[s] = true
			}
			seen[t.Stem] = true
		}
		out = append(out, t.Stem)
	})
	return out
}

// Tokens splits text into its significant terms, in order, repeats kept
// (phrase matching needs positions):
//   - code identifiers and file names are kept whole and split into their
//     words (formatBytes → formatbytes, format, bytes; utils/format.ts →
//     utils, format.ts, format, ts; DEPLOY_ENV → deploy_env, deploy, env;
//     Signed-off-by → signed-off-by, signed), but letters and digits that
//     belong together stay together (s3, utf8, sha256, ec2);
//   - numbers of two or more digits are kept (431, exit status 137), and a
//     version is kept whole as well as in parts (TLSv1.1 → tlsv1.1, tls,
//     1.1);
//   - stopwords go, except the code keywords a user types in capitals (SQL's
//     NOT IN, IS NULL);
//   - Chinese, Japanese, Korean, Thai, Lao, Khmer and Myanmar, written
//     without spaces, become overlapping pairs of characters (see
//     eachSpaceless);
//   - text is taken in compatibility form (see normalize: Ｒｅｄｉｓ is
//     Redis), diacritics are dropped (café → cafe), and words are stemmed
//     with the Porter2 (Snowball English) stemmer; a token's word is as
//     normalised.
func Tokens(text string) []Token {
	var out []Token
	eachToken(text, func(t Token) { out = append(out, t) })
	return out
}

// eachToken calls yield with each of Tokens(text), without the slice: an
// index build tokenizes every record.
func eachToken(text string, yield func(Token)) {
	if !ascii(text) {
		text = normalize(text)
	}
	eachNormalToken(text, yield)
}

// eachNormalToken is eachToken on text normalised already.
func eachNormalToken(text string, yield func(Token)) {
	var last string
	var pbuf [16]string
	eachChunk(text, func(chunk string) {
		if hasSpaceless(chunk) {
			eachSpaceless(chunk, func(t Token) {
				if t.Stem != last {
					last = t.Stem
					yield(t)
				}
			})
			return
		}
		version := isVersion(chunk)
		ps := parts(pbuf[:0], chunk, version)
		if len(ps) > 1 || version {
			// The identifier, file name or version whole, before its parts:
			// block_on, Signed-off-by, node-fetch, ThemeContext, TLSv1.1 said
			// exactly are stronger evidence than their words apart.
			last = fold(strings.ToLower(chunk))
			if j, ok := joined(chunk, ps); ok {
				last = j
			}
			yield(Token{last, chunk})
		}
		for _, p := range ps {
			if t, ok := token(p); ok && t.Stem != last {
				last = t.Stem
				yield(t)
			}
		}
	})
}

// joined is the whole form of a name and its number written with a
// hyphen: the two written together, as they are typed as often (SHA-1 is
// sha1, UTF-8 utf8, X-509 x509), so either spelling finds the other with
// the same weight.
func joined(chunk string, ps []string) (string, bool) {
	if len(ps) != 2 || len(chunk) != len(ps[0])+1+len(ps[1]) || chunk[len(ps[0])] != '-' ||
		!isLetters(ps[0]) || !isDigits(ps[1]) || strings.Contains(ps[1], ".") {
		return "", false
	}
	return strings.ToLower(ps[0] + ps[1]), true
}

// isLetters reports an ASCII word of letters alone.
func isLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// invisible reports a format character, which Unicode's word rules
// (UAX #29) read through: a soft hyphen, a joiner or a word joiner inside
// dep\u00adloy leaves one word, deploy. The zero-width space is the
// exception those rules make: it separates words (Thai uses it so).
func invisible(c rune) bool {
	return c != '\u200b' && unicode.Is(unicode.Cf, c)
}

// hasSpaceless reports a chunk holding a script written without spaces
// between words.
func hasSpaceless(chunk string) bool {
	return !ascii(chunk) && strings.IndexFunc(chunk, isSpaceless) >= 0
}

// isSpaceless reports a letter of a script written without spaces between
// words: Chinese, Japanese and Korean (Korean has spaces, but between
// phrases: 서버가 and 서버를 are 서버 with a particle), and Thai, Lao,
// Khmer and Myanmar. Their marks (Thai vowels and tones) are not letters
// of it themselves but belong to the letter before them (see clusterEnd).
func isSpaceless(c rune) bool {
	return (record.Spaceless(c) || c >= 0x1100 && unicode.Is(unicode.Hangul, c)) && !unicode.IsMark(c)
}

// eachSpaceless splits a chunk holding script written without spaces
// between words: each run of it becomes its overlapping pairs of
// characters (连接池 → 连接, 接池; a lone character stays whole), as search
// engines index it without a dictionary, so that a word of two or more
// characters matches wherever it is written and longer ones match pair by
// pair, in order; the rest of the chunk is tokenized as usual. A
// character is a letter with the marks that follow it (Thai ข้, a
// dakuten left uncomposed), so a pair never starts with a mark nor loses
// one (see clusterEnd).
func eachSpaceless(chunk string, yield func(Token)) {
	for len(chunk) > 0 {
		i := strings.IndexFunc(chunk, isSpaceless)
		if i < 0 {
			i = len(chunk)
		}
		if i > 0 { // letters or digits before the run
			eachNormalToken(chunk[:i], yield)
			chunk = chunk[i:]
			continue
		}
		// The run's characters: a starts the current one, b the next.
		a := 0
		b := clusterEnd(chunk, a)
		if b == len(chunk) || !isSpaceless(firstRune(chunk[b:])) {
			yield(Token{chunk[:b], chunk[:b]})
		}
		for b < len(chunk) && isSpaceless(firstRune(chunk[b:])) {
			c := clusterEnd(chunk, b)
			yield(Token{chunk[a:c], chunk[a:c]})
			a, b = b, c
		}
		chunk = chunk[b:]
	}
}

// clusterEnd is where the character starting at chunk[i] ends: after its
// letter and the combining marks that follow, and, after a mark that
// stacks the next consonant below (Khmer's coeng, Myanmar's virama), that
// consonant and its marks too.
func clusterEnd(chunk string, i int) int {
	_, n := utf8.DecodeRuneInString(chunk[i:])
	i += n
	for i < len(chunk) {
		c, n := utf8.DecodeRuneInString(chunk[i:])
		if !unicode.IsMark(c) {
			break
		}
		i += n
		if c == '\u17d2' || c == '\u1039' {
			if next, m := utf8.DecodeRuneInString(chunk[i:]); i < len(chunk) && isSpaceless(next) {
				i += m
			}
		}
	}
	return i
}

func firstRune(s string) rune {
	c, _ := utf8.DecodeRuneInString(s)
	return c
}

// token turns one part of a chunk into a term, or reports it insignificant.
func token(p string) (Token, bool) {
	lower := fold(strings.ToLower(p))
	switch {
	case isDigits(lower):
		if strings.Count(lower, ".") == 0 && len(lower) < 2 {
			return Token{}, false // single digits say nothing
		}
		return Token{lower, p}, true
	case len(lower) < 2:
		return Token{}, false
	case stopwords[lower] && !(codeKeywords[lower] && p == strings.ToUpper(p)):
		return Token{}, false
	case hasDigit(lower):
		return Token{lower, p}, true // s3, utf8, sha256: identifiers, not words
	}
	s := Stem(lower)
	if len(s) < 2 {
		return Token{}, false
	}
	return Token{s, p}, true
}

// eachChunk splits text at white space and punctuation, keeping together the
// runs of letters and digits joined by '.', '_' or '-' that make up
// identifiers, file names and versions (the parts are split later). The
// chunks share text's memory: an index build tokenizes every record.
func eachChunk(text string, yield func(string)) {
	start := -1
	for i := 0; i < len(text); {
		c, n := utf8.DecodeRuneInString(text[i:])
		// A mark belongs to the letter before it: typed after it (see
		// fold), or a vowel sign of Khmer, Myanmar or Devanagari (which
		// spacing marks write).
		inside := isAlnum(c) || start >= 0 && unicode.IsMark(c)
		if !inside && (c == '.' || c == '_' || c == '-') && start >= 0 {
			next, _ := utf8.DecodeRuneInString(text[i+n:])
			inside = i+n < len(text) && isAlnum(next)
		}
		switch {
		case inside && start < 0:
			start = i
		case !inside && start >= 0:
			yield(text[start:i])
			start = -1
		}
		i += n
	}
	if start >= 0 {
		yield(text[start:])
	}
}

// parts splits a chunk into words: at '_', '-' and '.' (except between
// digits, which is a version), at camelCase humps, and before a version
// marker (TLSv1.1 → TLS, 1.1); in a version, also where letters meet
// digits (python3.11 → python, 3.11). The words, appended to out,
// share chunk's memory.
func parts(out []string, chunk string, version bool) []string {
	// The chunk's runes and where each starts in it, on the stack for
	// the chunks of ordinary length.
	var rbuf [64]rune
	var obuf [65]int
	rs, offs := rbuf[:0], obuf[:0]
	for i, c := range chunk {
		rs, offs = append(rs, c), append(offs, i)
	}
	offs = append(offs, len(chunk))
	start := 0
	flush := func(end int) {
		if end > start {
			p := chunk[offs[start]:offs[end]]
			if len(p) > 1 && (p[0] == 'v' || p[0] == 'V') && isDigits(p[1:]) {
				p = p[1:] // v1.2 is 1.2
			}
			out = append(out, p)
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == '_' || c == '-' || c == '.' && !(i > 0 && unicode.IsDigit(rs[i-1]) && i+1 < len(rs) && unicode.IsDigit(rs[i+1])) {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && isHump(rs, i) {
			flush(i)
		}
		if i > start && (c == 'v' || c == 'V') && unicode.IsLetter(rs[i-1]) && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) {
			flush(i) // TLSv1.1, pythonv3
		} else if version && i > start && unicode.IsLetter(rs[i-1]) && unicode.IsDigit(c) {
			flush(i)
		}
	}
	flush(len(rs))
	return out
}

// isHump reports a camelCase boundary before rs[i]: aB, or the B in ABc
// (but not ABv1, a version marker).
func isHump(rs []rune, i int) bool {
	prev, cur := rs[i-1], rs[i]
	if unicode.IsLower(prev) && unicode.IsUpper(cur) {
		return true
	}
	return unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) &&
		!(i+2 < len(rs) && (rs[i+1] == 'v') && unicode.IsDigit(rs[i+2]))
}

func isAlnum(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }

// isDigits reports a number or a dotted version: 137, 1.1, 3.11.2.
func isDigits(w string) bool {
	if w == "" || w[0] == '.' || w[len(w)-1] == '.' {
		return false
	}
	for _, c := range w {
		if c != '.' && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

func hasDigit(w string) bool { return strings.IndexFunc(w, unicode.IsDigit) >= 0 }

// isVersion reports a chunk that names a version with letters around it
// (TLSv1.1, python3.11, node-18.2): kept whole so the exact string counts.
func isVersion(chunk string) bool {
	dotted := false
	for i := 1; i+1 < len(chunk) && !dotted; i++ {
		if chunk[i] == '.' {
			prev, _ := utf8.DecodeLastRuneInString(chunk[:i])
			next, _ := utf8.DecodeRuneInString(chunk[i+1:])
			dotted = unicode.IsDigit(prev) && unicode.IsDigit(next)
		}
	}
	return dotted && strings.IndexFunc(chunk, unicode.IsLetter) >= 0
}

// stemMemo memoises Stem: the Snowball stemmer costs about a microsecond a
// word, and an index build stems millions of words from a small vocabulary.
var stemMemo sync.Map

// Stem folds word forms together (deploying, deployed, deployment →
// deploy) with the Porter2 stemmer, which leaves distinct words distinct
// (comment, command). The same folding runs on prompts and records.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	if s, ok := stemMemo.Load(w); ok {
		return s.(string)
	}
	// Kept as copies: w may be read in place from an index file, which
	// lore mcp unmaps once a merge replaces it (mmapfile.ReleaseReplaced).
	s := strings.Clone(english.Stem(w, true))
	stemMemo.Store(strings.Clone(w), s)
	return s
}

// codeKeywords are stopwords that mean something in code when typed in
// capitals: SQL's NOT IN, IS NULL, UNION ALL.
var codeKeywords = map[string]bool{
	"not": true, "in": true, "is": true, "or": true, "and": true, "all": true, "any": true, "as": true,
	"by": true, "on": true, "null": true, "exists": true, "no": true,
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
now currently null exists`) {
		m[w] = true
	}
	return m
}()
