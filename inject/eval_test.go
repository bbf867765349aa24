package inject

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"lore/lore"
)

// evalCase is one prompt of the relevance evaluation.
type evalCase struct {
	prompt string
	expect string // record key; "" for a prompt that must inject nothing
}

// loadEval reads testdata/eval.txt into records (IDs keyed by the file's
// short keys) and cases.
func loadEval(t testing.TB, now time.Time) (recs []*lore.Record, ids map[string]string, cases []evalCase) {
	f, err := os.Open("testdata/eval.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids = map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, ">"):
			p, key, ok := strings.Cut(strings.TrimPrefix(line, ">"), "=>")
			if !ok {
				t.Fatalf("eval.txt:%d: targeted prompt without =>", n)
			}
			cases = append(cases, evalCase{strings.TrimSpace(p), strings.TrimSpace(key)})
		case strings.HasPrefix(line, "!"):
			cases = append(cases, evalCase{strings.TrimSpace(strings.TrimPrefix(line, "!")), ""})
		default:
			r := parseEvalRecord(t, n, line, now)
			ids[strings.TrimSpace(strings.SplitN(line, "|", 2)[0])] = r.ID
			recs = append(recs, r)
		}
	}
	for _, c := range cases {
		if c.expect != "" && ids[c.expect] == "" {
			t.Fatalf("prompt %q expects unknown record %q", c.prompt, c.expect)
		}
	}
	return recs, ids, cases
}

func parseEvalRecord(t testing.TB, n int, line string, now time.Time) *lore.Record {
	f := strings.Split(line, "|")
	if len(f) != 7 {
		t.Fatalf("eval.txt:%d: want 7 fields, have %d", n, len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	kind, err := lore.ParseKind(f[1])
	if err != nil {
		t.Fatalf("eval.txt:%d: %v", n, err)
	}
	age, _ := strconv.Atoi(f[2])
	created := now.Add(-time.Duration(age) * 24 * time.Hour)
	r := &lore.Record{V: 1, ID: lore.NewID(kind, created), Kind: kind, Time: created, Created: created,
		Status: f[3], Text: f[4], Tags: lore.NormalizeTags([]string{f[6]})}
	// Fields are "k=v; k=v"; a piece without "k=" continues the value before.
	var pieces []string
	for _, p := range strings.Split(f[5], ";") {
		if k, _, ok := strings.Cut(p, "="); (!ok || strings.ContainsAny(strings.TrimSpace(k), " .,")) && len(pieces) > 0 {
			pieces[len(pieces)-1] += ";" + p
			continue
		}
		pieces = append(pieces, p)
	}
	for _, kv := range pieces {
		k, v, _ := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "":
		case "rationale":
			r.Rationale = v
		case "context":
			r.Context = v
		case "solution":
			r.Solution = v
		case "anti":
			r.Anti = v == "true"
		case "error_type":
			r.ErrorType = v
		case "tool":
			r.Tool = v
		case "next":
			r.Next = append(r.Next, v)
		case "blocked":
			r.Blocked = append(r.Blocked, v)
		default:
			t.Fatalf("eval.txt:%d: unknown field %q", n, k)
		}
	}
	return r
}

// TestRelevance is the relevance evaluation: the expected record must lead
// the block (among its first three items) for at least 90% of targeted
// prompts, and at most 5% of unrelated prompts may inject anything.
func TestRelevance(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	recs, ids, cases := loadEval(t, now)
	cfg, err := lore.LoadConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex(lore.SnapshotOf(recs, Tokenizer()), cfg)
	keyOf := map[string]string{}
	for k, id := range ids {
		keyOf[id] = k
	}
	var targeted, hits, unrelated, falseInj, items int
	for _, c := range cases {
		r := PromptContext(ix, cfg, c.prompt, DefaultBudget, now, nil)
		if os.Getenv("LORE_EVAL_DEBUG") != "" {
			t.Logf("%q keywords %v", c.prompt, Keywords(c.prompt))
			for i, sc := range ix.Rank(c.prompt, Options{Now: now, Threshold: 0}) {
				if i == 4 {
					break
				}
				t.Logf("   %.3f %-4s str %.2f cov %.2f %v", sc.Score, keyOf[sc.Rec.ID], sc.Strength, sc.Coverage, sc.Matched)
			}
		}
		shown := append(append([]string{}, r.Full...), r.Summary...)
		var keys []string
		for _, id := range shown {
			keys = append(keys, keyOf[id])
		}
		if c.expect == "" {
			unrelated++
			if r.Text != "" {
				falseInj++
				t.Logf("FALSE INJECTION %q -> %v", c.prompt, keys)
			}
			continue
		}
		targeted++
		items += len(shown)
		pos := -1
		for i, k := range keys {
			if k == c.expect {
				pos = i
				break
			}
		}
		if pos >= 0 && pos < 3 {
			hits++
		} else {
			t.Logf("MISS %q: want %s, block has %v", c.prompt, c.expect, keys)
		}
	}
	hitRate := float64(hits) / float64(targeted)
	falseRate := float64(falseInj) / float64(unrelated)
	t.Logf("relevance: %d records; hit rate %d/%d = %.1f%% (expected record among the first 3 items); "+
		"false injections %d/%d = %.1f%%; %.1f items per targeted block",
		len(recs), hits, targeted, 100*hitRate, falseInj, unrelated, 100*falseRate, float64(items)/float64(targeted))
	if len(recs) < 50 || targeted < 30 || unrelated < 15 {
		t.Fatalf("evaluation too small: %d records, %d targeted, %d unrelated", len(recs), targeted, unrelated)
	}
	if hitRate < 0.9 {
		t.Errorf("hit rate %.1f%% is below 90%%", 100*hitRate)
	}
	if falseRate > 0.05 {
		t.Errorf("false-injection rate %.1f%% is above 5%%", 100*falseRate)
	}
}
