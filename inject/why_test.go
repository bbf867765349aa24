package inject

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/record"
)

// whyStore is forty patterns about the same postgres connection pool, so
// those words are common in it, and one record about retries.
func whyStore(t *testing.T, now time.Time) *Index {
	t.Helper()
	var recs []*record.Record
	for i := range 40 {
		recs = append(recs, &record.Record{V: 1, ID: fmt.Sprintf("pat-%08d", i), Kind: record.Pattern,
			Text: fmt.Sprintf("Postgres pool pattern %d", i), Context: "postgres connection pool",
			Solution: fmt.Sprintf("set pool size %d", i), Time: now, Created: now})
	}
	recs = append(recs, &record.Record{V: 1, ID: "dec-retryxxx", Kind: record.Decision,
		Text: "Retry webhook deliveries with exponential backoff", Rationale: "receivers go down for minutes",
		Time: now, Created: now})
	return NewIndex(index.SnapshotOf(recs, Tokenizer()), defaultConfig(t))
}

// The gate's reason names the factor of relevance that fell short: the
// evidence, when the words a record matches are common in the store (even
// with the whole prompt matched), and the share, when the record lacks
// words the prompt is about, each in the words as typed.
func TestGateReasonNamesTheFactorShort(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ix := whyStore(t, now)
	minRel := ix.cfg.Inject.MinRelevance
	for _, c := range []struct {
		prompt, id string
		want       []string // in the reason, in order
		not        []string
	}{
		{"postgres connection pool", "pat-00000000",
			[]string{"low evidence", "(postgres, connection, pool) are common in this store"}, []string{"share"}},
		{"postgres connection pool pgbouncer", "pat-00000000",
			[]string{"low evidence", "(postgres, connection, pool) are common in this store", "low share: nothing in it matches pgbouncer"}, nil},
		{"retry the webhook for the billing gateway of stripe and adyen", "dec-retryxxx",
			[]string{"low share: nothing in it matches billing, gateway, stripe, adyen"}, []string{"evidence", "retry", "webhook"}},
	} {
		var got *Scored
		res := ix.Rank(c.prompt, Options{Now: now})
		for i := range res {
			if res[i].Rec.ID == c.id {
				got = &res[i]
			}
		}
		if got == nil {
			t.Errorf("%q: %s is no candidate", c.prompt, c.id)
			continue
		}
		if got.Inject || got.Relevance >= minRel {
			t.Errorf("%q: %s passes the gate (relevance %.2f), the test needs it held back", c.prompt, c.id, got.Relevance)
			continue
		}
		t.Logf("%q: %s", c.prompt, got.Why)
		if !strings.Contains(got.Why, fmt.Sprintf("relevance %.2f is below %.2f: ", got.Relevance, minRel)) {
			t.Errorf("%q: reason %q does not say relevance is below the gate", c.prompt, got.Why)
		}
		rest := got.Why
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%q: reason %q lacks %q (in order)", c.prompt, got.Why, w)
				break
			}
			rest = rest[i+len(w):]
		}
		for _, w := range c.not {
			if strings.Contains(got.Why, w) {
				t.Errorf("%q: reason %q says %q", c.prompt, got.Why, w)
			}
		}
		if strings.Contains(got.Why, "\n") {
			t.Errorf("%q: reason %q is more than one line", c.prompt, got.Why)
		}
	}
}

// A reason names at most four words of a sort, and how many more.
func TestGateReasonCapsTheWordsItNames(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ix := whyStore(t, now)
	res := ix.Rank("retry webhook alpha bravo charlie delta echo foxtrot", Options{Now: now})
	if len(res) == 0 || res[0].Rec.ID != "dec-retryxxx" {
		t.Fatalf("ranking: %v, want dec-retryxxx first", res)
	}
	if why := res[0].Why; !strings.Contains(why, "nothing in it matches alpha, bravo, charlie, delta and 2 more") {
		t.Errorf("reason %q, want the first four missing words and how many more", why)
	}
}
