package inject

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"lore/record"
)

// What a session recorded itself counts as seen: a record newer than the
// context's start whose ID the session's transcript names after that point
// (lore printed it to the agent). A mention before the start (a compaction
// since), a record the transcript does not name (another session's, one
// typed in a terminal), or one older than the start is not the session's.
func TestSeenOwnIsNamedInTheTranscriptSinceTheContextBegan(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, "t.jsonl")
	appendTo := func(text string) {
		f, err := os.OpenFile(transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	rec := func(id string, at time.Time) *record.Record { return &record.Record{ID: id, Time: at} }
	before := rec("dec-aaaaaaaa1m83nnxj4", t0.Add(time.Minute)) // named before the context began
	mine := rec("dec-bbbbbbbb1m83nnxj4", t0.Add(time.Minute))   // captured by the session
	other := rec("dec-cccccccc1m83nnxj4", t0.Add(time.Minute))  // another session's
	old := rec("dec-dddddddd1m83nnxj4", t0.Add(-time.Minute))   // named, but older than the start
	open := func() *Seen { s := OpenSeen(dir, "s"); s.Own(transcript); return s }

	appendTo(`{"text":"earlier: dec-aaaaaaaa"}` + "\n")
	OpenSeen(dir, "s").Reset(t0, transcript)
	appendTo(`{"tool_result":"dec-bbbbbbbb\n"} {"text":"see dec-dddddddd"}` + "\n")
	s := open()
	for _, c := range []struct {
		r    *record.Record
		want bool
	}{{before, false}, {mine, true}, {other, false}, {old, false}} {
		if got := s.Has(c.r); got != c.want {
			t.Errorf("Has(%s) = %v, want %v", c.r.ID, got, c.want)
		}
	}
	if s := OpenSeen(dir, "s"); s.Has(mine) {
		t.Error("without Own (no transcript path), a record counts as the session's")
	}
	// Noted as seen, the session's own record needs no transcript again.
	s.Add(s.Found())
	if s := OpenSeen(dir, "s"); !s.Has(mine) || s.Has(other) {
		t.Errorf("after noting what was found (%d records), has mine %v, other %v", len(s.Found()), s.Has(mine), s.Has(other))
	}
	OpenSeen(dir, "s").Reset(t0.Add(time.Hour), transcript) // a compaction
	if s := open(); s.Has(rec(mine.ID, t0.Add(2*time.Hour))) {
		t.Error("a record named before the compaction still counts as in the context")
	}
}
