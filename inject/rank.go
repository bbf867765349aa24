package inject

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sahilm/fuzzy"

	"lore/lore"
)

// How strongly a record field counts when a keyword matches in it: the
// headline, tags and error type say what a record is about; the rest only
// mentions things.
const (
	titleWeight = 1.0
	bodyWeight  = 0.55
)

// Similarity of a prompt keyword to a record term, by how they matched.
const (
	simExact   = 1.0
	simPrefix  = 0.85 // configur ~ configurat
	simSynonym = 0.8  // deploy ~ release, from config
	simTypo    = 0.75 // pacakge ~ package
	simFuzzy   = 0.6  // cfg ~ config, a subsequence of a short field
)

// statusFactor keeps abandoned and deprecated records below what replaced
// them; dismissed and promoted observations are not candidates at all.
var statusFactor = map[string]float64{
	lore.StatusActive: 1, lore.StatusAbandoned: 0.4, lore.StatusDeprecated: 0.4,
}

// Index ranks a snapshot's records against prompts.
type Index struct {
	snap     *lore.Snapshot
	synonyms map[string][]string // stemmed term → stemmed synonyms
	cfg      *lore.Config
}

// TokenizerVersion names how Terms splits records; change it whenever
// Terms or Keywords change, so cached terms are rebuilt.
const TokenizerVersion = "kw1"

// Tokenizer is the record tokenizer the store's cache keeps terms for.
func Tokenizer() lore.Tokenizer { return lore.Tokenizer{Version: TokenizerVersion, Terms: Terms} }

// Terms are a record's search terms: the headline's (text, tags, error
// type) and the body's (every other text field).
func Terms(r *lore.Record) (title, body []string) {
	title = Keywords(r.Text + " " + strings.Join(r.Tags, " ") + " " + r.ErrorType)
	body = Keywords(strings.Join([]string{r.Rationale, r.Alternatives, r.Context, r.Solution, r.Tool,
		strings.Join(r.Next, " "), strings.Join(r.Blocked, " ")}, " "))
	return title, body
}

// NewIndex ranks over snap's records; dismissed and promoted observations
// are never candidates.
func NewIndex(snap *lore.Snapshot, cfg *lore.Config) *Index {
	return &Index{snap: snap, cfg: cfg, synonyms: stemSynonyms(cfg.Synonyms)}
}

func (ix *Index) has(term string) bool {
	_, found := slices.BinarySearch(ix.snap.Terms(), term)
	return found
}

func stemSynonyms(cfg map[string][]string) map[string][]string {
	out := map[string][]string{}
	link := func(a, b string) {
		if a != b {
			out[a] = append(out[a], b)
		}
	}
	for k, vs := range cfg {
		group := Keywords(k + " " + strings.Join(vs, " "))
		for _, a := range group {
			for _, b := range group {
				link(a, b)
			}
		}
	}
	return out
}

// Scored is a record with its score and the factors behind it.
type Scored struct {
	Rec      *lore.Record `json:"-"`
	Score    float64      `json:"score"`
	Kind     float64      `json:"kind_weight"`
	Recency  float64      `json:"recency"`
	Strength float64      `json:"strength"` // weighted fraction of the prompt's keywords matched
	Coverage float64      `json:"coverage"` // fraction of the record's headline terms matched
	Status   float64      `json:"status_factor"`
	Matched  []string     `json:"matched"` // "prompt-term→record-term (how)"
}

// Options tune one ranking.
type Options struct {
	Now       time.Time
	Threshold float64     // minimum score; negative means the config's
	Kinds     []lore.Kind // only these kinds, if any
}

type termMatch struct {
	term string
	sim  float64
	how  string
}

