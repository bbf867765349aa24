package inject

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"lore/index"
	"lore/record"
)

// Whatever the text, the tokenizer's pieces are pieces of it, in order:
// chunks of letters, digits, joiners and the marks that follow letters;
// tokens whose words were typed (as normalised: Ｒｅｄｉｓ is Redis); pairs
// of characters that never start with a mark; and keywords that are the
// tokens' stems, once each, in order of first appearance. (The byte-offset tokenizer was checked against the
// rune-slice one it replaced by fuzzing both for two minutes.)
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{
		"TLSv1.1 python3.11 node-18.2 v1.2 exit status 137", "utils/format.ts formatBytes DEPLOY_ENV Signed-off-by",
		"ThemeContext ABCdef ABv1 a.b.c -x- _y_ 3.", "ünïcödé ΑΒΓδ 名前.go １２３.４５ \xff\xfe.a",
		"a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc", strings.Repeat("LongIdentifier_", 10) + "end",
		// Compatibility and decomposed forms, and scripts written without
		// spaces whose vowels and tones are marks.
		"Ｒｅｄｉｓ ３００ ﾃﾞｰﾀﾍﾞｰｽ ＡＰＩキー", "\u1103\u1166\u110b\u1175\u1110\u1165 \u0438\u0306\u043e\u0433\u0443\u0440\u0442",
		"\u30cf\u3099\u30c3\u30af\u30a2\u30c3\u30d5\u309a \u304b\u309a", "ตั้งค่าฐานข้อมูลให้ใช้พูล ຕັ້ງຄ່າ ការកំណត់ ក្សត្រ မြန်မာ ကမ္ဘာ",
		"\u0e49\u0e01 \u3099\u30cf a\u0e49 कार्य", "支付接口必须幂等 서버가 テ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rest := text
		eachChunk(text, func(c string) {
			i := strings.Index(rest, c)
			if c == "" || i < 0 {
				t.Fatalf("chunk %q is not in what follows the previous one, %q", c, rest)
			}
			rest = rest[i+len(c):]
			if strings.IndexFunc(c, func(r rune) bool {
				return !isAlnum(r) && !unicode.IsMark(r) && r != '.' && r != '_' && r != '-'
			}) >= 0 ||
				!isAlnum([]rune(c)[0]) {
				t.Fatalf("chunk %q holds more than letters, digits, joiners and marks", c)
			}
			for _, p := range parts(nil, c, isVersion(c)) {
				if p == "" || !strings.Contains(c, p) {
					t.Fatalf("part %q of chunk %q", p, c)
				}
			}
		})
		var stems []string
		normal := text
		if !ascii(text) {
			normal = normalize(text)
		}
		for _, tok := range Tokens(text) {
			if tok.Stem == "" || !strings.Contains(normal, tok.Word) || tok.Stem != strings.ToLower(tok.Stem) {
				t.Fatalf("token %+v of %q", tok, text)
			}
			if c, _ := utf8.DecodeRuneInString(tok.Stem); unicode.IsMark(c) {
				t.Fatalf("token %+v of %q starts with a mark", tok, text)
			}
			if !slices.Contains(stems, tok.Stem) {
				stems = append(stems, tok.Stem)
			}
		}
		if got := Keywords(text); !slices.Equal(got, stems) {
			t.Fatalf("Keywords(%q) = %q, want the tokens' stems once each, %q", text, got, stems)
		}
	})
}

// Phrase credit skips a field that mayHoldPair says cannot hold two of the
// prompt's words: whatever the prompt and the field, a field that earns
// credit alone must not be skipped.
func FuzzMayHoldPair(f *testing.F) {
	for _, s := range [][2]string{
		{"dying lying tying", "stop dying while lying and tying"}, {"sky deploy", "the skies deployed"},
		{"hoping to configure", "we hope the configuration holds"}, {"TLSv1.1 ThemeContext", "pin tlsv1.1 in the themeContext"},
		{"İstanbul ıi", "İSTANBUL ıI"}, {"exit status 137", "Exit Status: 137"}, {"pacakge relase", "package release"},
		{"redis cache 300", "Ｒｅｄｉｓ ｃａｃｈｅ ３００"}, {"ﾃﾞｰﾀﾍﾞｰｽ 接続", "データベース接続"}, {"dep\u00adloy config", "deploy config"},
		{"\u1103\u1166\u110b\u1175\u1110\u1165", "데이터"}, {"ฐานข้อมูล", "ตั้งค่าฐานข้อมูลให้ใช้พูล"},
	} {
		f.Add(s[0], s[1])
	}
	cfg := defaultConfig(f)
	f.Fuzz(func(t *testing.T, prompt, field string) {
		r := &record.Record{V: 1, ID: "obs-fuzz", Kind: record.Observation, Text: field}
		ix := NewIndex(index.SnapshotOf([]*record.Record{r}, Tokenizer()), cfg)
		checkMayHoldPair(t, ix.prepare(prompt), field)
	})
}

// checkMayHoldPair fails if field earns phrase credit for q on its own
// while mayHoldPair says it cannot.
func checkMayHoldPair(t *testing.T, q *query, field string) {
	t.Helper()
	if q == nil {
		return
	}
	p := q.newPhrasing()
	p.add(Tokens(field))
	if phrases, near := p.credit(); phrases+near > 0 && !q.mayHoldPair(field) {
		t.Fatalf("mayHoldPair(%q) is false for the prompt words %q, though the field earns phrase credit (%.3f, near %.3f)", field, q.words, phrases, near)
	}
}
