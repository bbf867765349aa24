package record

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lines lore prints are cut to a number of bytes; these cut between
// characters, never inside one (a cut inside a Chinese character printed
// as \xe4 on a terminal and as U+FFFD in JSON), and between words where
// the text has words: at a space, or, in scripts written without spaces
// between words (Chinese, Japanese, Thai…), between any two characters.

// Prefix is the longest start of s of at most n bytes that ends between
// two characters: not inside one's UTF-8 bytes, nor before a mark that
// belongs to the character before it (a combining accent, a variation
// selector, an emoji's skin tone or tag) or either side of a joiner.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	for n > 0 && !characterBoundary(s, n) {
		_, size := utf8.DecodeLastRuneInString(s[:n])
		n -= size
	}
	return s[:n]
}

// characterBoundary reports whether s may be cut at i, a rune start:
// the rune there does not attach to the one before.
func characterBoundary(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[i:])
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	return !attaches(next) && prev != zwj && next != zwj
}

const zwj = '\u200d'

// attaches reports whether r is drawn with the character before it.
func attaches(r rune) bool {
	return unicode.Is(unicode.M, r) || // combining marks, variation selectors
		r >= 0x1f3fb && r <= 0x1f3ff || // emoji skin tones
		r >= 0xe0020 && r <= 0xe007f // emoji tags (a region's flag)
}

// WordCut is the length of the longest start of s of at most n bytes that
// ends between two words, and 0 if there is none: before a space, or
// between two characters either of which is of a script written without
// spaces. The start may end in spaces.
func WordCut(s string, n int) int {
	i := len(Prefix(s, n))
	if i == len(s) {
		return i
	}
	for i > 0 {
		if s[i] == ' ' {
			return i
		}
		prev, size := utf8.DecodeLastRuneInString(s[:i])
		next, _ := utf8.DecodeRuneInString(s[i:])
		if (Spaceless(prev) || Spaceless(next)) && characterBoundary(s, i) {
			return i
		}
		i -= size
	}
	return 0
}

// Spaceless reports whether r is of a script written without spaces
// between words: Chinese, Japanese, Thai, Lao, Khmer, Myanmar. (ー, as in
// データ, and 々, as in 時々, are of no script, but belong to the word.)
func Spaceless(r rune) bool {
	return r >= 0x0e00 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) || r == 'ー' || r == '々' || r == 'ｰ')
}

// CutText shortens s, its runs of white space made one space, to about n
// bytes at a word boundary (inside a word longer than that, between two
// characters), marking the cut with "…".
func CutText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	if i := WordCut(s, n); i > 0 {
		return strings.TrimRight(s[:i], " ") + "…"
	}
	return Prefix(s, n) + "…"
}