// Rank scores every record against query and returns those at or above the
// threshold, best first.
func (ix *Index) Rank(query string, o Options) []Scored {
	qs := Keywords(query)
	if len(qs) == 0 || ix.snap.Len() == 0 {
		return nil
	}
	threshold := o.Threshold
	if threshold < 0 {
		threshold = ix.cfg.Inject.Threshold
	}
	// IDF over the store plus backgroundDocs imaginary records that lack
	// the term: in a small store every term is "common", and unsmoothed
	// IDF would let filler words outweigh the topic.
	n := float64(ix.snap.Len()) + backgroundDocs
	if len(qs) > maxKeywords {
		qs = qs[:maxKeywords]
	}
	// Per-record accumulators in slices, not maps: a common term can touch
	// thousands of records in a large store.
	size := ix.snap.Len()
	weight := make([]float64, size)
	matched := make([]uint64, size) // bit i: keyword i matched the record
	titleHits := make([]uint8, size)
	best := make([]float64, size)
	inTitle := make([]uint8, size) // headline terms this keyword matched
	expansions := make([][]termMatch, len(qs))
	postings := map[string][]lore.Posting{}
	posts := func(t string) []lore.Posting {
		p, ok := postings[t]
		if !ok {
			p = ix.snap.Postings(t)
			postings[t] = p
		}
		return p
	}
	var total float64
	var touched, candidates []int
	for qi, q := range qs {
		ms := ix.expand(q)
		expansions[qi] = ms
		if len(ms) == 0 {
			// A word the store has never seen is as specific as its
			// rarest term: the prompt is partly about something else.
			total += unseenShare * math.Log(1+n)
			continue
		}
		df := 0
		for _, m := range ms {
			df += len(posts(m.term))
		}
		w := math.Max(math.Log(1+n/float64(df+1)), minKeywordWeight)
		total += w
		touched = touched[:0]
		for _, m := range ms {
			for _, p := range posts(m.term) {
				s := m.sim * bodyWeight
				if p.Title {
					s = m.sim * titleWeight
					inTitle[p.Doc]++
				}
				if best[p.Doc] == 0 {
					touched = append(touched, p.Doc)
				}
				best[p.Doc] = max(best[p.Doc], s)
			}
		}
		for _, d := range touched {
			if matched[d] == 0 {
				candidates = append(candidates, d)
			}
			weight[d] += w * best[d]
			matched[d] |= 1 << qi
			titleHits[d] += inTitle[d]
			best[d], inTitle[d] = 0, 0
		}
	}
	var out []Scored
	for _, d := range candidates {
		doc := ix.snap.Doc(d)
		status, ok := statusFactor[doc.Status]
		if !ok || len(o.Kinds) > 0 && !slices.Contains(o.Kinds, doc.Kind) {
			continue
		}
		sc := Scored{Status: status, Strength: weight[d] / total}
		if doc.NTitle > 0 {
			sc.Coverage = min(1, float64(titleHits[d])/float64(doc.NTitle))
		}
		sc.Kind = ix.cfg.Weight(doc.Kind)
		sc.Recency = recency(doc.Created, o.Now, ix.cfg.Inject.HalfLifeDays)
		match := strengthShare*sc.Strength + (1-strengthShare)*sc.Coverage
		sc.Score = sc.Kind * sc.Recency * sc.Status * match
		if sc.Score >= threshold {
			sc.Rec = ix.snap.Record(d)
			sc.Matched = explain(d, qs, matched[d], expansions, posts)
			out = append(out, sc)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Rec.Created.After(out[j].Rec.Created)
	})
	return out
}

// Ranking constants, tuned against the relevance evaluation in
// eval_test.go.
const (
	strengthShare    = 0.6 // match = share·strength + (1-share)·coverage
	unseenShare      = 0.8 // of the rarest term's weight, for a word the store has never seen
	backgroundDocs   = 50  // IDF smoothing prior
	minKeywordWeight = 0.3
	recencyFloor     = 0.75 // an old record keeps this much of its weight
	maxKeywords      = 64   // keywords of a prompt that count (one bit each)
)

