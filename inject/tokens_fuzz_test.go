package inject

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The tokenizer splits text by byte offsets, sharing its memory, and
// yields its tokens one by one; these are the rune-slice versions it
// replaced, kept to hold it to the same terms.

func chunksByRunes(text string) []string {
	var out []string
	rs := []rune(text)
	start := -1
	for i := 0; i <= len(rs); i++ {
		inside := i < len(rs) && (isAlnum(rs[i]) ||
			(rs[i] == '.' || rs[i] == '_' || rs[i] == '-') && start >= 0 && i+1 < len(rs) && isAlnum(rs[i+1]))
		if inside {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, string(rs[start:i]))
			start = -1
		}
	}
	return out
}

func partsByRunes(chunk string, version bool) []string {
	var out []string
	rs := []rune(chunk)
	start := 0
	flush := func(end int) {
		if end > start {
			p := string(rs[start:end])
			if len(p) > 1 && (p[0] == 'v' || p[0] == 'V') && isDigits(p[1:]) {
				p = p[1:]
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
			flush(i)
		} else if version && i > start && unicode.IsLetter(rs[i-1]) && unicode.IsDigit(c) {
			flush(i)
		}
	}
	flush(len(rs))
	return out
}

func isVersionByRunes(chunk string) bool {
	rs := []rune(chunk)
	dotted := false
	for i := 1; i+1 < len(rs); i++ {
		if rs[i] == '.' && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]) {
			dotted = true
		}
	}
	return dotted && strings.IndexFunc(chunk, unicode.IsLetter) >= 0
}

func tokensByRunes(text string) []Token {
	var out []Token
	for _, chunk := range chunksByRunes(text) {
		ps := partsByRunes(chunk, isVersionByRunes(chunk))
		if len(ps) > 1 || isVersionByRunes(chunk) {
			out = append(out, Token{strings.ToLower(chunk), chunk})
		}
		for _, p := range ps {
			if t, ok := token(p); ok && (len(out) == 0 || out[len(out)-1].Stem != t.Stem) {
				out = append(out, t)
			}
		}
	}
	return out
}

func keywordsByMap(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tokensByRunes(text) {
		if !seen[t.Stem] {
			seen[t.Stem] = true
			out = append(out, t.Stem)
		}
	}
	return out
}

func FuzzTokenizerMatchesRuneSlices(f *testing.F) {
	for _, s := range []string{
		"TLSv1.1 python3.11 node-18.2 v1.2 exit status 137", "utils/format.ts formatBytes DEPLOY_ENV Signed-off-by",
		"ThemeContext ABCdef ABv1 a.b.c -x- _y_ 3.", "ünïcödé ΑΒΓδ 名前.go １２３.４５ \xff\xfe.a", "a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc",
		strings.Repeat("LongIdentifier_", 10) + "end",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var cs []string
		eachChunk(text, func(c string) { cs = append(cs, c) })
		if want := chunksByRunes(text); !slices.Equal(cs, want) {
			t.Fatalf("eachChunk(%q) = %q, want %q", text, cs, want)
		}
		for _, c := range cs {
			if got, want := isVersion(c), isVersionByRunes(c); got != want {
				t.Fatalf("isVersion(%q) = %v, want %v", c, got, want)
			}
			for _, v := range []bool{false, true} {
				if got, want := parts(nil, c, v), partsByRunes(c, v); !slices.Equal(got, want) {
					t.Fatalf("parts(%q, %v) = %q, want %q", c, v, got, want)
				}
			}
		}
		if got, want := Tokens(text), tokensByRunes(text); !slices.Equal(got, want) {
			t.Fatalf("Tokens(%q) = %q, want %q", text, got, want)
		}
		if got, want := Keywords(text), keywordsByMap(text); !slices.Equal(got, want) {
			t.Fatalf("Keywords(%q) = %q, want %q", text, got, want)
		}
	})
}
