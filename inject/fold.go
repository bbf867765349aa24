package inject

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// fold drops diacritics, so that café and cafe, Müller and Muller,
// déploiement and deploiement are one term: people type accents or leave
// them out, and a record written one way must be found the other. Text
// that is all ASCII (nearly every term) is returned as it is.
func fold(s string) string {
	if ascii(s) {
		return s
	}
	return foldRunes(s)
}

// normalize puts text that is not all ASCII in the form tokens are taken
// in: without the format characters word rules read through (invisible),
// and in Unicode compatibility form (NFKC), so that what input methods and
// file systems type differently is one word: Ｒｅｄｉｓ and ３００ from a
// Japanese keyboard are Redis and 300, ﾃﾞｰﾀ is データ, and decomposed
// Hangul or Cyrillic (macOS file names) is composed, 데이터 and й, as
// typed elsewhere. ASCII text is already in that form: callers skip it.
func normalize(text string) string {
	if strings.ContainsFunc(text, invisible) {
		text = strings.Map(func(c rune) rune {
			if invisible(c) {
				return -1
			}
			return c
		}, text)
	}
	return norm.NFKC.String(text)
}

// foldText is text spelt as its tokens' words are before stemming:
// normalised, lowercased and folded, for the substring tests that stand
// in for tokenizing (mayHoldPair, synonym groups).
func foldText(text string) string {
	if ascii(text) {
		return strings.ToLower(text)
	}
	return foldRunes(strings.ToLower(normalize(text)))
}

// ascii reports text of ASCII only, which needs neither normalising,
// folding nor pairs: the check every term takes before anything costlier.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldRunes decomposes the Latin letters of s (é → e and a combining
// acute) and drops their combining marks, whether they were typed
// composed or not (macOS writes file names decomposed); the Latin letters
// that do not decompose are spelled as their ASCII look-alikes. Other
// scripts keep their marks: Cyrillic й is not и.
func foldRunes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	latin := false // the last base letter was Latin
	for _, c := range s {
		switch {
		case unicode.Is(unicode.Mn, c):
			if !latin {
				b.WriteRune(c)
			}
		case unlike[c] != "":
			b.WriteString(unlike[c])
			latin = true
		case c >= utf8.RuneSelf && unicode.Is(unicode.Latin, c):
			for _, d := range norm.NFD.String(string(c)) {
				if !unicode.Is(unicode.Mn, d) {
					b.WriteRune(d)
				}
			}
			latin = true
		default:
			b.WriteRune(c)
			latin = c < utf8.RuneSelf
		}
	}
	return b.String()
}

// unlike are the letters with a stroke or ligatures, which have no
// decomposition, lowercase (fold runs on lowercased words).
var unlike = map[rune]string{
	'ø': "o", 'ł': "l", 'đ': "d", 'ħ': "h", 'ŧ': "t", 'ı': "i",
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ð': "d", 'þ': "th",
}
