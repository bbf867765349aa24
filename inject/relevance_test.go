package inject

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"lore/index"
	"lore/record"
)

// The relevance evaluation (testdata/relevance, see its README): records
// written from real projects' ADRs, docs and issue threads, hidden among
// real commit messages, and prompts split by project into a dev half (the
// only one the ranker is tuned on) and a held-out test half (only run to
// report). Each half is measured in a small store (the records alone) and
// a large one (with the distractors), beside plain BM25 on the same data.

// relevanceSet is the loaded evaluation.
type relevanceSet struct {
	records     []*record.Record // the projects' records
	distractors []*record.Record
	ids         map[string]string // key → record ID
	dev, test   []evalCase
}

func loadRelevance(t testing.TB, now time.Time) *relevanceSet {
	set := &relevanceSet{ids: map[string]string{}}
	dir := filepath.Join("testdata", "relevance")
	files, _ := filepath.Glob(filepath.Join(dir, "records-*.txt"))
	if len(files) == 0 {
		t.Fatalf("no %s/records-*.txt", dir)
	}
	for _, f := range files {
		set.records = append(set.records, readRecords(t, f, now, set.ids)...)
	}
	set.distractors = readRecords(t, filepath.Join(dir, "distractors.txt"), now, set.ids)
	prompts, _ := filepath.Glob(filepath.Join(dir, "prompts-*.txt"))
	for _, f := range prompts {
		dev, test := readPrompts(t, f, set.ids)
		set.dev, set.test = append(set.dev, dev...), append(set.test, test...)
	}
	// Prompts written later for the dev half alone, in the same format:
	// adding them leaves the split of the files above as it was.
	devOnly, _ := filepath.Glob(filepath.Join(dir, "dev-*.txt"))
	for _, f := range devOnly {
		dev, test := readPrompts(t, f, set.ids)
		set.dev = append(set.dev, append(dev, test...)...)
	}
	// And for the test half alone, so that its false-injection rate rests
	// on as many unrelated prompts as the dev half's.
	testOnly, _ := filepath.Glob(filepath.Join(dir, "test-*.txt"))
	for _, f := range testOnly {
		dev, test := readPrompts(t, f, set.ids)
		set.test = append(set.test, append(dev, test...)...)
	}
	return set
}

func readRecords(t testing.TB, path string, now time.Time, ids map[string]string) []*record.Record {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []*record.Record
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key := strings.TrimSpace(strings.SplitN(line, "|", 2)[0])
		if ids[key] != "" {
			t.Fatalf("%s:%d: key %q used twice", path, n, key)
		}
		r := parseEvalRecord(t, path, n, line, now)
		ids[key] = r.ID
		recs = append(recs, r)
	}
	return recs
}

// readPrompts splits a prompt file by project: the first, third, fifth …
// project of the file go to the dev half, the others to the test half;
// unrelated prompts alternate.
func readPrompts(t testing.TB, path string, ids map[string]string) (dev, test []evalCase) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	projects, unrelated := 0, 0
	toDev := true
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "## project:"):
			projects++
			toDev = projects%2 == 1
		case strings.HasPrefix(line, ">"):
			p, key, ok := strings.Cut(strings.TrimPrefix(line, ">"), "=>")
			key = strings.TrimSpace(key)
			if !ok || ids[key] == "" {
				t.Fatalf("%s:%d: targeted prompt without a known => key", path, n+1)
			}
			c := evalCase{strings.TrimSpace(p), key}
			if toDev {
				dev = append(dev, c)
			} else {
				test = append(test, c)
			}
		case strings.HasPrefix(line, "!"):
			c := evalCase{strings.TrimSpace(strings.TrimPrefix(line, "!")), ""}
			if unrelated++; unrelated%2 == 1 {
				dev = append(dev, c)
			} else {
				test = append(test, c)
			}
		}
	}
	return dev, test
}

// TestRelevance reports lore and BM25 on the held-out test half, in a small
// and a large store, says how far it is from the targets, and fails below
// the floor.
// LORE_EVAL_HALF=dev runs the dev half instead (for tuning).
func TestRelevance(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	set := loadRelevance(t, now)
	half, cases := "test", set.test
	if os.Getenv("LORE_EVAL_HALF") == "dev" {
		half, cases = "dev", set.dev
	}
	for _, store := range []struct {
		name string
		recs []*record.Record
	}{
		{"small store", set.records},
		{"large store", append(slices.Clone(set.records), set.distractors...)},
	} {
		res := evaluate(t, store.recs, set.ids, cases, now)
		bm := newBM25(store.recs, set.ids)
		floor := bm.bestFloor(set.dev, targetFalseRate) // chosen on the dev half only
		raw, floored := bm.evaluate(cases, 0), bm.evaluate(cases, floor)
		t.Logf("%s half, %s (%d records): lore %s", half, store.name, len(store.recs), res)
		t.Logf("%s half, %s: BM25 top 3 %s; with score floor %.2f (chosen on dev): %s", half, store.name, raw, floor, floored)
		// The issue compares at an equal false-injection rate: BM25's floor
		// that, on the dev half, lets through no more than lore does there.
		devRes := res
		if half != "dev" {
			devRes = set.devResult(t, store.recs, now)
		}
		matched := bm.bestFloor(set.dev, devRes.falseRate())
		t.Logf("%s half, %s: BM25 with score floor %.2f (lore's dev false-injection rate, %.1f%%, on dev): %s",
			half, store.name, matched, 100*devRes.falseRate(), bm.evaluate(cases, matched))
		for _, m := range res.misses {
			if half == "dev" || os.Getenv("LORE_EVAL_MISSES") != "" {
				t.Log("  ", m)
			}
		}
		if half != "test" {
			continue
		}
		if res.hitRate() < targetHitRate || res.falseRate() > targetFalseRate {
			t.Logf("%s: short of the targets (hit rate ≥ %.0f%%, false injections ≤ %.0f%%)",
				store.name, 100*targetHitRate, 100*targetFalseRate)
		}
		checkFloor(t, store.name, res, floorHitRate, floorFalseRate)
	}
}

