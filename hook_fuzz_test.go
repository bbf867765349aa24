package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lore/inject"
)

// FuzzHook feeds arbitrary bytes to hook mode: it must never panic, always
// exit 0, and print nothing or exactly one valid hook answer (a context
// block, or a Stop hook's request to go on).
func FuzzHook(f *testing.F) {
	dir := f.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		f.Skip("git is needed:", err)
	}
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cwd: dir,
		getenv: func(string) string { return "" }}
	for _, args := range [][]string{
		{"init"},
		{"remember", "Use JSONL for storage", "--rationale", "append-only"},
		{"fail", "NonZeroExit", "deploy.sh fails when DEPLOY_ENV is unset"},
		{"handoff", "Store done", "--next", "inject"},
	} {
		if code := e.main(args); code != 0 {
			f.Fatalf("setup %v: exit %d", args, code)
		}
	}
	cwd, _ := json.Marshal(dir)
	transcript, _ := json.Marshal(filepath.Join(dir, "t.jsonl"))
	os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"per dec-"}]}}`+"\n{broken\n"), 0o644)
	for _, seed := range []string{
		`{"session_id":"f","cwd":` + string(cwd) + `,"hook_event_name":"SessionStart","source":"startup"}`,
		`{"session_id":"f","transcript_path":` + string(transcript) + `,"cwd":` + string(cwd) + `,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Use JSONL for storage"}`,
		`{"session_id":"f","transcript_path":` + string(cwd) + `,"cwd":` + string(cwd) + `,"hook_event_name":"AfterAgent","prompt_response":"x"}`,
		`{"session_id":"f","transcript_path":"/dev/null","cwd":` + string(cwd) + `,"hook_event_name":"SessionEnd","reason":"other"}`,
		`{"session_id":"s","cwd":` + string(cwd) + `,"hook_event_name":"UserPromptSubmit","prompt":"JSONL storage?"}`,
		`{"cwd":` + string(cwd) + `,"hook_event_name":"SessionStart","source":"compact"}`,
		`{"cwd":` + string(cwd) + `,"hook_event_name":"BeforeAgent","prompt":"deploy.sh DEPLOY_ENV"}`,
		`{"hook_event_name":"UserPromptSubmit","user_prompt":"` + strings.Repeat("x ", 500) + `"}`,
		`[]`, `null`, `{`, "\x00\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errb bytes.Buffer
		he := &env{stdin: bytes.NewReader(data), stdout: &out, stderr: &errb, cwd: filepath.Join(dir, "nowhere"),
			getenv: func(string) string { return "" }}
		if code := he.main([]string{"inject", "--stdin"}); code != 0 {
			t.Fatalf("exit %d for %q", code, data)
		}
		if out.Len() == 0 {
			return
		}
		var ans struct {
			inject.HookOutput
			inject.StopOutput
		}
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&ans); err != nil || dec.More() {
			t.Fatalf("stdout is not one hook answer: %v %q", err, out.String())
		}
		if ans.Decision != "" {
			if ans.Decision != "block" || ans.Reason != inject.AskHandoff {
				t.Fatalf("bad stop answer: %q", out.String())
			}
			return
		}
		ctx := ans.HookSpecificOutput.AdditionalContext
		if !strings.HasPrefix(ctx, "--- Lore Context (") || !strings.HasSuffix(ctx, "--- end lore context ---") || len(ctx) > inject.MaxChars {
			t.Fatalf("bad block: %q", ctx)
		}
	})
}