// recency decays from 1 toward recencyFloor with the configured half-life,
// so an old decision still surfaces but a fresh one wins a tie.
func recency(created int64, now time.Time, halfLife float64) float64 {
	if now.IsZero() {
		now = time.Now()
	}
	age := now.Sub(time.Unix(0, created)).Hours() / 24
	if age < 0 {
		age = 0
	}
	return recencyFloor + (1-recencyFloor)*math.Pow(0.5, age/halfLife)
}

// explain says, for a record that scored, which record term each matched
// keyword hit and how; postings are sorted by record, so it searches.
func explain(d int, qs []string, mask uint64, expansions [][]termMatch, posts func(string) []lore.Posting) []string {
	var out []string
	for qi, q := range qs {
		if mask&(1<<qi) == 0 {
			continue
		}
		var bestM termMatch
		bestS := -1.0
		for _, m := range expansions[qi] {
			ps := posts(m.term)
			i := sort.Search(len(ps), func(i int) bool { return ps[i].Doc >= d })
			if i == len(ps) || ps[i].Doc != d {
				continue
			}
			s := m.sim * bodyWeight
			if ps[i].Title {
				s = m.sim * titleWeight
			}
			if s > bestS {
				bestM, bestS = m, s
			}
		}
		out = append(out, q+"→"+bestM.term+" ("+bestM.how+")")
	}
	return out
}

// expand finds the vocabulary terms a prompt keyword matches, and how well.
func (ix *Index) expand(q string) []termMatch {
	found := map[string]termMatch{}
	add := func(t string, sim float64, how string) {
		if cur, ok := found[t]; !ok || sim > cur.sim {
			found[t] = termMatch{t, sim, how}
		}
	}
	vocab := ix.snap.Terms()
	if ix.has(q) {
		add(q, simExact, "exact")
	}
	for _, syn := range ix.synonyms[q] {
		if ix.has(syn) {
			add(syn, simSynonym, "synonym")
		}
	}
	// Prefix relations both ways: terms starting with q are a sorted run.
	i := sort.SearchStrings(vocab, q)
	for ; i < len(vocab) && strings.HasPrefix(vocab[i], q); i++ {
		if t := vocab[i]; t != q && prefixClose(q, t) {
			add(t, simPrefix, "prefix")
		}
	}
	for k := len(q) - 1; k >= 4; k-- {
		if ix.has(q[:k]) && prefixClose(q[:k], q) {
			add(q[:k], simPrefix, "prefix")
		}
	}
	// Typos: one edit (two for long words), same first letter.
	if len(q) >= 5 {
		lo := sort.SearchStrings(vocab, q[:1])
		for j := lo; j < len(vocab) && vocab[j][0] == q[0]; j++ {
			t := vocab[j]
			if abs(len(t)-len(q)) > 2 {
				continue
			}
			limit := 1
			if len(q) >= 8 {
				limit = 2
			}
			if damerau(q, t, limit) <= limit {
				add(t, simTypo, "typo")
			}
		}
	}
	// Abbreviations and partial identifiers: q as a subsequence of a short
	// field term, starting at the same letter (cfg ~ config).
	if len(q) >= 3 && len(found) == 0 {
		for _, m := range fuzzy.Find(q, vocab) {
			t := m.Str
			if t[0] == q[0] && float64(len(q))/float64(len(t)) >= 0.5 && len(t) <= 12 {
				add(t, simFuzzy, "fuzzy")
			}
		}
	}
	out := make([]termMatch, 0, len(found))
	for _, m := range found {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].term < out[j].term })
	return out
}

// prefixClose accepts a prefix relation when the shorter word is long
// enough and most of the longer one (test ~ tests, not test ~ testimonial).
func prefixClose(short, long string) bool {
	return len(short) >= 4 && float64(len(short))/float64(len(long)) >= 0.6
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// damerau is the optimal-string-alignment distance between a and b, giving
// up (returning limit+1) once it must exceed limit.
func damerau(a, b string, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
