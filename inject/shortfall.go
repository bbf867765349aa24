package inject

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Why a candidate stayed under the relevance gate, for lore inject
// --explain: in the prompt's words as typed, so a user can act on it.

const (
	// For explanations only, never for ranking: a prompt word less
	// specific than commonSpec is called common in the store (in about a
	// tenth of a small store's records, or a generic word), a share under
	// lowShare is called low beside low evidence, and a reason names at
	// most maxNamed words of each sort.
	commonSpec = 0.5
	lowShare   = 0.75
	maxNamed   = 4
)

// shortfall names the factor of sc's relevance (evidence × share × meaning) that
// kept it under minRel, in the prompt's words as typed (mask: the words sc
// matched). Evidence is short when even a record matching every word of
// the prompt as well would be under it: the words it matches are common
// in this store, or too few of them match. Share is short when the record
// lacks words the prompt is about: it is named alone when evidence would
// pass with every word matched, and besides evidence when it is low or
// falls further short than evidence does.
func (q *query) shortfall(sc *Scored, mask wordSet, minRel float64) string {
	var common, specific, missing []int
	for i := range q.words {
		switch {
		case mask.has(i) && q.spec[i] < commonSpec:
			common = append(common, i)
		case mask.has(i):
			specific = append(specific, i)
		case len(q.expand[i]) == 0 || q.spec[i] > 0: // a word no record holds counts fully in the share
			missing = append(missing, i)
		}
	}
	var why []string
	full := sc.Evidence * sc.Resume // the relevance had it matched every word (which the meaning does not raise)
	if full < minRel {
		matches := "it matches"
		if sc.Coverage == 0 {
			matches = "its body matches" // nothing in the headline, which weighs double
		}
		var s string
		switch {
		case len(specific) == 0 && len(common) == 1:
			s = fmt.Sprintf("low evidence: the one word %s, %s, is common in this store, so it tells records little apart", matches, q.list(common, maxNamed))
		case len(specific) == 0:
			s = fmt.Sprintf("low evidence: the words %s (%s) are common in this store, so they tell records little apart", matches, q.list(common, maxNamed))
		case len(common) == 0:
			s = fmt.Sprintf("low evidence: %s only %s", matches, q.list(specific, maxNamed))
		case len(common) == 1:
			s = fmt.Sprintf("low evidence: %s only %s, plus %s, which is common in this store", matches, q.list(specific, maxNamed), q.list(common, maxNamed))
		default:
			s = fmt.Sprintf("low evidence: %s only %s, plus %s, which are common in this store", matches, q.list(specific, maxNamed), q.list(common, maxNamed))
		}
		why = append(why, s)
	}
	if len(missing) > 0 && (full >= minRel || sc.Share < lowShare || 1/sc.Share >= minRel/full) {
		// The words that weigh most in the share first.
		weight := func(i int) float64 {
			if len(q.expand[i]) == 0 {
				return unseenWeight
			}
			return q.spec[i]
		}
		slices.SortStableFunc(missing, func(a, b int) int { return cmp.Compare(weight(b), weight(a)) })
		why = append(why, "low share: nothing in it matches "+q.list(missing, maxNamed))
	}
	if len(why) == 0 { // not reached: relevance under minRel has one of them short
		why = append(why, "too few of the prompt's specific words match")
	}
	if f := sc.meaningFactor(); f < 1 {
		why = append(why, fmt.Sprintf("it says %.0f%% of the prompt, in these words or others like them (meaning × %.2f)", 100*sc.Meaning, f))
	}
	return strings.Join(why, "; ")
}

// list is the prompt's words ws as typed, comma-separated: at most most
// of them, and how many more.
func (q *query) list(ws []int, most int) string {
	var names []string
	for _, i := range ws {
		if len(names) == most {
			return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(ws)-most)
		}
		names = append(names, q.typed[i])
	}
	return strings.Join(names, ", ")
}
