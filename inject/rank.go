package inject

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"lore/anchor"
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

// statusFactor keeps abandoned and deprecated records below what replaced
// them; dismissed and promoted observations are not candidates at all.
var statusFactor = map[string]float64{
	record.StatusActive: 1, record.StatusAbandoned: 0.4, record.StatusDeprecated: 0.4,
}

// Index ranks a snapshot's records against prompts.
type Index struct {
	snap     *index.Snapshot
	synonyms *synonymGroups
	cfg      *config.Config
	code     *anchor.Checker // nil: anchored code is not checked
}

// CheckAnchors has ranking check the code records are anchored to with k
// (a record whose code is gone ranks lower, and says so); nil does not.
func (ix *Index) CheckAnchors(k *anchor.Checker) *Index {
	ix.code = k
	return ix
}

// TokenizerVersion names how Terms splits records; change it whenever
// Terms or Keywords change, so indexed terms are rebuilt.
const TokenizerVersion = "kw10"

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

// bodyFields are the texts of the body, with the paths of the files the
// record is anchored to: a prompt that names one finds it.
func bodyFields(r *record.Record) []string {
	out := append([]string{r.Rationale, r.Alternatives, r.Context, r.Solution, r.Tool}, append(r.Next, r.Blocked...)...)
	for _, a := range r.Anchors {
		out = append(out, a.Path)
	}
	return out
}

// NewIndex ranks over snap's records; dismissed and promoted observations
// are never candidates.
func NewIndex(snap *index.Snapshot, cfg *config.Config) *Index {
	return &Index{snap: snap, cfg: cfg, synonyms: newSynonymGroups(cfg.Synonyms)}
}

func (ix *Index) has(term string) bool { return ix.snap.HasTerm(term) }

// Scored is a record with its score and the factors behind it.
type Scored struct {
	Rec      *record.Record `json:"-"`
	Score    float64        `json:"score"`    // evidence × kind × recency × status
	Evidence float64        `json:"evidence"` // terms + phrases + near, boosted by coverage
	Terms    float64        `json:"terms"`    // saturating, specificity-weighted term matches
	Phrases  float64        `json:"phrases"`  // consecutive prompt words found together in the record
	Near     float64        `json:"near"`     // other prompt words found near each other in the record
	Coverage float64        `json:"coverage"` // share of the record's headline terms matched
	Share    float64        `json:"share"`    // share of the prompt's specificity matched
	// Meaning is the share of the prompt's words the record says, in
	// these words or in others of like meaning (wordvec): a paraphrase
	// of the record says much of the prompt, a prompt that shares a word
	// or two with it little. -1: not worked out (only the strongest
	// candidates are).
	Meaning float64 `json:"meaning"`
	// Relevance is what the gate weighs: evidence × share × the meaning
	// factor (× the resume boost). Evidence alone rises with every word matched; the share
	// tells a record that matches what the prompt is about from one that
	// shares a word or two of it.
	Relevance float64 `json:"relevance"`
	Resume    float64 `json:"resume_boost"` // the prompt picks up earlier work and this is a handoff
	Kind      float64 `json:"kind_weight"`
	Recency   float64 `json:"recency"`
	Status    float64 `json:"status_factor"`
	Named     float64 `json:"named_boost"`     // the prompt names a file the record is anchored to
	Code      float64 `json:"code_factor"`     // the anchored code is all gone
	Stale     string  `json:"stale,omitempty"` // how the anchored code has changed since
	// Superseded names the newer handoff on this handoff's branch that
	// followed it (weighHandoffs).
	Superseded string   `json:"superseded_by,omitempty"`
	Matched    []string `json:"matched"` // "prompt word → record word (how)"
	Inject     bool     `json:"inject"`  // the relevance gate let it through
	Why        string   `json:"why"`     // the gate's reason, in words
}

// Options tune one ranking.
type Options struct {
	Now   time.Time
	Kinds []record.Kind // only these kinds, if any
	// MinEvidence drops candidates with less evidence from the result,
	// unless they match every keyword (a word common in the store has
	// little evidence, but a record holding each word asked for is a
	// result); zero keeps every record that matched a keyword.
	MinEvidence float64
	Limit       int // at most this many results; zero: all
	// NoMatched leaves Scored.Matched empty: the hook shows no
	// explanation, and working one out tokenizes every result again.
	NoMatched bool
	// Context bounds the check of the candidates' anchored code (the git
	// runs of CheckAnchors): the prompt hook's deadline. nil: none.
	Context context.Context
}

