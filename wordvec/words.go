package wordvec

// Words are text's words that say what it is about: its Tokens less the
// function words.
func Words(text string) []string { return split(text, false) }

// Tokens splits text as the text the vectors were learned from was split
// (mkvec -split): runs of ASCII letters and digits, lower-cased, split
// where a lower-case letter meets an upper-case one (ThemeContext: theme,
// context), of two characters at least and not all digits.
func Tokens(text string) []string { return split(text, true) }

func split(text string, stop bool) []string {
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
		w = lower(w)
		if stop || !isStopword(w) {
			out = append(out, w)
		}
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

func lower(w string) string {
	for i := 0; i < len(w); i++ {
		if isUpper(w[i]) {
			b := []byte(w)
			for j := i; j < len(b); j++ {
				if isUpper(b[j]) {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return w
}

// isStopword says whether w is a function word or the filler of a request
// to an agent: such words appear in every text, so they would pull every
// vector toward the same point. (A switch, not a map: nothing to build at
// start-up.)
func isStopword(w string) bool {
	switch w {
	case "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
		"can", "could", "did", "do", "does", "for", "from", "get", "got", "had", "has", "have",
		"here", "how", "if", "im", "in", "into", "is", "it", "its", "just",
		"like", "me", "my", "no", "not", "now", "of", "ok", "okay", "on", "one", "or", "our",
		"out", "should", "so", "some", "than", "that", "the", "their", "them", "then", "there",
		"these", "they", "this", "those", "to", "too", "up", "us", "very", "was", "way", "we",
		"were", "what", "when", "where", "which", "who", "why", "will", "with", "would", "you",
		"your":
		return true
	}
	return false
}
