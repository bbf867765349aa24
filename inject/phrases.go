package inject

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"lore/record"
)

// phrases credits the prompt's words said together in one field of r:
//   - consecutive prompt words found next to each other (or one word
//     apart): a pasted error line or a name of several words says more
//     than the same words scattered;
//   - any other two prompt words found within proximityWindow words of
//     each other, less the farther apart: a prompt that says the record's
//     thing in its own order, with other words between, still finds it said
//     in one place rather than strewn over the record.
func (q *query) phrases(r *record.Record) (phrases, near float64) {
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

// occurrence is a prompt word found in a record's field.
type occurrence struct {
	pos  int     // where in the field, in tokens
	word int     // which prompt word: an index into query.words
	sim  float64 // how well the prompt word matches the record's term there
}

// phrasing gathers, field by field, which of a record's stems stand next to
// each other and which prompt words stand near each other.
type phrasing struct {
	q     *query
	pairs map[[2]string]float64 // two record stems next to each other (1) or one word apart (0.5)
	near  map[[2]int]float64    // two prompt words → their best closeness, 0..1
	occs  []occurrence          // the prompt words in the current field, in order
}

func (q *query) newPhrasing() *phrasing {
	return &phrasing{q: q, pairs: map[[2]string]float64{}, near: map[[2]int]float64{}}
}

// add takes in one field's tokens.
func (p *phrasing) add(toks []Token) {
	p.occs = p.occs[:0]
	for i := range toks {
		for gap, credit := range []float64{1, 0.5} {
			if j := i + 1 + gap; j < len(toks) {
				k := [2]string{toks[i].Stem, toks[j].Stem}
				p.pairs[k] = max(p.pairs[k], credit)
			}
		}
		for _, o := range p.q.matchedBy[toks[i].Stem] {
			o.pos = i
			p.occs = append(p.occs, o)
		}
	}
	for i, a := range p.occs {
		for _, b := range p.occs[i+1:] {
			d := b.pos - a.pos
			if d > proximityWindow {
				break
			}
			if a.word == b.word || d == 0 {
				continue // one word again, or two prompt words matching one token
			}
			k := [2]int{min(a.word, b.word), max(a.word, b.word)}
			p.near[k] = max(p.near[k], float64(proximityWindow+1-d)/proximityWindow*min(a.sim, b.sim))
		}
	}
}

// credit is the phrase credit of the fields taken in: each consecutive pair
// of prompt words found together, then each other pair found near each
// other, weighted by the less specific word of the pair.
func (p *phrasing) credit() (phrases, near float64) {
	q := p.q
	for _, ab := range q.bigrams {
		a, b := ab[0], ab[1]
		k := [2]string{q.words[a], q.words[b]}
		if c := max(p.pairs[k], p.pairs[[2]string{k[1], k[0]}]/2); c > 0 {
			phrases += phraseWeight * c * min(q.spec[a], q.spec[b])
			delete(p.near, [2]int{min(a, b), max(a, b)}) // credited as a phrase
		}
	}
	// In order, so that the sum is the same from run to run.
	for _, k := range slices.SortedFunc(maps.Keys(p.near), func(a, b [2]int) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	}) {
		near += proximityWeight * p.near[k] * min(q.spec[k[0]], q.spec[k[1]])
	}
	return phrases, near
}

// mayHoldPair reports whether text may hold two of the prompt's words,
// without tokenizing it: a word whose stem is s holds all of s but its last
// letter (see stemPart), lowercased and normalised, so a text that holds that part of
// neither the stem nor any record term of fewer than two prompt words holds
// no phrase and no pair near each other.
func (q *query) mayHoldPair(text string) bool {
	lower := foldText(text)
	found := 0
	for _, parts := range q.parts {
		for _, part := range parts {
			if strings.Contains(lower, part) {
				if found++; found == 2 {
					return true
				}
				break
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