// Rank scores the records that match any of the query's keywords, best
// first, and marks those the relevance gate lets through (see gate). A
// prompt that only asks to pick up earlier work ("where did we leave
// off?") names nothing to match: it gets the latest handoff.
func (ix *Index) Rank(text string, o Options) []Scored {
	text = capPrompt(text)
	q := ix.prepare(StripInjected(text))
	if q == nil {
		return ix.latestHandoff(text, o)
	}
	size := ix.snap.Len()
	avgTitle, avgBody := ix.snap.AvgTerms()
	// Field lengths normalise a match's weight (BM25F), so a long record
	// does not win by mentioning everything.
	norm := func(d int, title bool) float64 {
		nt, nb := ix.snap.Lengths(d)
		if title {
			return 1 - bTitle + bTitle*float64(nt)/avgTitle
		}
		return 1 - bBody + bBody*float64(nb)/avgBody
	}
	// Accumulators per candidate, found through a slot per record: a
	// common term touches thousands of records in a large store, and a
	// fresh process pays a page fault for each page of memory it touches,
	// so what every record needs is kept to 4 bytes (27 in per-record
	// accumulators: 730 pages at 100k records).
	slot := make([]int32, size) // candidate index + 1; 0: not yet a candidate
	// Sized for every posting at once: appending would copy the slice at
	// each growth, touching several times its final size.
	posts := 0
	for _, ms := range q.expand {
		for _, m := range ms {
			posts += len(m.posts)
		}
	}
	cands := make([]candidate, 0, min(size, posts))
	var touched []int32 // the candidates the current word matched
	// The words past the 64th each candidate matched (a prompt has so
	// many only in pairs of characters: see distinct) are kept beside the
	// candidates, not in them, which would grow every candidate of every
	// prompt for them.
	var more []uint64
	for qi := range q.words {
		touched = touched[:0]
		for _, m := range q.expand[qi] {
			for _, p := range m.posts {
				ci := slot[p.Doc] - 1
				if ci < 0 {
					cands = append(cands, candidate{d: p.Doc})
					if len(q.words) > 64 {
						more = append(more, 0)
					}
					ci = int32(len(cands) - 1)
					slot[p.Doc] = ci + 1
				}
				c := &cands[ci]
				if c.best == 0 {
					touched = append(touched, ci)
				}
				var tf float64
				if p.Title {
					tf = m.sim * titleWeight / norm(int(p.Doc), true)
					c.inTitle = true
				} else {
					tf = m.sim * bodyWeight / norm(int(p.Doc), false)
				}
				c.best = max(c.best, tf)
			}
		}
		for _, ci := range touched {
			c := &cands[ci]
			// Saturating: a word's evidence is at most its specificity,
			// however the record repeats it; and the sum does not shrink
			// when the prompt has more words.
			c.terms += q.spec[qi] * c.best * (k1 + 1) / (c.best + k1)
			if qi < 64 {
				c.matched |= 1 << qi
			} else {
				more[ci] |= 1 << (qi - 64)
			}
			if c.inTitle {
				c.titleHits++
			}
			c.best, c.inTitle = 0, false
		}
	}
	// Every candidate gets a first score without recency and phrases; only
	// the strongest are scored in full (a common word can make thousands
	// of candidates in a large store).
	keep := phraseCandidates
	if o.Limit == 0 {
		keep = len(cands)
	} else {
		keep = max(keep, o.Limit)
	}
	// Ties go by record ID, not by where a record sits in the index's
	// files: the same store indexed in one file or in several ranked
	// equal scores otherwise, and search -n showed other records.
	idOf := func(ci int) string { return ix.snap.ID(int(cands[ci].d)) }
	top := newTopK(keep, func(a, b int) int { return strings.Compare(idOf(a), idOf(b)) })
	for ci, c := range cands {
		kind, st := ix.snap.KindStatus(int(c.d))
		status, ok := statusFactor[st]
		if !ok || len(o.Kinds) > 0 && !slices.Contains(o.Kinds, kind) {
			continue
		}
		cov := 0.0
		if nt, _ := ix.snap.Lengths(int(c.d)); nt > 0 {
			cov = min(1, float64(c.titleHits)/float64(nt))
		}
		top.offer(ci, c.terms*(1+coverageBoost*cov)*ix.cfg.Weight(kind)*status)
	}
	type cand struct {
		d       int
		matched wordSet
		sc      Scored
	}
	cs := make([]cand, 0, len(top.items))
	for _, it := range top.items {
		c := &cands[it.d]
		matched := wordSet{c.matched}
		if more != nil {
			matched[1] = more[it.d]
		}
		d := int(c.d)
		doc := ix.snap.Doc(d)
		sc := Scored{Terms: c.terms, Status: statusFactor[doc.Status], Kind: ix.cfg.Weight(doc.Kind),
			Recency: recency(doc.Created, o.Now, ix.cfg.Inject.HalfLifeDays), Named: 1, Code: 1, Resume: 1, Meaning: -1}
		if q.resumes && doc.Kind == record.Handoff {
			sc.Resume = resumeBoost
		}
		if doc.NTitle > 0 {
			sc.Coverage = min(1, float64(c.titleHits)/float64(doc.NTitle))
		}
		sc.Share = q.share(matched)
		sc.score()
		cs = append(cs, cand{d, matched, sc})
	}
	byScore := func(a, b cand) int {
		if c := cmp.Compare(b.sc.Score, a.sc.Score); c != 0 {
			return c
		}
		return strings.Compare(ix.snap.ID(a.d), ix.snap.ID(b.d))
	}
	slices.SortFunc(cs, byScore)
	// Phrases need the records' words in order, and anchors their code
	// checked: only the strongest candidates are decoded for them.
	strong := cs[:min(len(cs), phraseCandidates)]
	recs := make([]*record.Record, len(strong))
	scs := make([]*Scored, len(strong))
	for i := range strong {
		recs[i], scs[i] = ix.snap.Record(strong[i].d), &strong[i].sc
		scs[i].Phrases, scs[i].Near = q.phrases(recs[i])
	}
	ix.weighCode(o.Context, scs, recs, anchor.PathWords(text))
	for _, sc := range scs {
		sc.score()
	}
	weighHandoffs(scs, recs)
	slices.SortFunc(cs, byScore)
	var out []Scored
	var masks []wordSet // the prompt words each of out matched
	for _, c := range cs {
		if c.sc.Evidence < o.MinEvidence && c.matched.size() != len(q.words) {
			continue
		}
		if o.Limit > 0 && len(out) == o.Limit {
			break
		}
		c.sc.Rec = ix.snap.Record(c.d)
		if !o.NoMatched {
			c.sc.Matched = q.explain(c.sc.Rec, c.matched)
		}
		out = append(out, c.sc)
		masks = append(masks, c.matched)
	}
	ix.gate(out, q, masks)
	return out
}

