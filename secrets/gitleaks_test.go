package secrets

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"lore/record"
)

type corpusCase struct {
	Rule, Kind, Text string
}

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/gitleaks-corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// sentences put a secret inside ordinary prose, as an agent writes it.
var sentences = []string{
	"Deploy failed until we set %s in the runner; rotate it after the incident.",
	"Note for next time: the staging config had %s checked in by mistake.",
	"%s",
	"The integration test reads %s from the fixture, which is why it passed locally.",
}

// fields are every field a secret can be captured through, one per case in
// turn, so that the corpus goes through all of them.
var fields = []func(r *record.Record, s string){
	func(r *record.Record, s string) { r.Text = s },
	func(r *record.Record, s string) { r.Rationale = s },
	func(r *record.Record, s string) { r.Alternatives = s },
	func(r *record.Record, s string) { r.Context = s },
	func(r *record.Record, s string) { r.Solution = s },
	func(r *record.Record, s string) { r.Next = []string{"check the logs", s} },
	func(r *record.Record, s string) { r.Blocked = []string{s} },
	func(r *record.Record, s string) { r.Tags = []string{"ci", s} },
	func(r *record.Record, s string) { r.Extra = map[string]any{"note": s} },
}

// TestGitleaksCorpusIsRedacted: one secret per gitleaks rule, in a sentence,
// through every field, is redacted for at least 95% of rules; the line
// around it keeps its words.
func TestGitleaksCorpusIsRedacted(t *testing.T) {
	var rules, caught int
	var missed []string
	seen := map[string]bool{}
	n := 0
	for _, c := range readCorpus(t) {
		if c.Kind != "tp" || seen[c.Rule] {
			continue // one secret per rule, the first
		}
		seen[c.Rule] = true
		rules++
		sentence := strings.Replace(sentences[n%len(sentences)], "%s", c.Text, 1)
		r := &record.Record{}
		fields[n%len(fields)](r, sentence)
		n++
		found := ScrubRecord(r)
		after, _ := r.MarshalLine()
		secrets := secretsOf(c.Rule, c.Text)
		if len(secrets) == 0 {
			t.Errorf("%s: its own rule finds no secret in %q", c.Rule, c.Text)
		}
		kept := slices.ContainsFunc(secrets, func(s string) bool {
			b, _ := json.Marshal(s)
			return strings.Contains(string(after), strings.Trim(string(b), `"`))
		})
		if len(found) > 0 && !kept {
			caught++
			continue
		}
		missed = append(missed, fmt.Sprintf("%s(field %d)", c.Rule, (n-1)%len(fields)))
	}
	// gitleaks' own near-misses: reported, not a target (lore's extra rules
	// are broader, and a memory errs towards redaction).
	var fps, fpHit int
	for _, c := range readCorpus(t) {
		if c.Kind == "fp" {
			fps++
			if got, _ := Scrub(c.Text); got != c.Text {
				fpHit++
			}
		}
	}
	t.Logf("%d of %d gitleaks false positives redacted", fpHit, fps)
	rate := float64(caught) / float64(rules)
	t.Logf("gitleaks %s corpus: %d of %d rules redacted in sentences (%.1f%%); missed: %v", gitleaksVersion, caught, rules, 100*rate, missed)
	if rules < 200 || rate < 0.95 {
		t.Errorf("redacted %d of %d rules (%.1f%%), want at least 95%% of at least 200", caught, rules, 100*rate)
	}
}

// secretsOf is what gitleaks' rule id takes for the secrets in text.
func secretsOf(id, text string) []string {
	for i := range rules().rules {
		r := &rules().rules[i]
		if r.id != id {
			continue
		}
		var out []string
		for _, m := range r.compiled().re.FindAllStringSubmatchIndex(text, -1) {
			if start, end := secretSpan(m, r.secretGroup); start >= 0 && end > start {
				out = append(out, text[start:end])
			}
		}
		return out
	}
	return nil
}

// TestBenignSentencesStay: ordinary technical sentences (hashes, UUIDs,
// settings, prose about credentials) are left alone: at most 2 of them
// altered.
func TestBenignSentencesStay(t *testing.T) {
	data, err := os.ReadFile("testdata/benign.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines, altered int
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines++
		if got, kinds := Scrub(l); got != l {
			altered++
			t.Logf("altered (%v): %q -> %q", kinds, l, got)
		}
	}
	t.Logf("%d of %d benign sentences altered", altered, lines)
	if lines < 50 || altered > 2 {
		t.Errorf("%d of %d benign sentences altered, want at most 2 of at least 50", altered, lines)
	}
}
