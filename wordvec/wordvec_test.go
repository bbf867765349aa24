package wordvec

import (
	"slices"
	"testing"
)

func TestDefaultTable(t *testing.T) {
	tb := Default()
	if tb.Len() < 10000 || tb.Dim() < 32 {
		t.Fatalf("table of %d words × %d: too small to be the built one", tb.Len(), tb.Dim())
	}
	for _, w := range []string{"install", "database", "timeout", "docker"} {
		if tb.lookup(w) < 0 {
			t.Errorf("%q is not in the table", w)
		}
	}
	if tb.lookup("qqzxv") >= 0 {
		t.Error("a made-up word is in the table")
	}
}

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"ThemeContext isn't set", []string{"theme", "context", "isn", "set"}},
		{"exit status 137 in TLSv1.1", []string{"exit", "status", "in", "tlsv1"}},
		{"the a I x", []string{"the"}},
		{"select_related(author)", []string{"select", "related", "author"}},
	} {
		if got := Tokens(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Tokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Share credits a word said another way, and not an unrelated one.
func TestShare(t *testing.T) {
	tb := Default()
	q := tb.Query(Tokens("ubuntu refuses to install packages globally"))
	same := q.Share(Tokens("ubuntu refuses to install packages globally"), 0.3)
	if same < 0.999 {
		t.Errorf("a text's share of itself is %.3f, want 1", same)
	}
	near := q.Share(Tokens("debian system python externally managed: apt owns the interpreter, pip install into a venv"), 0.3)
	far := q.Share(Tokens("render dates with the reader's locale format"), 0.3)
	if !(near > far) {
		t.Errorf("share of a paraphrase %.3f is not above an unrelated text's %.3f", near, far)
	}
	t.Logf("near %.3f far %.3f", near, far)
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"ThemeContext isn't set", "exit status 137 in TLSv1.1", "select_related(author)", "ÉCOLE école", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range Tokens(s) {
			if len(w) < 2 || allDigits(w) {
				t.Fatalf("Tokens(%q) holds %q", s, w)
			}
			for i := 0; i < len(w); i++ {
				if !isLower(w[i]) && (w[i] < '0' || w[i] > '9') {
					t.Fatalf("Tokens(%q) holds %q, not lower-case ASCII", s, w)
				}
			}
		}
	})
}

// FuzzParse: no table, however damaged, makes Parse or a look-up panic
// or loop.
func FuzzParse(f *testing.F) {
	f.Add(embedded[:4096], "install")
	f.Add([]byte(magic+"\x04\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x02ab\xff\x01\x02\x03\x04"), "ab")
	f.Fuzz(func(t *testing.T, data []byte, word string) {
		tb, err := Parse(data)
		if err != nil {
			return
		}
		q := tb.Query([]string{word, word + "x"})
		q.Share([]string{word, "other", "words"}, 0.3)
	})
}

// A table Encode writes reads back: every word found, at the vector and
// weight it was given, a word not given not found.
func TestEncodeReadsBack(t *testing.T) {
	entries := []Entry{
		{Word: "deploy", Count: 50, Vec: []float64{1, 0, 0}},
		{Word: "release", Count: 40, Vec: []float64{0.9, 0.1, 0}},
		{Word: "banana", Count: 2, Vec: []float64{0, 0, -3}},
	}
	tb, err := Parse(Encode(entries, 3, 1000, 1e-3))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 3 || tb.Dim() != 3 {
		t.Fatalf("%d words × %d, want 3 × 3", tb.Len(), tb.Dim())
	}
	for _, e := range entries {
		if tb.lookup(e.Word) < 0 {
			t.Errorf("%q not found", e.Word)
		}
	}
	if tb.lookup("apple") >= 0 {
		t.Error("a word not given is found")
	}
	if wd, wb := tb.weight(tb.lookup("deploy")), tb.weight(tb.lookup("banana")); !(wb > wd) {
		t.Errorf("a rare word weighs %.3f, not more than a common one's %.3f", wb, wd)
	}
	if v := tb.vec(tb.lookup("banana")); int8(v[2]) != -127 || v[0] != 0 {
		t.Errorf("banana's vector reads back as %v, want its unit vector scaled to -127", v)
	}
	q := tb.Query([]string{"deploy", "banana"})
	if s := q.Share([]string{"release"}, 0.3); s <= 0 || s >= 0.5 {
		t.Errorf("share of a near word of the common one: %.3f, want above 0 and below banana's weight", s)
	}
}
