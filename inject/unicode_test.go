package inject

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"lore/anchor"
	"lore/index"
	"lore/record"
)

// unicodeIndex ranks over records of the given texts (and anchors, by
// text), as the store would.
func unicodeIndex(t *testing.T, texts []string, anchors map[string]string) (*Index, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var recs []*record.Record
	for i, text := range texts {
		r := &record.Record{V: 1, ID: "dec-" + strings.Repeat("a", i+1), Kind: record.Decision, Text: text, Time: now, Created: now}
		if p, ok := anchors[text]; ok {
			r.Anchors = []record.Anchor{{Path: p}}
		}
		recs = append(recs, r)
	}
	return NewIndex(index.SnapshotOf(recs, Tokenizer()), defaultConfig(t)), now
}

// ranked reports whether prompt ranks the record whose text is text.
func ranked(ix *Index, now time.Time, prompt, text string) (Scored, bool) {
	for _, sc := range ix.Rank(prompt, Options{Now: now}) {
		if sc.Rec.Text == text {
			return sc, true
		}
	}
	return Scored{}, false
}

// What input methods and file systems write in compatibility or decomposed
// form (full-width Latin and digits, half-width katakana, decomposed Hangul,
// Cyrillic and kana) is one word with what others type, either way round.
func TestTokensInCompatibilityForm(t *testing.T) {
	for _, c := range []struct{ typed, plain string }{
		{"Ｒｅｄｉｓ ３００", "Redis 300"},
		{"ＡＰＩキー", "APIキー"},
		{"ﾃﾞｰﾀﾍﾞｰｽ", "データベース"},
		{"\u1103\u1166\u110b\u1175\u1110\u1165\u1107\u1166\u110b\u1175\u1109\u1173", "데이터베이스"},
		{"\u0438\u0306\u043e\u0433\u0443\u0440\u0442", "йогурт"},
		{"\u30cf\u3099\u30c3\u30af\u30a2\u30c3\u30d5\u309a", "バックアップ"}, // NFD: the dakuten is no ハ's
	} {
		if got, want := Keywords(c.typed), Keywords(c.plain); !slices.Equal(got, want) {
			t.Errorf("Keywords(%+q) = %q, want %q, as for %q", c.typed, got, want, c.plain)
		}
	}
	ix, now := unicodeIndex(t, []string{"ＡＰＩキーは毎月ローテーションする", "Redis cache TTL is 300 seconds"}, nil)
	for _, c := range [][2]string{{"API キー", "ＡＰＩキーは毎月ローテーションする"}, {"Ｒｅｄｉｓ ＴＴＬ", "Redis cache TTL is 300 seconds"}} {
		if _, ok := ranked(ix, now, c[0], c[1]); !ok {
			t.Errorf("%q does not find %q", c[0], c[1])
		}
	}
	// Phrase credit looks for the words in the text before tokenizing it:
	// in the same form.
	q, recs := phraseQuery(t, "redis cache", "Ｒｅｄｉｓ ｃａｃｈｅ ttl")
	if !q.mayHoldPair(recs[0].Text) {
		t.Errorf("mayHoldPair(%q) is false for redis cache", recs[0].Text)
	}
}

// A pair of characters of a script written without spaces matches only
// itself: not as a word form (接受 is not 接口), a typo (서비 is not 서버),
// an abbreviation or a fuzzy match (テ is not ステ).
func TestSpacelessPairsMatchExactly(t *testing.T) {
	texts := []string{"支付接口必须幂等", "测试覆盖率不能下降", "결제 서버 설정은 환경변수로", "ステージング環境を使う"}
	ix, now := unicodeIndex(t, texts, nil)
	for _, prompt := range []string{"接受", "测评", "서비", "テ", "ス"} {
		for _, w := range Keywords(prompt) {
			if ms := ix.expand(w, w); len(ms) > 0 {
				t.Errorf("%q matches %v", w, ms)
			}
		}
	}
	if sc, ok := ranked(ix, now, "支付接口", texts[0]); !ok || len(sc.Matched) == 0 {
		t.Errorf("支付接口 does not find %q", texts[0])
	}
}

// The rules for words in other forms and typos count letters, not bytes,
// in scripts whose letters take two bytes.
func TestWordRulesCountLetters(t *testing.T) {
	if d := damerau("тест", "тетс", 1); d != 1 {
		t.Errorf("damerau(тест, тетс) = %d, want 1 (two letters swapped)", d)
	}
	if prefixClose("тес", "тест") {
		t.Errorf("тес is three letters: too short for a prefix match")
	}
	if isAbbreviation("тест") || isAbbreviation("сервер") {
		t.Errorf("a Cyrillic word is no abbreviation for want of Latin vowels")
	}
	if !sameLetters("тест", "тетс") || sameLetters("тест", "тёст") {
		t.Errorf("sameLetters compares letters")
	}
	ix, _ := unicodeIndex(t, []string{"конфигурация сервера"}, nil)
	found := func(q string) bool {
		for _, m := range ix.expand(q, q) {
			if m.term == "конфигурация" {
				return true
			}
		}
		return false
	}
	if !found("конфигурацыя") {
		t.Errorf("конфигурацыя (one letter off) does not match конфигурация")
	}
	if found("конф") {
		t.Errorf("конф matches конфигурация") // fuzzy, on a byte-wise vowel test
	}
}

