package inject

import (
	"strings"
	"testing"
	"time"

	"lore/config"
	"lore/index"
	"lore/record"
)

func TestIsCodeWord(t *testing.T) {
	for w, want := range map[string]bool{
		"ioutil.readfile": true, "format.ts": true, "deploy_env": true, "node-fetch": true, "1.33": true,
		"137": true, "sha256": true, "16": false, "deploy": false, "s3": false, "": false,
	} {
		if got := isCodeWord(w); got != want {
			t.Errorf("isCodeWord(%q) = %v, want %v", w, got, want)
		}
	}
}

// A record that matches a word typed as code passes the gate on less
// relevance than one that matches plain words, and the explanation names
// the word; the same record reached by plain words alone does not.
func TestGateAsksLessOfACodeWordMatch(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var recs []*record.Record
	add := func(id, text string) {
		recs = append(recs, &record.Record{ID: id, Kind: record.Decision, Text: text, Time: now, Created: now})
	}
	add("dec-a", "Upgrade the renderer to 1.33 only with the config migration")
	for i := range 30 {
		add("dec-"+strings.Repeat("b", i+1), "Landing page copy is owned by marketing, review "+strings.Repeat("x", i+1))
	}
	cfg, err := config.LoadConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex(index.SnapshotOf(recs, Tokenizer()), cfg)
	prompt := "bumped to 1.33, now the page is white"
	got := ix.Rank(prompt, Options{Now: now, Limit: 3})
	if len(got) == 0 || got[0].Rec.ID != "dec-a" {
		t.Fatalf("Rank(%q) does not put dec-a first: %+v", prompt, got)
	}
	top := got[0]
	if top.CodeWord != "1.33" {
		t.Errorf("CodeWord = %q, want 1.33", top.CodeWord)
	}
	minRel := cfg.Inject.MinRelevance
	if !(top.Relevance < minRel && top.Relevance >= minRel*codeRelevance) {
		t.Fatalf("relevance %.2f is not between %.2f and %.2f: the case no longer tests the code route", top.Relevance, minRel*codeRelevance, minRel)
	}
	if !top.Inject || !strings.Contains(top.Why, `"1.33"`) {
		t.Errorf("dec-a: inject %v, why %q; want injected, naming 1.33", top.Inject, top.Why)
	}
	plain := strings.Replace(prompt, "1.33", "the renderer", 1)
	for _, sc := range ix.Rank(plain, Options{Now: now, Limit: 3}) {
		if sc.Rec.ID == "dec-a" && sc.CodeWord != "" {
			t.Errorf("without 1.33, CodeWord = %q", sc.CodeWord)
		}
	}
}
