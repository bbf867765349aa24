package inject

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/record"
)

// phraseQuery prepares prompt against a store of the given texts plus
// filler records (so the prompt's words are specific), and returns the
// query with the texts as records.
func phraseQuery(t *testing.T, prompt string, texts ...string) (*query, []*record.Record) {
	t.Helper()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var recs []*record.Record
	for i, text := range append(texts, strings.Split(strings.Repeat("landing page copy is owned by marketing;", 20), ";")...) {
		recs = append(recs, &record.Record{ID: "dec-" + strings.Repeat("a", i+1), Kind: record.Decision, Text: text, Time: now, Created: now})
	}
	cfg := defaultConfig(t)
	q := NewIndex(index.SnapshotOf(recs, Tokenizer()), cfg).prepare(prompt)
	if q == nil {
		t.Fatalf("no words in %q", prompt)
	}
	return q, recs[:len(texts)]
}

// Prompt words that are neither next to each other nor one word apart in a
// record, but within proximityWindow tokens, earn proximity credit; the
// same words farther apart earn none.
func TestProximityCredit(t *testing.T) {
	q, recs := phraseQuery(t, "invoice export timeout",
		"invoices of several nightly batches failed in the export, slowly reaching a timeout",
		"invoices are kept forever. Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda: export is manual. Mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega: timeout")
	if phrases, near := q.phrases(recs[0]); phrases != 0 || near <= 0 {
		t.Errorf("words 3 to 8 tokens apart: phrases %.3f, near %.3f; want no phrase, some nearness", phrases, near)
	}
	if phrases, near := q.phrases(recs[1]); phrases != 0 || near != 0 {
		t.Errorf("words more than %d tokens apart: phrases %.3f, near %.3f; want neither", proximityWindow, phrases, near)
	}
}

// A pair of prompt words credited as a phrase is not credited again as
// being near each other.
func TestProximityDoesNotCountAPhraseTwice(t *testing.T) {
	q, recs := phraseQuery(t, "invoice export", "the invoice export runs nightly")
	want := phraseWeight * min(q.spec[0], q.spec[1])
	if phrases, near := q.phrases(recs[0]); math.Abs(phrases-want) > 1e-9 || near != 0 {
		t.Errorf("phrases %.4f, near %.4f; want %.4f and none (the phrase once, no nearness on top)", phrases, near, want)
	}
}

// Proximity follows the prompt word's matches: a typo or another form of a
// word counts where the record holds it, at its similarity.
func TestProximityCreditFollowsMatches(t *testing.T) {
	q, recs := phraseQuery(t, "pacakge bulid", "the package that we build for each release")
	if _, near := q.phrases(recs[0]); near <= 0 {
		t.Errorf("package … build for the prompt pacakge bulid: near %.3f, want some", near)
	}
}

// Two prompt words that match one token of the record (http and https
// both hit https) are not near each other: they are one word there.
func TestProximityIgnoresATokenMatchedTwice(t *testing.T) {
	q, recs := phraseQuery(t, "nginx http https", "serve https only")
	if _, near := q.phrases(recs[0]); near != 0 {
		t.Errorf("http and https on the one token https: near %.3f, want none", near)
	}
}

// Words past the first maxKeywords of a prompt do not count, in phrases
// as in terms.
func TestPhrasesPastMaxKeywords(t *testing.T) {
	var filler []string
	for i := range maxKeywords {
		filler = append(filler, fmt.Sprintf("w%dx", i+10))
	}
	q, recs := phraseQuery(t, strings.Join(filler, " ")+" invoice export", "the invoice export runs nightly")
	if len(q.words) != maxKeywords {
		t.Fatalf("%d words counted, want %d", len(q.words), maxKeywords)
	}
	p := q.newPhrasing() // taken in whole: mayHoldPair would skip the field
	p.add(Tokens(recs[0].Text))
	if phrases, near := p.credit(); phrases != 0 || near != 0 {
		t.Errorf("invoice export past the %d words that count: phrases %.3f, near %.3f, want none", maxKeywords, phrases, near)
	}
}