// maxPromptBytes bounds the part of a prompt that is ranked: only its
// first maxKeywords distinct words count, which a prompt of natural text
// has said long before, while tokenizing a pasted 5 MB log took the hook
// 0.7 s.
const maxPromptBytes = 64 << 10

// capPrompt is text's first maxPromptBytes, cut at a space when it is
// longer.
func capPrompt(text string) string {
	if len(text) <= maxPromptBytes {
		return text
	}
	text = text[:maxPromptBytes]
	if i := strings.LastIndexAny(text, " \t\n"); i > 0 {
		return text[:i]
	}
	return strings.ToValidUTF8(text, "")
}

// latestHandoff answers a prompt with no keywords: the newest active
// handoff, if the prompt picks up earlier work.
func (ix *Index) latestHandoff(text string, o Options) []Scored {
	if resumes, _ := resumesWork(StripInjected(text)); !resumes || len(o.Kinds) > 0 && !slices.Contains(o.Kinds, record.Handoff) {
		return nil
	}
	hs := ix.snap.Newest(1, []record.Kind{record.Handoff}, func(_ record.Kind, status string) bool { return status == record.StatusActive })
	if len(hs) == 0 {
		return nil
	}
	return []Scored{{Rec: hs[0], Inject: true, Kind: ix.cfg.Weight(record.Handoff), Recency: 1, Status: 1, Named: 1, Code: 1, Resume: resumeBoost,
		Why: "the prompt only asks to pick up earlier work: the latest handoff"}}
}

