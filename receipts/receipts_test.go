package receipts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func words(s string) []string { return strings.Fields(s) }

func TestUsesNamedShownRestatedNotMerelyShown(t *testing.T) {
	marks := Shingles([][]string{words("store record append jsonl shard"), words("merg add file")})
	shown := map[string][]uint32{
		"dec-aaaaaaaa0000000001": nil,
		"pat-bbbbbbbb0000000002": nil,
		"fail-cccccccc000000003": marks,
		"dec-dddddddd0000000004": marks,
	}
	act := Activity{
		Texts:    []string{"As dec-aaaaaaaa says, we keep it.", "Done."},
		Commands: []string{"git status", "lore show pat-bbbb && echo ok"},
	}
	said := TextShingles([][]string{words("we keep shard becaus merg add file")})
	got := Uses(map[string][]uint32{"dec-aaaaaaaa0000000001": nil, "pat-bbbbbbbb0000000002": nil, "fail-cccccccc000000003": marks}, act, said)
	want := map[string]string{"dec-aaaaaaaa0000000001": "named", "pat-bbbbbbbb0000000002": "shown", "fail-cccccccc000000003": "restated"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Uses = %v, want %v", got, want)
	}
	// Shown but not used: unrelated text, a too-short show prefix, words of
	// the record scattered rather than said together.
	act = Activity{Texts: []string{"I fixed the parser; shards and files are fine."}, Commands: []string{"lore show dec-d"}}
	said = TextShingles([][]string{words("fix parser shard file fine add record")})
	if got := Uses(shown, act, said); len(got) != 0 {
		t.Errorf("records merely shown counted as used: %v", got)
	}
}

func TestReadTranscriptClaudeCodeShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"why JSONL?"}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Because of dec-aaaaaaaa."}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"lore show dec-aaaa"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"assistant says hi"}]}}`,
		`not json but says "assistant"`,
		`{"type":"assistant","message":{"role":"assistant","content":"plain string reply"}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"half a line`, // still being written
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
	act, off := ReadTranscript(path, 0)
	if want := []string{"Because of dec-aaaaaaaa.", "plain string reply"}; fmt.Sprint(act.Texts) != fmt.Sprint(want) {
		t.Errorf("texts = %q, want %q", act.Texts, want)
	}
	if want := []string{"lore show dec-aaaa"}; fmt.Sprint(act.Commands) != fmt.Sprint(want) {
		t.Errorf("commands = %q, want %q", act.Commands, want)
	}
	if full := int64(len(strings.Join(lines[:6], "\n")) + 1); off != full {
		t.Errorf("offset %d, want %d (up to the last whole line)", off, full)
	}
	if act, _ := ReadTranscript(filepath.Join(t.TempDir(), "missing.jsonl"), 0); len(act.Texts)+len(act.Commands) != 0 {
		t.Errorf("a missing transcript gave activity: %v", act)
	}
	os.WriteFile(path, []byte(`{"some":"other shape","assistant":true}`+"\n"), 0o644)
	if act, _ := ReadTranscript(path, 0); len(act.Texts)+len(act.Commands) != 0 {
		t.Errorf("an unknown shape gave activity: %v", act)
	}
}

func TestLogAndSummarize(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	a, b := Open(dir, "session-a"), Open(dir, "session-b")
	a.Append(Event{Time: now, Event: Start, Full: []string{"ho-1", "dec-1"}})
	a.Append(Event{Time: now.Add(time.Minute), Event: Prompt, Full: []string{"dec-1"}, Summary: []string{"pat-1"}})
	a.Append(Event{Time: now.Add(2 * time.Minute), Event: Prompt, Prompt: "write a haiku"})
	a.Append(Event{Time: now.Add(3 * time.Minute), Event: Used, Uses: map[string]string{"dec-1": "named"}})
	a.Append(Event{Time: now.Add(4 * time.Minute), Event: Used, Uses: map[string]string{"dec-1": "restated"}})
	a.Append(Event{Time: now.Add(5 * time.Minute), Event: Asked})
	b.Append(Event{Time: now.Add(24 * time.Hour), Event: Prompt, Full: []string{"dec-1"}})
	b.Append(Event{Time: now.Add(25 * time.Hour), Event: Used, Uses: map[string]string{"dec-1": "shown"}})
	// A corrupted line is skipped with a warning, and counted around.
	f, _ := os.OpenFile(b.path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json\n")
	f.Close()

	evs, warns := ReadAll(dir)
	if len(evs) != 8 || len(warns) != 1 || !strings.Contains(warns[0].String(), ":3: not a receipt line") {
		t.Fatalf("read %d events, warnings %v", len(evs), warns)
	}
	r := Summarize(evs, time.Time{})
	got := fmt.Sprintf("%d sessions, %d injections (%d start, %d prompt), used %d, shown %d/%d, asked %d, nothing %q, records %v",
		r.Sessions, r.Injections, r.AtStart, r.OnPrompt, r.Used, r.UsedShown, r.Shown, r.Asked, r.Nothing, r.Records)
	want := `2 sessions, 3 injections (1 start, 2 prompt), used 2, shown 1/3, asked 1, nothing ["write a haiku"], records [{dec-1 3 2} {ho-1 1 0} {pat-1 1 0}]`
	if got != want {
		t.Errorf("Summarize:\n got %s\nwant %s", got, want)
	}
	if r := Summarize(evs, now.Add(12*time.Hour)); r.Sessions != 1 || r.Injections != 1 || r.Used != 1 {
		t.Errorf("since: %+v", r)
	}
}

func TestLogIsBounded(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, "s")
	big := strings.Repeat("x", 100)
	for range maxFileBytes / 100 * 2 {
		l.Append(Event{Time: time.Now(), Event: Prompt, Prompt: big})
	}
	info, err := os.Stat(l.path)
	if err != nil || info.Size() > maxFileBytes {
		t.Errorf("receipt grew past %d bytes: %v %v", maxFileBytes, info.Size(), err)
	}
	for i := range maxFiles + 5 {
		Open(dir, fmt.Sprint("session-", i)).Append(Event{Time: time.Now(), Event: Start})
	}
	if files, _ := filepath.Glob(filepath.Join(Dir(dir), "*.jsonl")); len(files) > maxFiles {
		t.Errorf("%d receipt files kept, want at most %d", len(files), maxFiles)
	}
	Open(dir, "").Append(Event{Event: Start}) // no session: records nothing, no panic
}

// A prompt that got nothing is kept scrubbed: a pasted credential never
// reaches .lore/, even cut where the token runs on.
func TestPromptIsScrubbed(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, "s1")
	token := "ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui"
	for _, p := range []string{"my key " + token + " does not work", strings.Repeat("x ", 52) + token} {
		l.Append(Event{Time: time.Now(), Event: Prompt, Prompt: p})
	}
	data, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "ghp_R7xk") || !strings.Contains(string(data), "[REDACTED:github-pat]") {
		t.Errorf("receipt holds %s", data)
	}
}
