package inject

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sahilm/fuzzy"

	"lore/config"
	"lore/index"
	"lore/record"
)

// Field weights: the headline (text, tags, error type) says what a record
// is about; the rest only mentions things.
const (
	titleWeight = 1.0
	bodyWeight  = 0.5
)

// Similarity of a prompt keyword to a record term, by how they matched.
const (
	simExact   = 1.0
	simPrefix  = 0.85 // configur ~ configurat
	simStem    = 0.75 // store ~ storag
	simSynonym = 0.8  // deploy ~ release, from config
	simTypo    = 0.75 // pacakge ~ package
	simFuzzy   = 0.6  // cfg ~ config: an abbreviation of a short term
)

// statusFactor keeps abandoned and deprecated records below what replaced
// them; dismissed and promoted observations are not candidates at all.
var statusFactor = map[string]float64{
	record.StatusActive: 1, record.StatusAbandoned: 0.4, record.StatusDeprecated: 0.4,
}

// Index ranks a snapshot's records against prompts.
type Index struct {
	snap     *index.Snapshot
	synonyms map[string][]string // stemmed term → stemmed synonyms
	cfg      *config.Config
}

// TokenizerVersion names how Terms splits records; change it whenever
// Terms or Keywords change, so indexed terms are rebuilt.
const TokenizerVersion = "kw2"

// Tokenizer is the record tokenizer the index keeps terms for.
func Tokenizer() index.Tokenizer { return index.Tokenizer{Version: TokenizerVersion, Terms: Terms} }

// Terms are a record's search terms: the headline's (text, tags, error
// type) and the body's (every other text field).
func Terms(r *record.Record) (title, body []string) {
	return Keywords(headline(r)), Keywords(strings.Join(bodyFields(r), " "))
}

func headline(r *record.Record) string {
	return r.Text + " " + strings.Join(r.Tags, " ") + " " + r.ErrorType
}

func bodyFields(r *record.Record) []string {
	return append([]string{r.Rationale, r.Alternatives, r.Context, r.Solution, r.Tool}, append(r.Next, r.Blocked...)...)
}

// NewIndex ranks over snap's records; dismissed and promoted observations
// are never candidates.
func NewIndex(snap *index.Snapshot, cfg *config.Config) *Index {
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
	Rec      *record.Record `json:"-"`
	Score    float64        `json:"score"`    // evidence × kind × recency × status
	Evidence float64        `json:"evidence"` // terms + phrases, boosted by coverage
	Terms    float64        `json:"terms"`    // saturating, specificity-weighted term matches
	Phrases  float64        `json:"phrases"`  // prompt words found together in the record
	Coverage float64        `json:"coverage"` // share of the record's headline terms matched
	Share    float64        `json:"share"`    // share of the prompt's specificity matched
	// Relevance is what the gate weighs: evidence × share. Evidence alone
	// rises with every word matched; the share tells a record that matches
	// what the prompt is about from one that shares a word or two of it.
	Relevance float64  `json:"relevance"`
	Kind      float64  `json:"kind_weight"`
	Recency   float64  `json:"recency"`
	Status    float64  `json:"status_factor"`
	Matched   []string `json:"matched"` // "prompt word → record word (how)"
	Inject    bool     `json:"inject"`  // the relevance gate let it through
	Why       string   `json:"why"`     // the gate's reason, in words
}

// Options tune one ranking.
type Options struct {
	Now   time.Time
	Kinds []record.Kind // only these kinds, if any
	// MinEvidence drops candidates with less evidence from the result;
	// zero keeps every record that matched a keyword.
	MinEvidence float64
	Limit       int // at most this many results; zero: all
}

type termMatch struct {
	term  string
	sim   float64
	how   string
	posts []index.Posting // the records holding term, decoded once per query
}

// query is a prompt prepared for ranking.
type query struct {
	words  []string      // distinct stems, in order of first appearance
	typed  []string      // the word first typed for each stem
	seq    []string      // every stem in order, for phrases
	spec   []float64     // specificity of each word in this store, 0..1
	expand [][]termMatch // the record terms each word matches
}

