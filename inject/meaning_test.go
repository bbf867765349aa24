package inject

import (
	"math"
	"slices"
	"testing"
	"time"

	"lore/index"
	"lore/record"
	"lore/wordvec"
)

func meaningStore(t *testing.T, texts ...string) *Index {
	t.Helper()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var recs []*record.Record
	for i, s := range texts {
		id := record.NewID(record.Decision, now.Add(time.Duration(i)*time.Second))
		recs = append(recs, &record.Record{V: 1, ID: id, Kind: record.Decision, Text: s, Time: now, Created: now})
	}
	return NewIndex(index.SnapshotOf(recs, Tokenizer()), defaultConfig(t))
}

// The meaning share tells a record that says the prompt in other words
// from one that shares a word with it, and weighs the relevance by the
// rule the gate states.
func TestMeaningWeighsRelevance(t *testing.T) {
	ix := meaningStore(t,
		"pip install into the Debian system Python fails as an externally managed environment: install into a venv or use pipx",
		"install the Luxon library to render dates in the reader's locale")
	res := ix.Rank("ubuntu refuses to let pip install packages globally", Options{Now: time.Now()})
	if len(res) != 2 {
		t.Fatalf("%d candidates, want both records", len(res))
	}
	by := map[string]Scored{}
	for _, sc := range res {
		by[sc.Rec.Text[:3]] = sc
		if sc.Meaning < 0 {
			continue
		}
		f := sc.meaningFactor()
		if want := sc.Evidence * sc.Share * sc.Resume * f; math.Abs(want-sc.Relevance) > 1e-9 {
			t.Errorf("%q: relevance %v, want evidence × share × meaning factor = %v", sc.Rec.Text, sc.Relevance, want)
		}
		if f > meaningCap || sc.Meaning <= sc.Share && f > 1 {
			t.Errorf("%q: meaning factor %v with meaning %v and share %v: above the cap, or raised by the words alone", sc.Rec.Text, f, sc.Meaning, sc.Share)
		}
	}
	pip, dates := by["pip"], by["ins"]
	if pip.Meaning < 0 {
		t.Fatalf("the paraphrase's meaning is not worked out (%s)", pip.Why)
	}
	// The unrelated record is held back before its meaning is needed;
	// worked out as the gate would, it is lower.
	q := ix.prepare("ubuntu refuses to let pip install packages globally")
	if m := wordvec.Default().Query(meaningWords(withoutPaths(q.text))).Share(meaningWords(recordText(dates.Rec)), meaningFloor); !(pip.Meaning > m) {
		t.Errorf("meaning of the paraphrase %.2f is not above the unrelated record's %.2f", pip.Meaning, m)
	}
}

// A record holding every word of the prompt gains nothing from meaning:
// words common in the store stay too weak to inject (the "low evidence"
// rule), however well the record says them.
func TestMeaningAddsNothingToSharedWords(t *testing.T) {
	ix := meaningStore(t, "postgres connection pool sizing", "postgres connection pool timeouts", "postgres connection pool per worker")
	for _, sc := range ix.Rank("postgres connection pool", Options{Now: time.Now()}) {
		if f := sc.meaningFactor(); f > 1 {
			t.Errorf("%q: meaning factor %v for a record holding every word of the prompt", sc.Rec.Text, f)
		}
	}
}

// The table knows English in ASCII: a prompt in another script keeps the
// words' relevance alone.
func TestMeaningLeavesOtherScripts(t *testing.T) {
	ix := meaningStore(t, "使用连接池访问数据库", "缓存键必须带上版本号前缀 cache")
	for _, p := range []string{"如何配置数据库连接池？", "缓存键 cache"} {
		for _, sc := range ix.Rank(p, Options{Now: time.Now()}) {
			if sc.Meaning != -1 || sc.meaningFactor() != 1 {
				t.Errorf("%q → %q: meaning %v, factor %v; want not worked out (-1, 1)", p, sc.Rec.Text, sc.Meaning, sc.meaningFactor())
			}
		}
	}
}

// A pasted path says where, not what about: its parts are left out of the
// prompt's meaning (the words around it stay).
func TestMeaningLeavesOutPaths(t *testing.T) {
	ws := meaningWords(withoutPaths(`ImportError from /venv/lib/python3.9/site-packages/markupsafe/__init__.py and C:\Users\dev\app.py, see docker/compose`))
	for _, w := range []string{"venv", "site", "packages", "users", "app"} {
		if slices.Contains(ws, w) {
			t.Errorf("%q of a path is a meaning word: %q", w, ws)
		}
	}
	for _, w := range []string{"import", "error", "docker", "compose"} {
		if !slices.Contains(ws, w) {
			t.Errorf("%q is not a meaning word: %q", w, ws)
		}
	}
}
