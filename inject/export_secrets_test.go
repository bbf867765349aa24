package inject

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/failures"
	"lore/index"
	"lore/record"
)

// A secret hand-edited into a record (doctor reports it) is not copied
// into an export, at any budget: each record text is scrubbed before its
// line is measured against the budget, the export keeps to the budget, and
// what was redacted is named by field and record, for what was written only.
func TestExportScrubsSecrets(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	conf := 0.9
	const (
		stripe = "sk_live_51HxQz2KfAkE9xYzWvUtSrQpOn8mLk"
		github = "ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui"
		netrc  = "Pz4Xc6Vb8Nm1"
	)
	ho := &record.Record{V: 1, ID: "ho-aaaaaaaa", Kind: record.Handoff, Status: record.StatusActive, Time: now, Created: now,
		Text: "Billing wired up with " + stripe + ".", Next: []string{"push with " + github}}
	recs := []*record.Record{
		ho,
		{V: 1, ID: "pat-bbbbbbbb", Kind: record.Pattern, Status: record.StatusActive, Time: now, Created: now, Confidence: &conf,
			Text: "Deploy the billing service", Context: "a release", Solution: "use " + stripe + "."},
		{V: 1, ID: "dec-cccccccc", Kind: record.Decision, Status: record.StatusActive, Time: now, Created: now,
			Text: "Mirror packages", Rationale: "machine pypi.example.com login ci password " + netrc},
		{V: 1, ID: "dec-dddddddd", Kind: record.Decision, Status: record.StatusActive, Time: now, Created: now,
			Text: "Use JSONL for storage", Rationale: "append-only, grep-friendly"},
	}
	v := &Resume{Handoff: ho, Failures: []failures.Trigger{{ErrorType: "AuthError", Count: 3, Last: now, Example: "push with " + github + " failed"}}}
	snap := index.SnapshotOf(recs, Tokenizer())

	text, found := Export(snap, v, ExportOptions{BudgetTokens: DefaultBudget, Section: true, Now: now})
	for _, s := range []string{stripe, github, netrc} {
		if strings.Contains(text, s) {
			t.Errorf("the export holds %s:\n%s", s, text)
		}
	}
	for _, want := range []string{
		"ho-aaaaaaaa (2026-11-01): Billing wired up with [REDACTED:stripe-access-token].\n",
		"- Next: push with [REDACTED:github-pat]\n",
		"Do: use [REDACTED:stripe-access-token].\n",
		"**Mirror packages** (2026-11-01, `dec-cccccccc`): machine pypi.example.com login ci password [REDACTED:netrc-password]\n",
		"- **Use JSONL for storage** (2026-11-01, `dec-dddddddd`): append-only, grep-friendly\n",
		"- 3× AuthError, last 2026-11-01: push with [REDACTED:github-pat] failed\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the export lacks %q:\n%s", want, text)
		}
	}
	var got []string
	for _, f := range found {
		got = append(got, f.Kind+" in "+f.Field)
	}
	slices.Sort(got)
	want := []string{
		"github-pat in next of ho-aaaaaaaa", "github-pat in text of a recurring failure", "netrc-password in rationale of dec-cccccccc",
		"stripe-access-token in solution of pat-bbbbbbbb", "stripe-access-token in text of ho-aaaaaaaa",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}

	// At every budget: no secret, within the budget, and a finding only for
	// a record whose line was written.
	for budget := ExportMinBudget; budget <= 600; budget += 8 {
		for _, section := range []bool{false, true} {
			text, found := Export(snap, v, ExportOptions{BudgetTokens: budget, Section: section, Now: now})
			if len(text) > budget*CharsPerToken {
				t.Errorf("budget %d: %d bytes", budget, len(text))
			}
			for _, s := range []string{stripe, github, netrc} {
				if strings.Contains(text, s) {
					t.Errorf("budget %d: the export holds %s", budget, s)
				}
			}
			for _, f := range found {
				if id := f.Field[strings.LastIndex(f.Field, " ")+1:]; strings.Contains(id, "-") && !strings.Contains(text, id) {
					t.Errorf("budget %d: %s reported, but %s was not written:\n%s", budget, fmt.Sprint(f), id, text)
				}
			}
		}
	}
}