// Rank scores the records that match any of the query's keywords, best
// first, and marks those the relevance gate lets through (see gate).
func (ix *Index) Rank(text string, o Options) []Scored {
	q := ix.prepare(StripInjected(text))
	if q == nil {
		return nil
	}
	size := ix.snap.Len()
	avgTitle, avgBody := ix.snap.AvgTerms()
	// Per-record accumulators in slices, not maps: a common term can touch
	// thousands of records in a large store.
	terms := make([]float64, size)
	matched := make([]uint64, size) // bit i: word i matched the record
	titleHits := make([]uint16, size)
	best := make([]float64, size)
	inTitle := make([]bool, size)
	// Field lengths normalise a match's weight (BM25F), so a long record
	// does not win by mentioning everything.
	norm := func(d int, title bool) float64 {
		nt, nb := ix.snap.Lengths(d)
		if title {
			return 1 - bTitle + bTitle*float64(nt)/avgTitle
		}
		return 1 - bBody + bBody*float64(nb)/avgBody
	}
	var touched, candidates []int
	for qi := range q.words {
		touched = touched[:0]
		for _, m := range q.expand[qi] {
			for _, p := range m.posts {
				if best[p.Doc] == 0 {
					touched = append(touched, p.Doc)
				}
				var tf float64
				if p.Title {
					tf = m.sim * titleWeight / norm(p.Doc, true)
					inTitle[p.Doc] = true
				} else {
					tf = m.sim * bodyWeight / norm(p.Doc, false)
				}
				best[p.Doc] = max(best[p.Doc], tf)
			}
		}
		for _, d := range touched {
			if matched[d] == 0 {
				candidates = append(candidates, d)
			}
			// Saturating: a word's evidence is at most its specificity,
			// however the record repeats it; and the sum does not shrink
			// when the prompt has more words.
			terms[d] += q.spec[qi] * best[d] * (k1 + 1) / (best[d] + k1)
			matched[d] |= 1 << qi
			if inTitle[d] {
				titleHits[d]++
			}
			best[d], inTitle[d] = 0, false
		}
	}
	// Every candidate gets a first score without recency and phrases; only
	// the strongest are scored in full (a common word can make thousands
	// of candidates in a large store).
	keep := phraseCandidates
	if o.Limit == 0 {
		keep = len(candidates)
	} else {
		keep = max(keep, o.Limit)
	}
	top := newTopK(keep)
	for _, d := range candidates {
		kind, st := ix.snap.KindStatus(d)
		status, ok := statusFactor[st]
		if !ok || len(o.Kinds) > 0 && !slices.Contains(o.Kinds, kind) {
			continue
		}
		cov := 0.0
		if nt, _ := ix.snap.Lengths(d); nt > 0 {
			cov = min(1, float64(titleHits[d])/float64(nt))
		}
		top.offer(d, terms[d]*(1+coverageBoost*cov)*ix.cfg.Weight(kind)*status)
	}
	type cand struct {
		d  int
		sc Scored
	}
	cs := make([]cand, 0, len(top.items))
	for _, it := range top.items {
		d := it.d
		doc := ix.snap.Doc(d)
		sc := Scored{Terms: terms[d], Status: statusFactor[doc.Status], Kind: ix.cfg.Weight(doc.Kind),
			Recency: recency(doc.Created, o.Now, ix.cfg.Inject.HalfLifeDays)}
		if doc.NTitle > 0 {
			sc.Coverage = min(1, float64(titleHits[d])/float64(doc.NTitle))
		}
		sc.Share = q.share(matched[d])
		sc.score()
		cs = append(cs, cand{d, sc})
	}
	byScore := func(a, b cand) int {
		if c := cmp.Compare(b.sc.Score, a.sc.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.d, b.d)
	}
	slices.SortFunc(cs, byScore)
	// Phrases need the records' words in order: only the strongest
	// candidates are decoded for them.
	for i := range cs[:min(len(cs), phraseCandidates)] {
		cs[i].sc.Phrases = q.phrases(ix.snap.Record(cs[i].d))
		cs[i].sc.score()
	}
	slices.SortFunc(cs, byScore)
	var out []Scored
	for _, c := range cs {
		if c.sc.Evidence < o.MinEvidence {
			continue
		}
		if o.Limit > 0 && len(out) == o.Limit {
			break
		}
		c.sc.Rec = ix.snap.Record(c.d)
		c.sc.Matched = q.explain(c.sc.Rec, matched[c.d])
		out = append(out, c.sc)
	}
	ix.gate(out)
	return out
}

// topK keeps the k best-scoring records offered, in no order.
type topK struct {
	k     int
	items []scoredDoc
	min   int // index of the worst kept item, once full
}

type scoredDoc struct {
	d     int
	score float64
}

func newTopK(k int) *topK { return &topK{k: k} }