// candidate accumulates the evidence for record d over the prompt's words.
type candidate struct {
	terms     float64 // saturating, specificity-weighted term matches
	best      float64 // the current word's strongest match in the record
	matched   uint64  // bit i: word i matched the record (words past 64: Rank's more)
	d         int32
	titleHits uint16
	inTitle   bool // the current word matched the headline
}

// topK keeps the k best-scoring items offered, in no order.
type topK struct {
	k     int
	items []scoredDoc
	min   int                // index of the worst kept item, once full
	tie   func(a, b int) int // orders two items of one score: the lower is kept
}

type scoredDoc struct {
	d     int // what is scored: in Rank, a candidate's index
	score float64
}

func newTopK(k int, tie func(a, b int) int) *topK { return &topK{k: k, tie: tie} }

func (t *topK) offer(d int, score float64) {
	if len(t.items) < t.k {
		t.items = append(t.items, scoredDoc{d, score})
		if len(t.items) == t.k {
			t.findMin()
		}
		return
	}
	if !t.worse(t.items[t.min], scoredDoc{d, score}) {
		return
	}
	t.items[t.min] = scoredDoc{d, score}
	t.findMin()
}

// worse reports whether a ranks after b.
func (t *topK) worse(a, b scoredDoc) bool {
	return a.score < b.score || a.score == b.score && t.tie(a.d, b.d) > 0
}

func (t *topK) findMin() {
	t.min = 0
	for i, it := range t.items {
		if t.worse(it, t.items[t.min]) {
			t.min = i
		}
	}
}

// score combines the factors: evidence (term matches, phrases and
// nearness, boosted when they cover the record's headline or the prompt
// names a file the record is anchored to) weighted by kind, recency, status
// and whether its code is still there.
func (sc *Scored) score() {
	sc.Evidence = (sc.Terms + sc.Phrases + sc.Near) * (1 + coverageBoost*sc.Coverage) * sc.Named
	sc.Relevance = sc.Evidence * sc.Share * sc.Resume * sc.meaningFactor()
	sc.Score = sc.Evidence * sc.Kind * sc.Recency * sc.Status * sc.Code
}

// weighCode sets the code factors of the records scs score: the boost
// when the prompt names one of a record's files, and, when code is
// checked (all records in one check, so a cold cache costs one git), the
// clause that says how its code changed and the weight of a record whose
// code is all gone. ctx (nil: none) bounds the check.
func (ix *Index) weighCode(ctx context.Context, scs []*Scored, recs []*record.Record, files []string) {
	var states map[string][]anchor.State
	if ix.code != nil {
		if ctx == nil {
			ctx = context.Background()
		}
		states = ix.code.Records(ctx, recs)
		_ = ix.code.Save() // a cache that could not be written costs the next check only
	}
	for i, r := range recs {
		if len(r.Anchors) == 0 {
			continue
		}
		if anchor.Mentioned(r.Anchors, files) {
			scs[i].Named = ix.cfg.Anchors.NamedBoost
		}
		scs[i].Stale = anchor.Clause(states[r.ID])
		if anchor.AllGone(states[r.ID]) {
			scs[i].Code = ix.cfg.Anchors.GoneWeight
		}
	}
}

