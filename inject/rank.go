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

// Index is the searchable form of a set of current records.
type Index struct {
	docs     []doc
	postings map[string][]posting // term → docs holding it
	vocab    []string             // every term, sorted
	synonyms map[string][]string  // stemmed term → stemmed synonyms
	cfg      *lore.Config
}

type doc struct {
	rec        *lore.Record
	titleTerms []string
}

type posting struct {
	doc   int32
	title bool
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

// WithTerms pairs records with their terms, for callers without a cache.
func WithTerms(recs []*lore.Record) []lore.Indexed {
	out := make([]lore.Indexed, len(recs))
	for i, r := range recs {
		t, b := Terms(r)
		out[i] = lore.Indexed{Record: r, Title: t, Body: b}
	}
	return out
}

// NewIndex indexes the records that can be served: current versions,
// neither dismissed nor promoted.
func NewIndex(recs []lore.Indexed, cfg *lore.Config) *Index {
	ix := &Index{postings: map[string][]posting{}, cfg: cfg, synonyms: stemSynonyms(cfg.Synonyms)}
	for _, r := range recs {
		if _, ok := statusFactor[r.Status]; !ok {
			continue
		}
		d := int32(len(ix.docs))
		ix.docs = append(ix.docs, doc{rec: r.Record, titleTerms: r.Title})
		for _, t := range r.Title {
			ix.postings[t] = append(ix.postings[t], posting{d, true})
		}
		for _, t := range r.Body {
			if !slices.Contains(r.Title, t) {
				ix.postings[t] = append(ix.postings[t], posting{d, false})
			}
		}
	}
	ix.vocab = make([]string, 0, len(ix.postings))
	for t := range ix.postings {
		ix.vocab = append(ix.vocab, t)
	}
	sort.Strings(ix.vocab)
	return ix
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
	if len(qs) == 0 || len(ix.docs) == 0 {
		return nil
	}
	threshold := o.Threshold
	if threshold < 0 {
		threshold = ix.cfg.Inject.Threshold
	}
	// IDF over the store plus backgroundDocs imaginary records that lack
	// the term: in a small store every term is "common", and unsmoothed
	// IDF would let filler words outweigh the topic.
	n := float64(len(ix.docs)) + backgroundDocs
	type acc struct {
		weight  float64
		matched []string
		title   map[string]bool
	}
	accs := map[int32]*acc{}
	var total float64
	for _, q := range qs {
		ms := ix.expand(q)
		if len(ms) == 0 {
			// A word the store has never seen is as specific as its
			// rarest term: the prompt is partly about something else.
			total += unseenShare * math.Log(1+n)
			continue
		}
		df := 0
		for _, m := range ms {
			df += len(ix.postings[m.term])
		}
		w := math.Log(1 + n/float64(df+1))
		w = math.Max(w, minKeywordWeight)
		total += w
		best := map[int32]float64{}
		how := map[int32]string{}
		for _, m := range ms {
			for _, p := range ix.postings[m.term] {
				s := m.sim * bodyWeight
				if p.title {
					s = m.sim * titleWeight
				}
				if s > best[p.doc] {
					best[p.doc] = s
					how[p.doc] = q + "→" + m.term + " (" + m.how + ")"
				}
				if p.title {
					a := accs[p.doc]
					if a == nil {
						a = &acc{title: map[string]bool{}}
						accs[p.doc] = a
					}
					a.title[m.term] = true
				}
			}
		}
		for d, s := range best {
			a := accs[d]
			if a == nil {
				a = &acc{title: map[string]bool{}}
				accs[d] = a
			}
			a.weight += w * s
			a.matched = append(a.matched, how[d])
		}
	}
	var out []Scored
	for d, a := range accs {
		if len(a.matched) == 0 {
			continue
		}
		doc := ix.docs[d]
		r := doc.rec
		sc := Scored{Rec: r, Matched: a.matched}
		sc.Strength = a.weight / total
		if len(doc.titleTerms) > 0 {
			hit := 0
			for _, t := range doc.titleTerms {
				if a.title[t] {
					hit++
				}
			}
			sc.Coverage = float64(hit) / float64(len(doc.titleTerms))
		}
		if len(o.Kinds) > 0 && !containsKind(o.Kinds, r.Kind) {
			continue
		}
		sc.Kind = ix.cfg.Weight(r.Kind)
		sc.Recency = recency(r, o.Now, ix.cfg.Inject.HalfLifeDays)
		sc.Status = statusFactor[r.Status]
		match := strengthShare*sc.Strength + (1-strengthShare)*sc.Coverage
		sc.Score = sc.Kind * sc.Recency * sc.Status * match
		if sc.Score >= threshold {
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
)

// recency decays from 1 toward recencyFloor with the configured half-life,
// so an old decision still surfaces but a fresh one wins a tie.
func recency(r *lore.Record, now time.Time, halfLife float64) float64 {
	if now.IsZero() {
		now = time.Now()
	}
	age := now.Sub(r.Created).Hours() / 24
	if age < 0 {
		age = 0
	}
	return recencyFloor + (1-recencyFloor)*math.Pow(0.5, age/halfLife)
}

func containsKind(ks []lore.Kind, k lore.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// expand finds the vocabulary terms a prompt keyword matches, and how well.
func (ix *Index) expand(q string) []termMatch {
	found := map[string]termMatch{}
	add := func(t string, sim float64, how string) {
		if cur, ok := found[t]; !ok || sim > cur.sim {
			found[t] = termMatch{t, sim, how}
		}
	}
	if _, ok := ix.postings[q]; ok {
		add(q, simExact, "exact")
	}
	for _, syn := range ix.synonyms[q] {
		if _, ok := ix.postings[syn]; ok {
			add(syn, simSynonym, "synonym")
		}
	}
	// Prefix relations both ways: terms starting with q are a sorted run.
	i := sort.SearchStrings(ix.vocab, q)
	for ; i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], q); i++ {
		if t := ix.vocab[i]; t != q && prefixClose(q, t) {
			add(t, simPrefix, "prefix")
		}
	}
	for k := len(q) - 1; k >= 4; k-- {
		if _, ok := ix.postings[q[:k]]; ok && prefixClose(q[:k], q) {
			add(q[:k], simPrefix, "prefix")
		}
	}
	// Typos: one edit (two for long words), same first letter.
	if len(q) >= 5 {
		lo := sort.SearchStrings(ix.vocab, q[:1])
		for j := lo; j < len(ix.vocab) && ix.vocab[j][0] == q[0]; j++ {
			t := ix.vocab[j]
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
		for _, m := range fuzzy.Find(q, ix.vocab) {
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