// devResult is lore's result on the dev half in a store of recs (the main
// set's records, with or without the distractors), worked out once for the
// tests that choose BM25's floor at lore's dev false-injection rate.
func (set *relevanceSet) devResult(t testing.TB, recs []*record.Record, now time.Time) evalResult {
	devResults.Lock()
	defer devResults.Unlock()
	res, ok := devResults.byStore[len(recs)]
	if !ok {
		res = evaluate(t, recs, set.ids, set.dev, now)
		devResults.byStore[len(recs)] = res
	}
	return res
}

var devResults = struct {
	sync.Mutex
	byStore map[int]evalResult
}{byStore: map[int]evalResult{}}

// The relevance issue's targets for the test half, which the ranker does
// not reach yet (the test says by how much), and the floor it must not
// fall below: just outside what it measured when the unseen-word weight
// and the gate were last chosen (74.7% and 63.7% hits, 7 and 6 of 84
// false injections, in the small and the large store).
const (
	targetHitRate   = 0.90
	targetFalseRate = 0.05
	floorHitRate    = 0.60
	floorFalseRate  = 0.10
)

// bm25 is plain Okapi BM25 as SQLite FTS5 computes it (k1 1.2, b 0.75,
// every field of a record in one column, unicode61-style tokens: lower-case
// runs of letters and digits, no stemming, no stopwords), answering a
// prompt as an OR of its words: the anchor lore's ranker is compared with.
type bm25 struct {
	posts map[string][]posting
	lens  []int
	avg   float64
	keyOf []string
}

type posting struct{ doc, tf int }

func newBM25(recs []*record.Record, ids map[string]string) *bm25 {
	keyOf := map[string]string{}
	for k, id := range ids {
		keyOf[id] = k
	}
	b := &bm25{posts: map[string][]posting{}}
	total := 0
	for d, r := range recs {
		tf := map[string]int{}
		toks := ftsTokens(strings.Join(append([]string{headline(r)}, bodyFields(r)...), " "))
		for _, w := range toks {
			tf[w]++
		}
		for w, f := range tf {
			b.posts[w] = append(b.posts[w], posting{d, f})
		}
		b.lens, b.keyOf = append(b.lens, len(toks)), append(b.keyOf, keyOf[r.ID])
		total += len(toks)
	}
	b.avg = float64(total) / float64(max(len(recs), 1))
	return b
}

func ftsTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
}

type hit struct {
	key   string
	score float64
}

// top returns the best three records for prompt with their scores.
func (b *bm25) top(prompt string) []hit {
	q := slices.Compact(slices.Sorted(slices.Values(ftsTokens(prompt))))
	n := float64(len(b.lens))
	scores := map[int]float64{}
	for _, w := range q {
		df := float64(len(b.posts[w]))
		idf := math.Log((n-df+0.5)/(df+0.5) + 1)
		for _, p := range b.posts[w] {
			f := float64(p.tf)
			scores[p.doc] += idf * f * (1.2 + 1) / (f + 1.2*(1-0.75+0.75*float64(b.lens[p.doc])/b.avg))
		}
	}
	hits := make([]hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, hit{b.keyOf[d], s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].key < hits[j].key
	})
	return hits[:min(3, len(hits))]
}

// evaluate counts BM25's top three above floor as its injection.
func (b *bm25) evaluate(cases []evalCase, floor float64) evalResult {
	var res evalResult
	for _, c := range cases {
		var keys []string
		for _, h := range b.top(c.prompt) {
			if h.score >= floor {
				keys = append(keys, h.key)
			}
		}
		if c.expect == "" {
			res.unrelated++
			if len(keys) > 0 {
				res.falseInj++
			}
			continue
		}
		res.targeted++
		res.items += len(keys)
		if slices.Contains(keys, c.expect) {
			res.hits++
		}
	}
	return res
}

// bestFloor is the score floor with BM25's best hit rate on cases at a
// false-injection rate no higher than maxFalse.
func (b *bm25) bestFloor(cases []evalCase, maxFalse float64) float64 {
	best, bestHits := 0.0, -1
	for floor := 0.0; floor <= 30; floor += 0.25 {
		res := b.evaluate(cases, floor)
		if res.falseRate() <= maxFalse && res.hits > bestHits {
			best, bestHits = floor, res.hits
		}
	}
	return best
}

// mayHoldPair on real text: every prompt of the evaluation against every
// field of its records, in the large store (FuzzMayHoldPair tries arbitrary
// text).
func TestMayHoldPair(t *testing.T) {
	now := time.Now()
	set := loadRelevance(t, now)
	recs := append(slices.Clone(set.records), set.distractors...)
	cfg := defaultConfig(t)
	ix := NewIndex(index.SnapshotOf(recs, Tokenizer()), cfg)
	for _, c := range append(slices.Clone(set.dev), set.test...) {
		q := ix.prepare(c.prompt)
		for _, r := range set.records {
			for _, f := range append([]string{r.Text}, bodyFields(r)...) {
				checkMayHoldPair(t, q, f)
			}
		}
	}
}