// gate marks the candidates worth injecting, best first: relevant enough
// (MinRelevance: about one specific word in the headline and another, in a
// prompt mostly about them) and scoring close enough to the best of its
// answer (a failure; a decision or pattern; any record) that it is not an
// also-ran: a failure that echoes a pasted error scores high, and must not
// push out the decision that holds the fix (run 23), while a note on the
// way must not ride along (run 25). A score of 0 is never injected, however the rest
// compare: a kind weighted 0 in config.toml is one the user never wants
// (and 0 is within any share of a best that is 0 too). masks[i] holds the
// prompt words out[i] matched, for the reason it gives.
func (ix *Index) gate(out []Scored, q *query, masks []wordSet) {
	minRel := ix.cfg.Inject.MinRelevance
	best := map[record.Kind]float64{} // each answer's best score: out is best first
	for _, sc := range out {
		if _, ok := best[answer(sc.Rec.Kind)]; !ok {
			best[answer(sc.Rec.Kind)] = sc.Score
		}
	}
	if len(out) > 0 {
		best[""] = out[0].Score // notes are measured against the best of all
	}
	ix.weighMeaning(out, q, func(sc *Scored) bool {
		return sc.Score > 0 && sc.Score >= relativeCut*best[answer(sc.Rec.Kind)] && sc.Relevance*meaningCap >= minRel
	})
	for i := range out {
		sc := &out[i]
		switch {
		case sc.Score <= 0:
			sc.Why = "score is 0: " + zeroFactor(sc)
		case sc.Relevance < minRel:
			sc.Why = fmt.Sprintf("relevance %.2f is below %.2f: %s", sc.Relevance, minRel, q.shortfall(sc, masks[i], minRel))
		case sc.Score < relativeCut*best[answer(sc.Rec.Kind)]:
			sc.Why = fmt.Sprintf("score %.2f is under %.0f%% of the best %s (%.2f)", sc.Score, 100*relativeCut, answerName(sc.Rec.Kind), best[answer(sc.Rec.Kind)])
		default:
			sc.Inject = true
			sc.Why = fmt.Sprintf("relevance %.2f ≥ %.2f and score within %.0f%% of the best %s", sc.Relevance, minRel, 100*relativeCut, answerName(sc.Rec.Kind))
		}
	}
}

// answer groups the kinds for the gate's relative cut: what went wrong (a
// failure) and what to do about it (a decision or a pattern) answer a
// prompt apart, so a failure echoing a pasted error does not push out the
// fix, nor the fix the failure. Handoffs and observations are notes on
// the way, measured against the best of all.
func answer(k record.Kind) record.Kind {
	switch k {
	case record.Decision, record.Pattern:
		return record.Decision
	case record.Failure:
		return record.Failure
	}
	return ""
}

// answerName names the group answer puts k in, for the gate's reasons.
func answerName(k record.Kind) string {
	switch answer(k) {
	case record.Decision:
		return "decision or pattern"
	case record.Failure:
		return "failure"
	}
	return "record"
}

// zeroFactor says which factor makes sc's score 0: the others (status,
// recency, evidence of a candidate) never are.
func zeroFactor(sc *Scored) string {
	if sc.Code <= 0 {
		return "its anchored code is all gone, and gone_weight is 0 ([anchors] in config.toml)"
	}
	return fmt.Sprintf("the weight of %s is 0 ([weights] in config.toml)", sc.Rec.Kind)
}

// ScoreRule says in one line how Scored's factors make its score, for
// explanations.
func ScoreRule() string {
	return fmt.Sprintf("evidence = (terms + phrases + near) × (1 + %g × headline coverage) × named file; score = evidence × kind × recency × status × code", coverageBoost)
}

// GateRule says in one line what the gate asks of a candidate, for
// explanations.
func GateRule(minRel float64) string {
	return fmt.Sprintf("relevance = evidence × share × meaning factor (e^(%g × (meaning − %g)), at most %g, and at most 1 unless the meaning exceeds the share) (× %g for a handoff when the prompt picks up earlier work) ≥ %.2f (min_relevance), and score above 0 and ≥ %.0f%% of the best (of failures, or of decisions and patterns, for those)",
		meaningWeight, meaningPivot, meaningCap, resumeBoost, minRel, 100*relativeCut)
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
	proximityWeight  = 0.3  // per other pair of prompt words near each other, × closeness × specificity
	proximityWindow  = 8    // tokens apart, at most, for proximity credit
	phraseCandidates = 50   // candidates decoded for phrase credit
	relativeCut      = 0.5  // inject only within this share of the best score of the record's answer
	recencyFloor     = 0.75 // an old record keeps this much of its weight
	unseenWeight     = 1.0  // specificity of a prompt word no record holds: as one record's word
	resumeBoost      = 3.0  // a handoff's relevance when the prompt picks up earlier work (resumes.go)
	maxKeywords      = 64   // keywords of a prompt that count, in words' worth (see distinct)
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
