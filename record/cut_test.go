package record

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrefixCutsBetweenCharacters(t *testing.T) {
	family := "👨\u200d👩\u200d👧"
	scotland := "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"缓存键", 4, "缓"},                        // not inside 存's three bytes
		{"缓存键", 9, "缓存键"},                      // fits
		{"ae\u0301b", 2, "a"},                  // not before the accent of é (NFD)
		{"ae\u0301b", 4, "ae\u0301"},           // after it
		{"x" + family, 6, "x"},                 // not inside the joined family
		{"x" + family + "y", 19, "x" + family}, // after it
		{"x" + scotland, 12, "x"},              // not between a flag and its tags
		{"abc", 0, ""},
	} {
		if got := Prefix(c.s, c.n); got != c.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestWordCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello world again", 12, "hello world"}, // before the space after world
		{"hello world again", 11, "hello world"},
		{"hello world again", 10, "hello"},
		{"helloworld", 5, ""},                                     // inside a word: none
		{"[decision] dec-1 a缓存键必须带上", 24, "[decision] dec-1 a缓存"}, // between Chinese characters
		{"ภาษาไทยไม่มีช่องว่าง", 12, "ภาษา"},                      // Thai
	} {
		if got := c.s[:WordCut(c.s, c.n)]; got != c.want {
			t.Errorf("WordCut(%q, %d) keeps %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestCutTextKeepsCharactersWhole(t *testing.T) {
	long := strings.Repeat("缓存键必须带上版本号前缀", 20)
	got := CutText("a"+long, 70)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 70+len("…") || len(got) < 60 {
		t.Errorf("CutText = %q (%d bytes)", got, len(got))
	}
	if got := CutText("short and sweet but too long", 15); got != "short and sweet…" {
		t.Errorf("CutText = %q", got)
	}
	if got := CutText("averyveryverylongword", 10); got != "averyveryv…" {
		t.Errorf("CutText = %q", got)
	}
}

// Whatever the text, a cut is a start of it, within the bytes asked, and
// valid UTF-8 where the text is.
func FuzzCuts(f *testing.F) {
	f.Add("缓存键必须带上 version 前缀", 10)
	f.Add("ae\u0301b 👨\u200d👩\u200d👧 x", 7)
	f.Fuzz(func(t *testing.T, s string, n int) {
		p := Prefix(s, n)
		if !strings.HasPrefix(s, p) || len(p) > max(n, 0) && len(p) != len(s) || utf8.ValidString(s) && !utf8.ValidString(p) {
			t.Fatalf("Prefix(%q, %d) = %q", s, n, p)
		}
		w := WordCut(s, n)
		if w < 0 || w > len(p) || utf8.ValidString(s) && !utf8.ValidString(s[:w]) {
			t.Fatalf("WordCut(%q, %d) = %d", s, n, w)
		}
	})
}
