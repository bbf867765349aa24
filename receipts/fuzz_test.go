package receipts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// claudeTranscript is a Claude Code transcript in the shape
// TestReadTranscriptClaudeCodeShape reads: user and assistant lines, a text
// block, a Bash tool_use, a tool_result that mentions "assistant", a call
// of lore's MCP show tool, and a reply given as a plain string.
var claudeTranscript = strings.Join([]string{
	`{"type":"user","message":{"role":"user","content":"why JSONL?"}}`,
	`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Because of dec-aaaaaaaa."}]}}`,
	`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"lore show dec-aaaa"}}]}}`,
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"assistant says hi"}]}}`,
	`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"mcp__lore__show","input":{"id":"dec-aaaa"}}]}}`,
	`{"type":"assistant","message":{"role":"assistant","content":"plain string reply"}}`,
}, "\n") + "\n"

// A transcript is another program's file, read while it is written: any
// bytes give activity and an offset, never a panic. The offset is where
// the last whole line ends (no whole line is left unread, no half line is
// taken), and reading in two goes (the file cut anywhere, as a Stop finds
// it mid-write, then read on from the offset the first Stop returned)
// gives exactly the activity of one read of the whole file.
func FuzzReadTranscript(f *testing.F) {
	f.Add([]byte(claudeTranscript), uint16(200))
	f.Add([]byte(claudeTranscript+`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"half a line`), uint16(0))
	f.Add([]byte(strings.ReplaceAll(claudeTranscript, "\n", "\r\n")), uint16(77))
	f.Add([]byte("not json but says \"assistant\"\n{\"type\":\"assistant\",\"message\":{\"content\":5}}\n"), uint16(3))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":""}},{"type":"text"}]}}`+"\n\n\n"), uint16(9))
	f.Add([]byte{}, uint16(0))
	// Codex CLI's rollout and Gemini CLI's session file (hosts_test.go),
	// whole, cut, and in one file with Claude Code's lines.
	f.Add([]byte(codexTranscript), uint16(1500))
	f.Add([]byte(geminiTranscript), uint16(900))
	f.Add([]byte(codexTranscript+`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"show","namespace":"mcp__lore","arguments":"{\"id\":`), uint16(40))
	f.Add([]byte(geminiTranscript+`{"id":"x","type":"gemini","content":"","toolCalls":[{"name":"run_shell_command","args":{"command":"lore show`), uint16(2000))
	f.Add([]byte(claudeTranscript+codexTranscript+geminiTranscript), uint16(3000))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"local_shell_call","action":{"command":[]}}}`+"\n"+
		`{"type":"response_item","payload":{"type":"function_call","arguments":"{\"cmd\":\"\",\"command\":[\"\"]}"}}`+"\n"+
		`{"type":"gemini","content":[{"text":""},5],"toolCalls":[{"args":{"command":""}},null]}`+"\n"), uint16(60))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		if len(data) > maxTranscript {
			return // only the newest maxTranscript bytes are read: the two-read property needs all of it
		}
		path := filepath.Join(dir, "t.jsonl")
		write := func(b []byte) {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(data)
		whole, end := ReadTranscript(path, 0)
		if end < 0 || end > int64(len(data)) || end > 0 && data[end-1] != '\n' || bytes.IndexByte(data[end:], '\n') >= 0 {
			t.Fatalf("read to offset %d of %d bytes %q: not the end of the last whole line", end, len(data), data)
		}
		for _, c := range whole.Commands {
			if c == "" {
				t.Fatalf("an empty command: %q", whole.Commands)
			}
		}
		for _, id := range whole.Opened {
			if id == "" {
				t.Fatalf("an empty ID opened: %q", whole.Opened)
			}
		}
		if again, to := ReadTranscript(path, int64(len(data))+1); to != end || !sameActivity(again, whole) {
			t.Fatalf("an offset past the end (a rewritten transcript) does not read it all again: %v %d, want %v %d", again, to, whole, end)
		}

		k := int(cut) % (len(data) + 1)
		write(data[:k])
		first, mid := ReadTranscript(path, 0)
		if mid > int64(k) {
			t.Fatalf("read to %d of a %d-byte file", mid, k)
		}
		write(data)
		rest, to := ReadTranscript(path, mid)
		both := Activity{Texts: slices.Concat(first.Texts, rest.Texts), Commands: slices.Concat(first.Commands, rest.Commands), Opened: slices.Concat(first.Opened, rest.Opened)}
		if to != end || !sameActivity(both, whole) {
			t.Fatalf("cut at %d: two reads gave %v to %d, one read %v to %d", k, both, to, whole, end)
		}
	})
}

func sameActivity(a, b Activity) bool {
	return slices.Equal(a.Texts, b.Texts) && slices.Equal(a.Commands, b.Commands) && slices.Equal(a.Opened, b.Opened)
}

// A session's receipt is read by lore stats whatever it holds (a hand
// edit, a disk that filled mid-line): every line is an event or a warning
// naming it, never both, events come oldest first, an event read writes
// back (Append's encoding) to a line that reads as the same event, and the
// summary's counts add up and are never negative.
func FuzzReadAll(f *testing.F) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var seed []byte
	for _, ev := range []Event{
		{Time: now, Session: "session-a", Event: Start, Full: []string{"ho-1", "dec-1"}, Chars: 812, Marks: map[string][]uint32{"dec-1": {1, 2, 3}}},
		{Time: now.Add(time.Minute), Session: "session-a", Event: Prompt, Full: []string{"dec-1"}, Summary: []string{"pat-1"}},
		{Time: now.Add(2 * time.Minute), Session: "session-a", Event: Prompt, Prompt: "write a haiku"},
		{Time: now.Add(3 * time.Minute), Session: "session-a", Event: Used, Uses: map[string]string{"dec-1": "named"}},
		{Time: now.Add(4 * time.Minute), Session: "session-a", Event: Asked},
	} {
		line, _ := json.Marshal(ev)
		seed = append(append(seed, line...), '\n')
	}
	f.Add(seed)
	f.Add(append(slices.Clone(seed), "{not json\n"...))
	f.Add(seed[:len(seed)/2])
	f.Add([]byte(`{"t":"2026-11-20T10:00:00+02:00","event":"used","uses":{"a":"named","b":"x"}}` + "\n" + `{"event":""}` + "\n\n  \n" + `{"t":"0001-01-01T00:00:00Z","event":"start","full":null,"marks":{}}` + "\n"))
	f.Add([]byte(`[1,2]` + "\n" + `{"t":"x","event":"start"}` + "\n" + `{"event":"prompt","chars":-5}`))
	store := f.TempDir()
	if err := os.MkdirAll(Dir(store), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(Dir(store), "s.jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		evs, warns := ReadAll(store)
		lines := map[int]bool{}
		for i, l := range strings.Split(string(data), "\n") {
			if len(bytes.TrimSpace([]byte(l))) > 0 {
				lines[i+1] = true
			}
		}
		scanErr := false
		for _, w := range warns {
			switch {
			case w.Line == 0:
				scanErr = true // a line too long to read: the rest of the file is not read
			case !lines[w.Line]:
				t.Fatalf("warning for line %d, which is blank or absent: %v", w.Line, w)
			}
		}
		if nw := len(warns); !scanErr && len(evs)+nw != len(lines) {
			t.Fatalf("%d events and %d warnings from %d non-blank lines", len(evs), nw, len(lines))
		}
		if len(evs)+len(warns) > len(lines)+1 {
			t.Fatalf("%d events and %d warnings from %d non-blank lines", len(evs), len(warns), len(lines))
		}
		var again []byte
		for i, ev := range evs {
			if ev.Event == "" {
				t.Fatalf("an event without a name: %+v", ev)
			}
			if i > 0 && ev.Time.Before(evs[i-1].Time) {
				t.Fatalf("events out of order: %v before %v", evs[i-1].Time, ev.Time)
			}
			line, err := json.Marshal(ev)
			if err != nil {
				t.Fatalf("an event read does not write back: %v: %+v", err, ev)
			}
			again = append(append(again, line...), '\n')
		}
		back := filepath.Join(store, "back.jsonl")
		if err := os.WriteFile(back, again, 0o644); err != nil {
			t.Fatal(err)
		}
		evs2, warns2 := readFile(back)
		if len(warns2) != 0 || len(evs2) != len(evs) {
			t.Fatalf("written back, %d events read as %d, warnings %v", len(evs), len(evs2), warns2)
		}
		for i := range evs2 {
			a, _ := json.Marshal(evs[i])
			b, _ := json.Marshal(evs2[i])
			if !bytes.Equal(a, b) {
				t.Fatalf("event written back reads differently:\n%s\n%s", a, b)
			}
		}

		r := Summarize(evs, time.Time{})
		injected, uses := 0, 0
		for _, ev := range evs {
			if (ev.Event == Start || ev.Event == Prompt) && len(ev.Full)+len(ev.Summary) > 0 {
				injected += len(ev.Full) + len(ev.Summary)
			}
			if ev.Event == Used {
				uses += len(ev.Uses)
			}
		}
		sum := 0
		for _, rs := range r.Records {
			if rs.Injected < 0 || rs.Used < 0 {
				t.Fatalf("negative count: %+v", rs)
			}
			sum += rs.Injected
		}
		switch {
		case r.Injections != r.AtStart+r.OnPrompt, r.Injections < 0, r.AtStart < 0, r.OnPrompt < 0, r.Asked < 0, r.Used < 0:
			t.Fatalf("injections do not add up: %+v", r)
		case r.Sessions > len(evs), r.Shown > len(r.Records), r.UsedShown > len(r.Records), r.Used > uses:
			t.Fatalf("counts past what was read: %+v from %d events", r, len(evs))
		case sum != injected:
			t.Fatalf("records injected %d times, events injected %d", sum, injected)
		}
	})
}
