package wordvec

import "strings"

// Tokens splits text as the text the vectors were learned from was split
// (mkvec -split): runs of ASCII letters and digits, lower-cased, split
// where a lower-case letter meets an upper-case one (ThemeContext: theme,
// context), of two characters at least and not all digits. Which of them
// say what a text is about is the caller's to choose.
func Tokens(text string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := text[start:end]
		start = -1
		if len(w) < 2 || allDigits(w) {
			return
		}
		out = append(out, strings.ToLower(w))
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start >= 0 && isUpper(c) && isLower(text[i-1]) {
			flush(i)
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(text))
	return out
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || '0' <= c && c <= '9' }

func allDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}
