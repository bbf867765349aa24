package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// ClaudeCodeVersion is the Claude Code release this test was written and
// checked against; .ci/run installs exactly this one.
const ClaudeCodeVersion = "2.1.329"

// findClaude locates the claude CLI: $LORE_CLAUDE_BIN, or where .ci/run
// installs it. Missing, the test fails under CI (which must install it) and
// is skipped elsewhere, saying how to run it.
func findClaude(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("LORE_CLAUDE_BIN")}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".cache", "lore-e2e", "claude-code-"+ClaudeCodeVersion, "node_modules", ".bin", "claude"))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	msg := "Claude Code not found: run .ci/install-claude-code (or set LORE_CLAUDE_BIN)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// mockAPI is a stand-in for the Anthropic Messages API on 127.0.0.1: it
// answers every model call with a short text and records what it was sent.
type mockAPI struct {
	srv  *http.Server
	url  string
	mu   sync.Mutex
	reqs []string // bodies of POST /v1/messages, in order
	log  []string // every request line, for failure messages
}

func newMockAPI(t *testing.T) *mockAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &mockAPI{url: "http://" + ln.Addr().String()}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

func (m *mockAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.log = append(m.log, r.Method+" "+r.URL.Path)
	m.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 100}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
		m.mu.Lock()
		m.reqs = append(m.reqs, string(body))
		m.mu.Unlock()
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		json.Unmarshal(body, &req)
		m.answer(w, req.Model, req.Stream, "Noted.")
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}
}

func (m *mockAPI) answer(w http.ResponseWriter, model string, stream bool, text string) {
	usage := `{"input_tokens":100,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`
	txt, _ := json.Marshal(text)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_mock","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,"usage":%s}`, model, txt, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	events := []struct{ name, data string }{
		{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_mock","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":%s}}`, model, usage)},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, txt)},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`},
		{"message_stop", `{"type":"message_stop"}`},
	}
	flusher, _ := w.(http.Flusher)
	for _, ev := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// since returns the message bodies received after the first n.
func (m *mockAPI) since(n int) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.reqs[n:]...)
}

func (m *mockAPI) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reqs)
}

// block returns lore's block with the given header prefix from a request
// body (JSON-escaped text), or "".
func block(body, header string) string {
	i := strings.Index(body, "--- Lore Context ("+header)
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], "--- end lore context ---")
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}

// TestClaudeCodeE2E runs the real Claude Code CLI against a mock of the
// model API, in a repository wired with 'lore hooks install', and checks
// what reaches the model: the relevant decision in the prompt's Lore
// Context block and the latest handoff from SessionStart; nothing for an
// unrelated prompt; the resume view again after a compaction.
func TestClaudeCodeE2E(t *testing.T) {
	claude := findClaude(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "lore")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("setup: %s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run("git", "init", "-q")
	run(bin, "init")
	run(bin, "remember", "Store records as append-only JSONL shards", "--rationale", "merges only ever add files")
	run(bin, "learn", "Run go vet before pushing", "--solution", "make lint")
	run(bin, "handoff", "Parser rewrite is half done", "--next", "port the date tests to the new parser")
	run(bin, "hooks", "install")
	run("git", "add", "-A")
	run("git", "commit", "-qm", "lore")

	api := newMockAPI(t)
	claudeEnv := append(env, "ANTHROPIC_BASE_URL="+api.url, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	ask := func(part string, args ...string) []string {
		t.Helper()
		n := api.count()
		cmd := exec.Command(claude, args...)
		cmd.Dir, cmd.Env = repo, claudeEnv
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: starting claude: %v", part, err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: claude %v: %v\n%s\nrequests seen: %v", part, args, err, out.String(), api.log)
			}
		case <-time.After(120 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: claude %v did not finish in 120s\n%s\nrequests seen: %v", part, args, out.String(), api.log)
		}
		reqs := api.since(n)
		if len(reqs) == 0 {
			t.Fatalf("%s: claude sent no request to the mock API\n%s\nrequests seen: %v", part, out.String(), api.log)
		}
		return reqs
	}
	const session = "11111111-2222-4333-8444-555555555555"

	// 1. A prompt about a stored decision: the decision in the prompt's
	// block, the latest handoff in the session-start block.
	part := "prompt about a stored decision"
	var prompt, start string
	for _, r := range ask(part, "-p", "Why do we store records as JSONL shards?", "--session-id", session) {
		if b := block(r, "auto-injected"); b != "" {
			prompt = b
		}
		if b := block(r, "session resume"); b != "" {
			start = b
		}
	}
	if !strings.Contains(prompt, "Store records as append-only JSONL shards -- merges only ever add files") {
		t.Errorf("%s: the request to the model has no Lore Context block with the decision (UserPromptSubmit hook); block: %q", part, prompt)
	}
	if !strings.Contains(start, "Parser rewrite is half done") || !strings.Contains(start, "port the date tests") {
		t.Errorf("%s: the request to the model has no session-start block with the latest handoff (SessionStart hook); block: %q", part, start)
	}

	// 2. An unrelated prompt in a new session: no prompt block at all.
	part = "unrelated prompt"
	for _, r := range ask(part, "-p", "Write a haiku about autumn leaves") {
		if b := block(r, "auto-injected"); b != "" {
			t.Errorf("%s: lore injected a block it should not have: %q", part, b)
		}
	}

	// 3. Compaction: SessionStart with source compact re-delivers the
	// resume view, which the compacted conversation carries on.
	part = "compaction"
	ask(part, "-p", "/compact", "--resume", session)
	found := false
	for _, r := range ask(part, "-p", "What should I do next?", "--resume", session) {
		if b := block(r, "session resume after compaction"); strings.Contains(b, "Parser rewrite is half done") {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: after /compact, no request carried lore's 'session resume after compaction' block (SessionStart source compact)", part)
	}
}
