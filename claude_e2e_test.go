package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// ClaudeCodeVersion is the Claude Code release this test was written and
// checked against; .ci/run installs exactly this one.
const ClaudeCodeVersion = "2.1.330"

// mockAPI is a stand-in for the Anthropic Messages API on 127.0.0.1: it
// records what it was sent and answers each model call with what script
// says (a short text when there is no script), which can be a tool call
// that Claude Code then runs.
type mockAPI struct {
	url                     string
	recorder[string, reply] // bodies of POST /v1/messages, in order
}

// reply is one model answer: text, or a call of tool with input.
type reply struct {
	text  string
	tool  string
	input map[string]any
}

func newMockAPI(t *testing.T) *mockAPI {
	t.Helper()
	m := &mockAPI{recorder: recorder[string, reply]{dump: "claude"}}
	m.url = serveLoopback(t, m.serve)
	return m
}

func (m *mockAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.logLine(r.Method + " " + r.URL.Path)
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 100}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
		n, script := m.add(string(body), body)
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		json.Unmarshal(body, &req)
		rep := reply{text: "Noted."}
		if script != nil {
			rep = script(string(body))
		}
		m.answer(w, req.Model, req.Stream, rep, n)
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}
}

func (m *mockAPI) answer(w http.ResponseWriter, model string, stream bool, rep reply, n int) {
	usage := `{"input_tokens":100,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`
	block, stop := `{"type":"text","text":""}`, "end_turn"
	var delta string
	if rep.tool != "" {
		id := fmt.Sprintf("toolu_mock_%d", n)
		in, _ := json.Marshal(rep.input)
		partial, _ := json.Marshal(string(in))
		block, stop = fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":{}}`, id, rep.tool), "tool_use"
		delta = fmt.Sprintf(`{"type":"input_json_delta","partial_json":%s}`, partial)
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"msg_mock","type":"message","role":"assistant","model":%q,"content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}],"stop_reason":"tool_use","stop_sequence":null,"usage":%s}`, model, id, rep.tool, in, usage)
			return
		}
	} else {
		txt, _ := json.Marshal(rep.text)
		delta = fmt.Sprintf(`{"type":"text_delta","text":%s}`, txt)
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"msg_mock","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,"usage":%s}`, model, txt, usage)
			return
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	events := []struct{ name, data string }{
		{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_mock","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":%s}}`, model, usage)},
		{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":%s}`, block)},
		{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":%s}`, delta)},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":5}}`, stop)},
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

// toolUses lists the tools the assistant called in a Messages API request.
func toolUses(body string) []string {
	var names []string
	for _, b := range contentBlocks(body, "assistant") {
		if b.Type == "tool_use" {
			names = append(names, b.Name)
		}
	}
	return names
}

// toolResults joins the content of the tool results in a request.
func toolResults(body string) string {
	var out strings.Builder
	for _, b := range contentBlocks(body, "user") {
		if b.Type == "tool_result" {
			out.Write(b.Content)
		}
	}
	return out.String()
}

type contentBlock struct {
	Type    string          `json:"type"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
}

// contentBlocks are the blocks of a request's messages from role.
func contentBlocks(body, role string) []contentBlock {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal([]byte(body), &req)
	var out []contentBlock
	for _, m := range req.Messages {
		var blocks []contentBlock
		if m.Role == role && json.Unmarshal(m.Content, &blocks) == nil {
			out = append(out, blocks...)
		}
	}
	return out
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
	claude := findAgentCLI(t, "Claude Code", "claude-code", ClaudeCodeVersion, "claude", "LORE_CLAUDE_BIN")
	dir := t.TempDir()
	bin := buildLore(t)
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	env := agentEnv(home, nil)
	run := setupRunner(t, "claude", repo, env)
	run("git", "init", "-q")
	run(bin, "init")
	run(bin, "remember", "Store records as append-only JSONL shards", "--rationale", "merges only ever add files")
	// Five newer decisions keep that one out of the session-start view, whose
	// records a prompt in the same session does not repeat.
	for _, d := range []string{"Indent Makefiles with tabs", "Log through log/slog", "Name command-line flags in kebab-case", "Keep the README's install section first", "Vendor nothing"} {
		run(bin, "remember", d)
	}
	run(bin, "learn", "Run go vet before pushing", "--solution", "make lint")
	run(bin, "handoff", "Parser rewrite is half done", "--next", "port the date tests to the new parser")
	run(bin, "hooks", "install")
	// Installed at user scope too, as a user with lore in every repository
	// has it: Claude Code runs both, and lore must answer each event once.
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	run(bin, "hooks", "install", "--scope", "user")
	run("git", "add", "-A")
	run("git", "commit", "-qm", "lore")

	api := newMockAPI(t)
	// lore on PATH: the agent runs it through Claude Code's Bash tool.
	claudeEnv := append(env, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL="+api.url, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	ask := func(part string, args ...string) []string {
		t.Helper()
		n := api.count()
		cmd := exec.Command(claude, args...)
		cmd.Dir, cmd.Env = repo, claudeEnv
		out := runAgentCLI(t, part, cmd, 120*time.Second, api.lastLog)
		reqs := api.since(n)
		if len(reqs) == 0 {
			t.Fatalf("%s: claude sent no request to the mock API\n%s\nrequests seen: %v", part, out, api.lastLog())
		}
		return reqs
	}
	const session = "11111111-2222-4333-8444-555555555555"

	// 1. A prompt about a stored decision: the decision in the prompt's
	// block, the latest handoff in the session-start block. The model's
	// answer names the decision's ID, which makes it used (lore stats).
	part := "prompt about a stored decision"
	decID := regexp.MustCompile(`\[decision\] (dec-[0-9a-z]{8})`)
	api.setScript(func(body string) reply {
		if m := decID.FindStringSubmatch(body); m != nil {
			return reply{text: "We follow " + m[1] + ": shards keep merges additive."}
		}
		return reply{text: "Noted."}
	})
	var prompt, start string
	for _, r := range ask(part, "-p", "Why do we store records as JSONL shards?", "--session-id", session) {
		if b := block(r, "auto-injected"); b != "" {
			prompt = b
		}
		if b := block(r, "session resume"); b != "" {
			start = b
		}
	}
	for _, r := range api.since(0) {
		for _, what := range []string{"Lore Context (session resume", "Lore Context (auto-injected"} {
			if n := strings.Count(r, what); n > 1 {
				t.Errorf("%s: a request to the model carries %q %d times: lore's hooks at user and project scope both answered", part, what, n)
			}
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
	api.setScript(nil)
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

	// Sessions that changed nothing were never asked for a handoff.
	for _, r := range api.since(0) {
		if strings.Contains(r, "Stop hook feedback") {
			t.Errorf("a session that changed nothing was asked at Stop: %q", r[max(0, strings.Index(r, "Stop hook feedback")-50):][:200])
		}
	}

	// 4. The memory loop: a session that writes a file is asked at its
	// first Stop to record a handoff; the model records one through Claude
	// Code's Bash tool, and lore stays quiet at the Stop after.
	part = "memory loop"
	notes := filepath.Join(repo, "NOTES.md")
	// Claude Code merges a turn's messages, so the script goes by what the
	// conversation holds so far rather than by its last message.
	api.setScript(func(body string) reply {
		switch {
		case strings.Contains(body, "Added NOTES.md with the setup notes"):
			return reply{text: "Recorded the handoff."}
		case strings.Contains(body, "recorded no handoff in lore"):
			return reply{tool: "Bash", input: map[string]any{"command": `lore handoff "Added NOTES.md with the setup notes" --next "Link NOTES.md from the README"`, "description": "Record a handoff"}}
		case strings.Contains(body, `"tool_result"`):
			return reply{text: "Created NOTES.md."}
		}
		return reply{tool: "Write", input: map[string]any{"file_path": notes, "content": "# Notes\n"}}
	})
	var asked int
	for _, r := range ask(part, "-p", "Add a NOTES.md file", "--permission-mode", "acceptEdits", "--allowedTools", "Bash(lore:*)") {
		if strings.Contains(r, "Stop hook feedback") && strings.Contains(r, "recorded no handoff in lore") {
			asked++
		}
		// Claude Code shows a Stop reason twice: as feedback and as the
		// blocking error of the command that gave it.
		if n := strings.Count(r, "Stop hook blocking error from command"); n > 1 {
			t.Errorf("%s: a request carries %d Stop hooks' reasons: lore's hooks at user and project scope both asked", part, n)
		}
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("%s: the mock's Write tool call did not create NOTES.md: %v", part, err)
	}
	if asked == 0 {
		t.Errorf("%s: no request to the model carried lore's Stop reason asking for a handoff (Stop hook)", part)
	}
	if out := run(bin, "list", "handoff"); !strings.Contains(out, "Added NOTES.md with the setup notes") {
		t.Errorf("%s: the handoff the model recorded through the Bash tool is not in .lore/: lore list handoff says\n%s", part, out)
	}

	// 5. The next session starts with that handoff; it changes nothing and
	// is not asked.
	part = "next session"
	api.setScript(nil)
	found = false
	for _, r := range ask(part, "-p", "What should I do next?") {
		if b := block(r, "session resume"); strings.Contains(b, "Added NOTES.md with the setup notes") && strings.Contains(b, "Link NOTES.md from the README") {
			found = true
		}
		if strings.Contains(r, "Stop hook feedback") {
			t.Errorf("%s: a session that changed nothing was asked for a handoff", part)
		}
	}
	if !found {
		t.Errorf("%s: the next session's SessionStart block does not carry the handoff recorded in the memory loop", part)
	}

	// 7. MCP: lore mcp install writes .mcp.json. Claude Code defers MCP
	// tools, so the model first selects lore's search with ToolSearch, then
	// calls it; the tool result carries the stored decision.
	part = "mcp"
	run(bin, "mcp", "install")
	api.setScript(func(body string) reply {
		used := toolUses(body)
		switch {
		case slices.Contains(used, "mcp__lore__search"):
			return reply{text: "We store records as JSONL shards."}
		case slices.Contains(used, "ToolSearch"):
			return reply{tool: "mcp__lore__search", input: map[string]any{"query": "storage format JSONL shards"}}
		}
		return reply{tool: "ToolSearch", input: map[string]any{"query": "select:mcp__lore__search", "max_results": 5}}
	})
	found = false
	for _, r := range ask(part, "-p", "Which storage format did we choose? Look it up in lore.", "--mcp-config", ".mcp.json", "--allowedTools", "mcp__lore__search") {
		if res := toolResults(r); strings.Contains(res, "Store records as append-only JSONL shards") {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: no request carried a tool_result of mcp__lore__search with the stored decision (lore mcp install, --mcp-config .mcp.json)", part)
	}

	// 6. Receipts: the decision the model named in part 1 counts as used.
	var stats struct {
		Records []struct {
			ID       string `json:"id"`
			Injected int    `json:"injected"`
			Used     int    `json:"used"`
		} `json:"records"`
	}
	out := run(bin, "stats", "--json")
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatalf("lore stats --json: %v\n%s", err, out)
	}
	used := false
	for _, r := range stats.Records {
		if strings.HasPrefix(r.ID, "dec-") && r.Used > 0 {
			used = true
		}
	}
	if !used {
		t.Errorf("receipts: the decision the model named is not used in lore stats --json:\n%s", out)
	}
}
