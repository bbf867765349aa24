package inject

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"lore/record"
)

// query is a prompt prepared for ranking.
type query struct {
	resumes bool   // the prompt picks up earlier work (resumes.go)
	text    string // the prompt less what asks to pick up earlier work

	words  []string      // distinct stems, in order of first appearance
	typed  []string      // the word first typed for each stem, lowercased
	spec   []float64     // specificity of each word in this store, 0..1
	expand [][]termMatch // the record terms each word matches

	// For phrase credit (phrases.go): each pair of words typed one after
	// the other (indexes into words, once each), the prompt words each
	// record term matches, and the parts of its stem and terms a text
	// holding a word must hold (stemPart).
	bigrams   [][2]int
	matchedBy map[string][]occurrence
	parts     [][]string
}

// prepare tokenizes a prompt and weighs its words by how specific they are
// in this store: a word few records hold says more than one many hold.
func (ix *Index) prepare(text string) *query {
	resumes, text := resumesWork(text)
	toks := Tokens(text)
	if len(toks) == 0 || ix.snap.Count() == 0 {
		return nil
	}
	q := &query{resumes: resumes, text: text}
	q.words, q.typed = distinct(toks)
	n := float64(ix.snap.Count()) + backgroundDocs
	idf := func(df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
	top := idf(1)
	for i, w := range q.words {
		ms := ix.expand(w, q.typed[i])
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
	index := map[string]int{}
	q.matchedBy = map[string][]occurrence{}
	for i, w := range q.words {
		index[w] = i
		parts := []string{stemPart(w)}
		for _, m := range q.expand[i] {
			q.matchedBy[m.term] = append(q.matchedBy[m.term], occurrence{word: i, sim: m.sim})
			if part := stemPart(m.term); !slices.Contains(parts, part) {
				parts = append(parts, part)
			}
		}
		q.parts = append(q.parts, parts)
	}
	// Words past the maxKeywords that count are in no bigram either.
	for i := 0; i+1 < len(toks); i++ {
		a, okA := index[toks[i].Stem]
		b, okB := index[toks[i+1].Stem]
		if okA && okB && a != b && !slices.Contains(q.bigrams, [2]int{a, b}) {
			q.bigrams = append(q.bigrams, [2]int{a, b})
		}
	}
	return q
}

// distinct returns the distinct stems of toks, in order of first
// appearance, up to maxKeywords words' worth, and the word first typed for
// each, lowercased. A pair of characters of a script written without
// spaces (see eachSpaceless) is worth half a word: each pair adds one
// character to the text, and a word of those scripts has about two, so a
// Chinese prompt counts as much text as an English one, not a third of
// it. The bound is on the hook's work, which a pair adds less to than a
// word does: it matches exactly, without the vocabulary scans of expand.
func distinct(toks []Token) (stems, typed []string) {
	seen := map[string]bool{}
	left := 2 * maxKeywords // in half words
	for _, t := range toks {
		if seen[t.Stem] {
			continue
		}
		cost := 2
		if isSpaceless(firstRune(t.Stem)) {
			cost = 1
		}
		if cost > left {
			break
		}
		left -= cost
		seen[t.Stem] = true
		stems = append(stems, t.Stem)
		typed = append(typed, strings.ToLower(t.Word))
	}
	return stems, typed
}

// maxWords is the most distinct words a prompt counts: maxKeywords pairs'
// worth (see distinct).
const maxWords = 2 * maxKeywords

// A wordSet holds prompt words by their index in query.words, one bit
// each: the words a candidate matched. (Rank keeps the first 64 in the
// candidate, the rest beside it.)
type wordSet [2]uint64

// A prompt's words fit in a wordSet.
const _ uint = 2*64 - maxWords

func (s wordSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// size is how many words s holds.
func (s wordSet) size() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// Words are the keywords Rank weighs in a prompt, as the user typed them
// (lowercased, one for each stem): what an explanation shows, deploying
// rather than its stem deploi.
func Words(prompt string) []string {
	_, text := resumesWork(StripInjected(prompt))
	_, typed := distinct(Tokens(text))
	return typed
}

// share is the part of the prompt's specificity that the words in mask
// match; a word the store has never seen counts fully, as the prompt is
// partly about something the store does not know.
func (q *query) share(mask wordSet) float64 {
	var got, all float64
	for i, sp := range q.spec {
		if len(q.expand[i]) == 0 {
			sp = unseenWeight
		}
		all += sp
		if mask.has(i) {
			got += sp
		}
	}
	return got / all
}

// explain says which word of the record each matched prompt word hit, and
// how, in the words as typed (not stems).
func (q *query) explain(r *record.Record, mask wordSet) []string {
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
		if !mask.has(qi) {
			continue
		}
		for _, m := range q.expand[qi] {
			if word, ok := typed[m.term]; ok {
				how := m.how
				if how == "exact" && !strings.EqualFold(q.typed[qi], word) {
					// One stem, two words: "logged" is not "logging",
					// and a user weighing the match should see it.
					how = "same stem"
				}
				out = append(out, q.typed[qi]+"→"+word+" ("+how+")")
				break
			}
		}
	}
	return out
}