func (t *topK) offer(d int, score float64) {
	if len(t.items) < t.k {
		t.items = append(t.items, scoredDoc{d, score})
		if len(t.items) == t.k {
			t.findMin()
		}
		return
	}
	if score <= t.items[t.min].score {
		return
	}
	t.items[t.min] = scoredDoc{d, score}
	t.findMin()
}

func (t *topK) findMin() {
	t.min = 0
	for i, it := range t.items {
		if it.score < t.items[t.min].score {
			t.min = i
		}
	}
}

// score combines the factors: evidence (term and phrase matches, boosted
// when they cover the record's headline) weighted by kind, recency and
// status.
func (sc *Scored) score() {
	sc.Evidence = (sc.Terms + sc.Phrases) * (1 + coverageBoost*sc.Coverage)
	sc.Relevance = sc.Evidence * sc.Share
	sc.Score = sc.Evidence * sc.Kind * sc.Recency * sc.Status
}

// gate marks the candidates worth injecting, best first: relevant enough
// (MinRelevance: about one specific word in the headline and another, in a
// prompt mostly about them) and scoring close enough to the best that it
// is not an also-ran.
func (ix *Index) gate(out []Scored) {
	minRel := ix.cfg.Inject.MinRelevance
	for i := range out {
		sc := &out[i]
		switch {
		case sc.Relevance < minRel:
			sc.Why = fmt.Sprintf("relevance %.2f is below %.2f: too few of the prompt's specific words match", sc.Relevance, minRel)
		case sc.Score < relativeCut*out[0].Score:
			sc.Why = fmt.Sprintf("score %.2f is under %.0f%% of the best (%.2f)", sc.Score, 100*relativeCut, out[0].Score)
		default:
			sc.Inject = true
			sc.Why = fmt.Sprintf("relevance %.2f ≥ %.2f and score within %.0f%% of the best", sc.Relevance, minRel, 100*relativeCut)
		}
	}
}

// Ranking constants, tuned on the dev half of the relevance evaluation
// (testdata/relevance); the test half is only run to report.
const (
	k1               = 1.2  // BM25 term saturation
	bTitle           = 0.3  // headline length normalisation
	bBody            = 0.5  // body length normalisation
	backgroundDocs   = 50   // IDF prior: a small store still has common words
	coverageBoost    = 0.5  // evidence × (1 + boost × headline coverage)
	phraseWeight     = 0.5  // per prompt bigram found together, × its words' specificity
	phraseCandidates = 50   // candidates decoded for phrase credit
	relativeCut      = 0.5  // inject only within this share of the best score
	recencyFloor     = 0.75 // an old record keeps this much of its weight
	unseenWeight     = 0.5  // specificity of a prompt word no record holds
	maxKeywords      = 64   // keywords of a prompt that count (one bit each)
)

