package inject

import (
	"math"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/record"
)

func TestResumesWork(t *testing.T) {
	for prompt, want := range map[string]bool{
		"where did we leave the cache migration?":    true,
		"Pick up the flaky test work from yesterday": true,
		"continue":                                      true,
		"any update on the release checklist":           true,
		"what's next for the importer":                  true,
		"the parser should discontinue on bad input":    false, // inside a word
		"pickup truck rental api":                       false,
		"the continued fraction code overflows":         false,
		"resumed downloads corrupt the file":            false,
		"add a resume upload field to the careers form": true, // the word, whatever it means here
		"":                                     false,
		"fix the off-by-one in the status bar": false,
		"status of the orders table after the backfill": true,
	} {
		if got, _ := resumesWork(prompt); got != want {
			t.Errorf("resumesWork(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// A prompt that picks up earlier work raises the relevance of handoffs,
// and only of handoffs: the same words without the phrase leave every
// record as it was, and the gate lets the handoff through only with it.
// The phrase is not the prompt's keywords: what is left is.
func TestResumePhraseIsNoKeyword(t *testing.T) {
	for prompt, want := range map[string]string{
		"Where did we leave the cache migration?":  "cache migration",
		"continue the importer work, what's next?": "importer work",
		"the continued fraction code":              "continued fraction code",
		"pick up, then continue":                   "",
	} {
		if got := strings.Join(Words(prompt), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", prompt, got, want)
		}
	}
}

func TestRankResumeBoostsHandoffs(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	recs := []*record.Record{
		{V: 1, ID: "ho-aaaaaaaa", Kind: record.Handoff, Text: "Importer rewrite: the csv reader is done", Next: []string{"port the xlsx reader"}, Time: now, Created: now},
		{V: 1, ID: "dec-bbbbbbbb", Kind: record.Decision, Text: "The importer reads csv with encoding/csv", Time: now, Created: now},
	}
	ix := NewIndex(index.SnapshotOf(recs, Tokenizer()), defaultConfig(t))
	rank := func(prompt string) map[string]Scored {
		out := map[string]Scored{}
		for _, sc := range ix.Rank(prompt, Options{Now: now}) {
			out[sc.Rec.ID] = sc
		}
		return out
	}
	plain, resumed := rank("the importer work"), rank("pick up the importer work")
	if len(plain) != 2 || len(resumed) != 2 {
		t.Fatalf("candidates: %v and %v, want both records each time", plain, resumed)
	}
	for id, want := range map[string]float64{"ho-aaaaaaaa": resumeBoost, "dec-bbbbbbbb": 1} {
		if plain[id].Resume != 1 || resumed[id].Resume != want {
			t.Errorf("%s: resume boost %v without the phrase and %v with it, want 1 and %v", id, plain[id].Resume, resumed[id].Resume, want)
		}
		for _, sc := range []Scored{plain[id], resumed[id]} {
			if got := sc.Evidence * sc.Share * sc.Resume * sc.meaningFactor(); math.Abs(got-sc.Relevance) > 1e-9 {
				t.Errorf("%s: relevance %v, want evidence × share × boost × meaning factor = %v", id, sc.Relevance, got)
			}
		}
	}
	if ho := resumed["ho-aaaaaaaa"]; !ho.Inject || plain["ho-aaaaaaaa"].Inject {
		t.Errorf("the handoff is injected without the phrase (%v: %s) or held back with it (%v: %s)",
			plain["ho-aaaaaaaa"].Inject, plain["ho-aaaaaaaa"].Why, ho.Inject, ho.Why)
	}
}
