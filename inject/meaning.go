package inject

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"lore/record"
	"lore/wordvec"
)

// The meaning share: how much of a prompt a candidate says, in the
// prompt's words or in others of like meaning (wordvec), which weighs the
// gate's relevance.

// weighMeaning works out the meaning share (Scored.Meaning) of the
// strongest of out that the gate could let through (open), and their
// relevance with it. The others' does not change what the gate says of
// them, and it costs a look-up of each of their words.
func (ix *Index) weighMeaning(out []Scored, q *query, open func(*Scored) bool) {
	for _, w := range q.typed {
		if !isASCII(w) {
			return // the table knows English written in ASCII: a prompt in other scripts keeps the words' relevance
		}
	}
	var meaning *wordvec.Query
	for i := range out[:min(len(out), phraseCandidates)] {
		sc := &out[i]
		if !open(sc) {
			continue
		}
		if meaning == nil {
			meaning = wordvec.Default().Query(meaningWords(withoutPaths(q.text)))
		}
		sc.Meaning = meaning.Share(meaningWords(recordText(sc.Rec)), meaningFloor)
		sc.score()
	}
}

// The meaning factor's constants (meaningFactor), chosen on the dev half
// like the rest (dec-yhw833fj in lore's memory: the grid and the rule).
const (
	meaningFloor  = 0.3  // a word's nearest word in the record counts above this cosine
	meaningWeight = 8.0  // relevance × e^(weight × (meaning − pivot)), at most meaningCap
	meaningPivot  = 0.52 // the meaning share at which the factor is 1
	// meaningCap bounds how much a paraphrase raises relevance: the
	// meaning confirms the words' evidence, it does not replace it.
	meaningCap = 2.0
)

// meaningFactor weighs relevance by the share of the prompt a record says
// in any words (Scored.Meaning): above meaningPivot it raises the
// relevance, below it lowers it; unknown (-1), it is 1.
func meaningFactor(m float64) float64 {
	if m < 0 {
		return 1
	}
	return min(meaningCap, math.Exp(meaningWeight*(m-meaningPivot)))
}

// meaningFactor is sc's: a record raises its relevance only by what it
// says of the prompt beyond the words it shares with it (its meaning share
// above its share), so a record holding every word of the prompt gains
// nothing the words did not already give it.
func (sc *Scored) meaningFactor() float64 {
	f := meaningFactor(sc.Meaning)
	if f > 1 && sc.Meaning <= sc.Share {
		return 1
	}
	return f
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// MeaningText shows sc's meaning share and its factor, for explanations:
// "0.62 (× 1.93)", or "not worked out" for a candidate the gate holds
// back whatever its meaning.
func (sc *Scored) MeaningText() string {
	if sc.Meaning < 0 {
		return "not worked out"
	}
	return fmt.Sprintf("%.2f (× %.2f)", sc.Meaning, sc.meaningFactor())
}

// meaningWords are text's words for the meaning share: as the table's
// text was split (wordvec.Tokens), less the stopwords the keywords leave
// out too.
func meaningWords(text string) []string {
	ws := wordvec.Tokens(text)
	out := ws[:0]
	for _, w := range ws {
		if !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

// withoutPaths is a prompt less its paths and addresses (a field with two
// slashes or more, or a backslash): they say where, not what about, and a
// pasted stack trace is mostly paths.
func withoutPaths(prompt string) string {
	var kept []string
	for _, f := range strings.Fields(prompt) {
		if strings.Count(f, "/") < 2 && !strings.Contains(f, "\\") {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

// recordText is a record's words for the meaning share: the headline and
// the body.
func recordText(r *record.Record) string {
	return headline(r) + " " + strings.Join(bodyFields(r), " ")
}