// prepare tokenizes a prompt and weighs its words by how specific they are
// in this store: a word few records hold says more than one many hold.
func (ix *Index) prepare(text string) *query {
	toks := Tokens(text)
	if len(toks) == 0 || ix.snap.Count() == 0 {
		return nil
	}
	q := &query{}
	index := map[string]int{}
	for _, t := range toks {
		q.seq = append(q.seq, t.Stem)
		if _, ok := index[t.Stem]; ok || len(q.words) == maxKeywords {
			continue
		}
		index[t.Stem] = len(q.words)
		q.words = append(q.words, t.Stem)
		q.typed = append(q.typed, t.Word)
	}
	n := float64(ix.snap.Count()) + backgroundDocs
	idf := func(df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
	top := idf(1)
	for i, w := range q.words {
		ms := ix.expand(w, strings.ToLower(q.typed[i]))
		df := 0
		for j := range ms {
			ms[j].posts = ix.snap.Postings(ms[j].term)
			df += len(ms[j].posts)
		}
		q.expand = append(q.expand, ms)
		sp := max(idf(float64(df)), 0) / top
		if generic[w] {
			sp *= genericFactor
		}
		q.spec = append(q.spec, sp)
	}
	return q
}

// share is the part of the prompt's specificity that the words in mask
// match; a word the store has never seen counts fully, as the prompt is
// partly about something the store does not know.
func (q *query) share(mask uint64) float64 {
	var got, all float64
	for i, sp := range q.spec {
		if len(q.expand[i]) == 0 {
			sp = unseenWeight
		}
		all += sp
		if mask&(1<<i) != 0 {
			got += sp
		}
	}
	return got / all
}

// phrases credits pairs of consecutive prompt words found next to each
// other (or one word apart) in one field of r: a pasted error line or a
// name of several words says more than the same words scattered.
func (q *query) phrases(r *record.Record) float64 {
	pairs := map[[2]string]float64{}
	for _, f := range append([]string{r.Text}, bodyFields(r)...) {
		toks := Tokens(f)
		for i := range toks {
			for gap, credit := range []float64{1, 0.5} {
				if j := i + 1 + gap; j < len(toks) {
					k := [2]string{toks[i].Stem, toks[j].Stem}
					pairs[k] = max(pairs[k], credit)
				}
			}
		}
	}
	spec := map[string]float64{}
	for i, w := range q.words {
		spec[w] = q.spec[i]
	}
	var sum float64
	seen := map[[2]string]bool{}
	for i := 0; i+1 < len(q.seq); i++ {
		k := [2]string{q.seq[i], q.seq[i+1]}
		if k[0] == k[1] || seen[k] {
			continue
		}
		seen[k] = true
		if c := max(pairs[k], pairs[[2]string{k[1], k[0]}]/2); c > 0 {
			sum += phraseWeight * c * min(spec[k[0]], spec[k[1]])
		}
	}
	return sum
}

// explain says which word of the record each matched prompt word hit, and
// how, in the words as typed (not stems).
func (q *query) explain(r *record.Record, mask uint64) []string {
	typed := map[string]string{} // record stem → a word of the record
	for _, f := range append([]string{headline(r)}, bodyFields(r)...) {
		for _, t := range Tokens(f) {
			if _, ok := typed[t.Stem]; !ok {
				typed[t.Stem] = strings.ToLower(t.Word)
			}
		}
	}
	var out []string
	for qi := range q.words {
		if mask&(1<<qi) == 0 {
			continue
		}
		for _, m := range q.expand[qi] {
			if word, ok := typed[m.term]; ok {
				out = append(out, q.typed[qi]+"→"+word+" ("+m.how+")")
				break
			}
		}
	}
	return out
}

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

// expand finds the vocabulary terms a prompt keyword matches, and how well.
func (ix *Index) expand(q, raw string) []termMatch {
	found := map[string]termMatch{}
	add := func(t string, sim float64, how string) {
		if cur, ok := found[t]; !ok || sim > cur.sim {
			found[t] = termMatch{term: t, sim: sim, how: how}
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
	// Stems that part only at their last letters (store ~ storag, from
	// storage): the same word in another form the stemmer did not fold;
	// only for a word the store does not hold itself.
	if len(q) >= 5 && !ix.has(q) {
		stem := q[:len(q)-1]
		for i := sort.SearchStrings(vocab, stem); i < len(vocab) && strings.HasPrefix(vocab[i], stem); i++ {
			if t := vocab[i]; t != q && len(t) <= len(q)+2 && !strings.HasPrefix(t, q) {
				add(t, simStem, "word form")
			}
		}
	}
	// Typos, only for a word the store does not hold (one that it holds
	// is probably not a typo): one edit (two for long words), same first
	// letter; a word of four or five letters only by swapping two letters
	// (tets ~ test; taken is not token). The word as typed is tried too, as
	// a stem can hide a typo (tets → tet).
	for _, w := range slices.Compact([]string{q, raw}) {
		if len(w) < 4 || ix.has(q) {
			continue
		}
		lo := sort.SearchStrings(vocab, w[:1])
		for j := lo; j < len(vocab) && vocab[j][0] == w[0]; j++ {
			t := vocab[j]
			if abs(len(t)-len(w)) > 2 || len(w) <= 5 && !sameLetters(w, t) {
				continue
			}
			limit := 1
			if len(w) >= 8 {
				limit = 2
			}
			if damerau(w, t, limit) <= limit {
				add(t, simTypo, "typo")
			}
		}
	}
	// Abbreviations and partial identifiers: q as a subsequence of a short
	// field term, starting at the same letter (cfg ~ config).
	if len(q) >= 3 && len(found) == 0 && isAbbreviation(q) {
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

// sameLetters reports two words made of the same letters.
func sameLetters(a, b string) bool {
	x, y := []byte(a), []byte(b)
	slices.Sort(x)
	slices.Sort(y)
	return string(x) == string(y)
}

// isAbbreviation reports a word with no vowel after its first letter
// (cfg, pkg, msg, env): fuzzy matching is for those, not for real words
// (send is not second).
func isAbbreviation(w string) bool {
	return !strings.ContainsAny(w[1:], "aeiouy")
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
