package inject

import (
	"strings"

	"lore/record"
)

// phrases credits pairs of consecutive prompt words found next to each
// other (or one word apart) in one field of r: a pasted error line or a
// name of several words says more than the same words scattered.
func (q *query) phrases(r *record.Record) float64 {
	p := q.newPhrasing()
	for _, f := range append([]string{r.Text}, bodyFields(r)...) {
		// Tokenizing every field of the strongest candidates was most of
		// a small store's prompt; most fields hold one prompt word or none.
		if q.mayHoldPair(f) {
			p.add(Tokens(f))
		}
	}
	return p.credit()
}

// phrasing gathers, field by field, which of a record's stems stand next to
// each other.
type phrasing struct {
	q     *query
	pairs map[[2]string]float64 // two stems next to each other (1) or one word apart (0.5)
}

func (q *query) newPhrasing() *phrasing {
	return &phrasing{q: q, pairs: map[[2]string]float64{}}
}

// add takes in one field's tokens.
func (p *phrasing) add(toks []Token) {
	for i := range toks {
		for gap, credit := range []float64{1, 0.5} {
			if j := i + 1 + gap; j < len(toks) {
				k := [2]string{toks[i].Stem, toks[j].Stem}
				p.pairs[k] = max(p.pairs[k], credit)
			}
		}
	}
}

// credit is the phrase credit of the fields taken in: each pair of
// consecutive prompt words found together (half as much in the other
// order), weighted by the less specific word of the two.
func (p *phrasing) credit() float64 {
	q := p.q
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
		if c := max(p.pairs[k], p.pairs[[2]string{k[1], k[0]}]/2); c > 0 {
			sum += phraseWeight * c * min(spec[k[0]], spec[k[1]])
		}
	}
	return sum
}

// mayHoldPair reports whether text may hold two of the prompt's words,
// without tokenizing it: a word whose stem is s holds all of s but its last
// letter (see stemPart), lowercased, so a text that holds that part of
// fewer than two of the prompt's stems cannot hold a phrase.
func (q *query) mayHoldPair(text string) bool {
	lower := strings.ToLower(text)
	found := 0
	for _, w := range q.words {
		if strings.Contains(lower, stemPart(w)) {
			if found++; found == 2 {
				return true
			}
		}
	}
	return false
}

// stemPart is the part of stem s that every word stemmed to s holds:
// Porter2 keeps a word's letters but for the last letter of its stem
// (deploying: deploi; hoping: hope; skies: sky), except for the three words
// it rewrites whole. FuzzMayHoldPair and TestMayHoldPair hold it to that.
func stemPart(s string) string {
	switch {
	case s == "die" || s == "lie" || s == "tie": // dying, lying, tying
		return s[:1]
	case len(s) < 2:
		return s
	}
	return s[:len(s)-1]
}