// Thai, Lao, Khmer and Myanmar are written without spaces between words:
// they are split into pairs as Chinese is, a letter keeping the vowel and
// tone marks written over and under it (and a Khmer or Myanmar consonant
// stacked under another).
func TestSpacelessSoutheastAsianScripts(t *testing.T) {
	for _, c := range []struct{ text, word string }{
		{"ตั้งค่าฐานข้อมูลให้ใช้พูล", "ฐานข้อมูล"},
		{"ຕັ້ງຄ່າຖານຂໍ້ມູນໃຫ້ໃຊ້", "ຖານຂໍ້ມູນ"},
		{"ការកំណត់មូលដ្ឋានទិន្នន័យ", "មូលដ្ឋានទិន្នន័យ"},
		{"ဒေတာဘေ့စ်ချိတ်ဆက်မှုကိုပြင်ပါ", "ချိတ်ဆက်မှု"},
	} {
		all := Keywords(c.text)
		for _, w := range Keywords(c.word) {
			if !slices.Contains(all, w) {
				t.Errorf("%q: %q not among the keywords of %q, %q", c.word, w, c.text, all)
			}
		}
		for _, tok := range Tokens(c.text) {
			if first, _ := utf8.DecodeRuneInString(tok.Stem); unicode.IsMark(first) || runeLen(tok.Stem) > 8 {
				t.Errorf("%q: token %q", c.text, tok.Stem)
			}
		}
	}
	// ក្ស: ក with ស stacked under it, one character.
	if got := Keywords("ក្សត្រ"); !slices.Equal(got, []string{"ក្សត្រ"}) {
		t.Errorf("Keywords(ក្សត្រ) = %q, want the two stacked characters as one pair", got)
	}
	text := "ตั้งค่าฐานข้อมูลให้ใช้พูล"
	ix, now := unicodeIndex(t, []string{text}, nil)
	if _, ok := ranked(ix, now, "ฐานข้อมูล", text); !ok {
		t.Errorf("ฐานข้อมูล does not find %q", text)
	}
}

// A prompt naming a file in letters other than ASCII's boosts the record
// anchored to it, as it does one named in ASCII.
func TestNamedFileInAnyScript(t *testing.T) {
	if got := anchor.PathWords("看一下 「服务/配置.go」， 和 サービス.ts。"); !slices.Equal(got, []string{"服务/配置.go", "サービス.ts"}) {
		t.Errorf("PathWords = %q", got)
	}
	texts := []string{"超时设置要保守", "timeout settings stay conservative"}
	ix, now := unicodeIndex(t, texts, map[string]string{texts[0]: "服务/配置.go", texts[1]: "service/config.go"})
	for _, c := range [][2]string{{"看一下 服务/配置.go 的超时设置", texts[0]}, {"look at service/config.go timeout settings", texts[1]}} {
		if sc, ok := ranked(ix, now, c[0], c[1]); !ok || sc.Named <= 1 {
			t.Errorf("%q: %q named boost %.2f, want %.2f", c[0], c[1], sc.Named, ix.cfg.Anchors.NamedBoost)
		}
	}
}

// A prompt in a script split into pairs counts as much text as one in
// English: an 86-character Chinese prompt still weighs its last words.
func TestLongSpacelessPromptKeepsItsTail(t *testing.T) {
	prompt := "请帮我看一下为什么我们的服务在每天晚上八点左右会出现大量的请求超时，日志里面有很多错误信息，" +
		"监控图表显示延迟突然升高，用户也开始投诉页面加载很慢，我怀疑问题出在数据库连接池"
	text := "连接池上限调到两百"
	ix, now := unicodeIndex(t, []string{text, "前端按钮改成蓝色"}, nil)
	if ws := Words(prompt); !slices.Contains(ws, "接池") {
		t.Errorf("the prompt's last words do not count: %q", ws)
	}
	// Its words past the 64th count in the share and the explanation.
	sc, ok := ranked(ix, now, prompt, text)
	if !ok || sc.Share == 0 || !slices.Contains(sc.Matched, "接池→接池 (exact)") {
		t.Errorf("the prompt does not find %q: %v, share %.2f, matched %q", text, ok, sc.Share, sc.Matched)
	}
	// English counts as it did: maxKeywords words.
	var words []string
	for i := range maxKeywords + 10 {
		words = append(words, "w"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	if n := len(Words(strings.Join(words, " "))); n != maxKeywords {
		t.Errorf("%d English words count, want %d", n, maxKeywords)
	}
}
