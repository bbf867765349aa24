package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lore/inject"
)

// FuzzHook feeds arbitrary bytes to hook mode: it must never panic, always
// exit 0, and print nothing or exactly one valid hook answer.
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
	for _, seed := range []string{
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
		var ans inject.HookOutput
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&ans); err != nil || dec.More() {
			t.Fatalf("stdout is not one hook answer: %v %q", err, out.String())
		}
		ctx := ans.HookSpecificOutput.AdditionalContext
		if !strings.HasPrefix(ctx, "--- Lore Context (") || !strings.HasSuffix(ctx, "--- end lore context ---") || len(ctx) > inject.MaxChars {
			t.Fatalf("bad block: %q", ctx)
		}
	})
}
