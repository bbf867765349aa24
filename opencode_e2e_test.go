package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// OpencodeVersion is the opencode release this test was written and checked
// against; .ci/install-agents installs exactly this one.
const OpencodeVersion = "1.18.33"

// opencodeMock is an OpenAI-compatible chat completions API on 127.0.0.1
// for opencode's @ai-sdk/openai-compatible provider: it records what it was
// sent and streams (SSE) what script answers, which can be a call of one of
// opencode's tools. It is also the proxy opencode is given, so any request
// for anywhere else ends here, refused and noted.
type opencodeMock struct {
	url string
	// POST /v1/chat/completions, in order.
	recorder[opencodeRequest, opencodeReply]
	// Requests meant for other hosts, under mu.
	away []string
}

// opencodeReply is one model answer: text, or a call of tool with args;
// promptTokens, when set, is the usage reported (a large one makes opencode
// compact the session).
type opencodeReply struct {
	text         string
	tool         string
	args         map[string]any
	promptTokens int
}

func opencodeNewMock(t *testing.T) *opencodeMock {
	t.Helper()
	m := &opencodeMock{recorder: recorder[opencodeRequest, opencodeReply]{dump: "opencode"}}
	m.url = serveLoopback(t, m.serve)
	return m
}

func (m *opencodeMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	line := r.Method + " " + r.URL.Path
	local := r.Method != http.MethodConnect && (r.URL.Host == "" || r.URL.Host == strings.TrimPrefix(m.url, "http://"))
	m.mu.Lock()
	m.log = append(m.log, line)
	if !local {
		m.away = append(m.away, r.Method+" "+r.Host+r.URL.Path)
	}
	m.mu.Unlock()
	if !local || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "not here", http.StatusForbidden)
		return
	}
	req := opencodeParse(string(body))
	n, script := m.add(req, body)
	rep := opencodeReply{text: "Noted."}
	if len(req.Tools) == 0 {
		rep = opencodeReply{text: "A title"} // the title, or a compaction summary
		if req.Compaction() {
			rep.text = "Summary: the user asked about the project; nothing else happened."
		}
	} else if script != nil {
		rep = script(req)
	}
	m.answer(w, n, rep)
}

// answer streams rep as chat.completion.chunk events.
func (m *opencodeMock) answer(w http.ResponseWriter, n int, rep opencodeReply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(delta any, finish any, usage any) {
		chunk := map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "mock-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	finish := "stop"
	if rep.tool != "" {
		args, _ := json.Marshal(rep.args)
		send(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": rep.tool, "arguments": string(args)}}}}, nil, nil)
		finish = "tool_calls"
	} else {
		send(map[string]any{"role": "assistant", "content": rep.text}, nil, nil)
	}
	prompt := max(rep.promptTokens, 100)
	send(map[string]any{}, finish, map[string]any{"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": prompt + 5})
	io.WriteString(w, "data: [DONE]\n\n")
}

// opencodeRequest is a chat completions request, its text by role.
type opencodeRequest struct {
	Tools  []string // the tools offered: none for a title or a compaction
	System string   // the system messages
	User   string   // the user messages' text
	Result string   // the tool results (role tool)
	Called []string // the tools the assistant called so far
}

// Compaction reports opencode's request for a summary of the session.
func (r opencodeRequest) Compaction() bool {
	return len(r.Tools) == 0 && strings.Contains(r.User, "summary") && !strings.Contains(r.User, "Generate a title")
}

func opencodeParse(body string) opencodeRequest {
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	json.Unmarshal([]byte(body), &req)
	var out opencodeRequest
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, t.Function.Name)
	}
	var system, user, result strings.Builder
	for _, msg := range req.Messages {
		var text string
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(msg.Content, &text) != nil && json.Unmarshal(msg.Content, &parts) == nil {
			for _, p := range parts {
				text += p.Text + "\n"
			}
		}
		switch msg.Role {
		case "system":
			system.WriteString(text + "\n")
		case "user":
			user.WriteString(text + "\n")
		case "tool":
			result.WriteString(text + "\n")
		}
		for _, c := range msg.ToolCalls {
			out.Called = append(out.Called, c.Function.Name)
		}
	}
	out.System, out.User, out.Result = system.String(), user.String(), result.String()
	return out
}

// TestOpencodeE2E runs the real opencode CLI against a mock of an
// OpenAI-compatible model API, in a repository where 'lore hooks install
// --agent opencode' put lore's plugin, and checks what reaches the model:
// the relevant decision with the prompt (chat.message), nothing for an
// unrelated prompt, the latest handoff in the system prompt
// (experimental.chat.system.transform), the resume view again at a
// compaction (experimental.session.compacting), a record the model makes
// through opencode's bash tool landing in the store, and, in 'opencode
// serve', lore's request for a handoff when a session that changed the
// repository goes idle (session.status), answered through the bash tool.
func TestOpencodeE2E(t *testing.T) {
	opencode := findAgentCLI(t, "opencode", "opencode", OpencodeVersion, "opencode", "LORE_OPENCODE_BIN")
	dir := t.TempDir()
	bin := buildLore(t)
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	config := filepath.Join(home, ".config")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	env := agentEnv(home, nil, "XDG_CONFIG_HOME="+config,
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	run := setupRunner(t, "opencode", repo, env)
	run("git", "init", "-q")
	run(bin, "init")
	run(bin, "remember", "Store records as append-only JSONL shards", "--rationale", "merges only ever add files")
	run(bin, "handoff", "Parser rewrite is half done", "--next", "port the date tests to the new parser")
	run(bin, "hooks", "install", "--agent", "opencode", "--scope", "project")
	run("git", "add", "-A")
	run("git", "commit", "-qm", "lore")

	// opencode reads the model from its user config: the mock as an
	// OpenAI-compatible provider.
	api := opencodeNewMock(t)
	conf, _ := json.MarshalIndent(map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": api.url + "/v1", "apiKey": "test-not-a-key"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "Mock", "tool_call": true, "limit": map[string]any{"context": 100000, "output": 4096}}},
		}},
		"model": "mock/mock-model", "small_model": "mock/mock-model",
		"autoupdate": false, "share": "disabled",
	}, "", "  ")
	os.MkdirAll(filepath.Join(config, "opencode"), 0o755)
	if err := os.WriteFile(filepath.Join(config, "opencode", "opencode.json"), conf, 0o644); err != nil {
		t.Fatal(err)
	}
	// Offline: no update check, no models.dev catalog, no sharing, no LSP
	// downloads; npm (opencode installs @opencode-ai/plugin into each
	// config directory) only from its empty cache; anything else that
	// goes out through a proxy meets the mock. lore on PATH: the model runs
	// it through opencode's bash tool. 'opencode run' takes its directory
	// from $PWD before its working directory: PWD is the repository's, and
	// so is --dir.
	ocEnv := append(env, "PWD="+repo, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
		"npm_config_offline=true", "npm_config_registry="+api.url+"/npm/",
		"HTTP_PROXY="+api.url, "HTTPS_PROXY="+api.url, "http_proxy="+api.url, "https_proxy="+api.url,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")

	// ask runs one 'opencode run' and returns the session's ID and the
	// requests the mock received.
	ask := func(part, prompt string, args ...string) (string, []opencodeRequest) {
		t.Helper()
		n := api.count()
		// One argument per word: opencode run quotes an argument with blanks.
		argv := append(append([]string{"run", "--format", "json", "--dir", repo}, args...), strings.Fields(prompt)...)
		cmd := exec.Command(opencode, argv...)
		cmd.Dir, cmd.Env = repo, ocEnv
		out := runAgentCLI(t, "opencode, "+part, cmd, 90*time.Second, api.lastLog)
		reqs := api.since(n)
		if len(reqs) == 0 {
			t.Fatalf("opencode, %s: opencode sent no request to the mock API\n%s\nrequests seen: %v", part, out, api.lastLog())
		}
		for _, r := range reqs {
			if len(r.Tools) > 0 && !strings.Contains(r.System, "Working directory: "+repo+"\n") {
				t.Fatalf("opencode, %s: opencode did not run in the test repository %s; its system prompt says:\n%s", part, repo, r.System)
			}
		}
		var session string
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && session == "" {
			var ev struct {
				SessionID string `json:"sessionID"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				session = ev.SessionID
			}
		}
		return session, reqs
	}
	// own are the requests of the agent itself (which offer tools), not
	// its title or compaction requests.
	own := func(reqs []opencodeRequest) []opencodeRequest {
		return slices.DeleteFunc(slices.Clone(reqs), func(r opencodeRequest) bool { return len(r.Tools) == 0 })
	}

	// 1 and 3. A prompt about a stored decision: the decision in a block
	// added to the user's message (chat.message), the latest handoff in the
	// session-start block in the system prompt (system.transform).
	part := "prompt about a stored decision"
	session, reqs := ask(part, "Why do we store records as JSONL shards?")
	agent := own(reqs)
	if len(agent) == 0 {
		t.Fatalf("opencode, %s: no request offered tools (the agent's own); requests seen: %v", part, api.lastLog())
	}
	if b := block(agent[0].User, "auto-injected"); !strings.Contains(b, "Store records as append-only JSONL shards -- merges only ever add files") {
		t.Errorf("opencode, %s (chat.message): the user message sent to the model has no Lore Context block with the decision; block: %q\nuser text: %q", part, b, agent[0].User)
	}
	if b := block(agent[0].System, "session resume"); !strings.Contains(b, "Parser rewrite is half done") || !strings.Contains(b, "port the date tests") {
		t.Errorf("opencode, %s (experimental.chat.system.transform): the system prompt has no session-start block with the latest handoff; block: %q", part, b)
	}
	if session == "" {
		t.Fatalf("opencode, %s: no sessionID in opencode's JSON output", part)
	}

	// 2. An unrelated prompt in a new session: no prompt block at all.
	part = "unrelated prompt"
	_, reqs = ask(part, "write a haiku about autumn leaves")
	for _, r := range reqs {
		if b := block(r.User, "auto-injected"); b != "" {
			t.Errorf("opencode, %s (chat.message): lore injected a block it should not have: %q", part, b)
		}
	}

	// 4. Compaction: the first session goes on; the model's answer reports
	// more tokens than the model's context, so opencode compacts the
	// session, and then continues it. The compaction request carries the
	// resume view (experimental.session.compacting), and so does the system
	// prompt after it.
	part = "compaction"
	api.setScript(func(r opencodeRequest) opencodeReply {
		if strings.Contains(r.User, "Continue if you have next steps") {
			return opencodeReply{text: "Nothing more to do."}
		}
		return opencodeReply{text: "The parser rewrite comes first.", promptTokens: 1_000_000}
	})
	_, reqs = ask(part, "What should I do next?", "--session", session)
	api.setScript(nil)
	var compacted, after bool
	for i, r := range reqs {
		if !r.Compaction() {
			continue
		}
		compacted = true
		if b := block(r.User, "session resume after compaction"); !strings.Contains(b, "Parser rewrite is half done") {
			t.Errorf("opencode, %s (experimental.session.compacting): the compaction request carries no 'session resume after compaction' block with the handoff; block: %q", part, b)
		}
		if n := strings.Count(r.System+r.User, "--- Lore Context (session resume"); n != 1 {
			t.Errorf("opencode, %s: the compaction request carries %d session-resume blocks, want 1 (in the compaction context, not also in its system prompt)", part, n)
		}
		for _, next := range own(reqs[i+1:]) {
			if b := block(next.System, "session resume after compaction"); strings.Contains(b, "Parser rewrite is half done") {
				after = true
			}
		}
	}
	if !compacted {
		t.Errorf("opencode, %s: opencode sent no compaction request after the mock reported an overflowing context; requests seen: %v", part, api.lastLog())
	} else if !after {
		t.Errorf("opencode, %s: no request after the compaction carried the 'session resume after compaction' block in its system prompt", part)
	}

	// 5. The memory loop: the model records a decision through opencode's
	// bash tool; opencode runs it and hands the result back.
	part = "bash tool loop"
	api.setScript(func(r opencodeRequest) opencodeReply {
		if slices.Contains(r.Called, "bash") {
			return opencodeReply{text: "Recorded the decision."}
		}
		return opencodeReply{tool: "bash", args: map[string]any{
			"command":     `lore remember "Parse dates with the new parser only" --rationale "the old one drops time zones"`,
			"description": "Record the decision in lore",
		}}
	})
	_, reqs = ask(part, "Record that we parse dates with the new parser only")
	api.setScript(nil)
	var result string
	for _, r := range reqs {
		result += r.Result
	}
	if !strings.Contains(result, "dec-") {
		t.Errorf("opencode, %s: no request carried the bash tool's result of 'lore remember' (a decision ID); tool results: %q", part, result)
	}
	if out := run(bin, "list", "decision"); !strings.Contains(out, "Parse dates with the new parser only") {
		t.Errorf("opencode, %s: the decision the model recorded through the bash tool is not in .lore/: lore list decision says\n%s", part, out)
	}

	// 6. The memory loop at a turn's end, in the server every interactive
	// opencode runs ('opencode run' exits at the first idle, so it has no
	// Stop step): a session that writes a file goes idle; lore's plugin
	// asks lore as at Claude Code's Stop and sends its reason as the next
	// prompt; the model records a handoff through the bash tool, and the
	// next idle asks nothing.
	part = "memory loop (opencode serve)"
	const reason = "recorded no handoff in lore"
	api.setScript(func(r opencodeRequest) opencodeReply {
		switch {
		case strings.Contains(r.User, reason) && strings.Contains(r.Result, "ho-"):
			return opencodeReply{text: "Recorded the handoff."}
		case strings.Contains(r.User, reason):
			return opencodeReply{tool: "bash", args: map[string]any{"description": "Record a handoff",
				"command": `lore handoff "Added NOTES.md with the setup notes" --next "Link NOTES.md from the README"`}}
		case len(r.Called) > 0:
			return opencodeReply{text: "Created NOTES.md."}
		}
		return opencodeReply{tool: "bash", args: map[string]any{"command": "printf '# Notes\\n' > NOTES.md", "description": "Write NOTES.md"}}
	})
	n := api.count()
	server := opencodeServe(t, opencode, repo, ocEnv)
	var created struct {
		ID string `json:"id"`
	}
	server.post(t, "/session", `{}`, &created)
	server.post(t, "/session/"+created.ID+"/message", `{"parts":[{"type":"text","text":"Add a NOTES.md file"}]}`, nil)
	var asked int
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		asked = 0
		for _, r := range api.since(n) {
			if strings.Contains(r.User, reason) && strings.Contains(r.Result, "ho-") {
				asked++
			}
		}
		if asked > 0 && strings.Contains(run(bin, "list", "handoff"), "Added NOTES.md with the setup notes") {
			break
		}
	}
	if _, err := os.Stat(filepath.Join(repo, "NOTES.md")); err != nil {
		t.Errorf("opencode, %s: the mock's bash call did not create NOTES.md: %v", part, err)
	}
	if asked == 0 {
		t.Errorf("opencode, %s: no request to the model carried lore's Stop reason and then the handoff's result (the plugin's idle step); requests seen: %v", part, api.lastLog())
	}
	if out := run(bin, "list", "handoff"); !strings.Contains(out, "Added NOTES.md with the setup notes") {
		t.Errorf("opencode, %s: the handoff the model recorded is not in .lore/: lore list handoff says\n%s", part, out)
	}
	time.Sleep(time.Second) // the idle after the handoff: lore must not ask again
	var asks int
	for _, r := range api.since(n) {
		asks = max(asks, strings.Count(r.User, reason))
	}
	if asks != 1 {
		t.Errorf("opencode, %s: the conversation carries lore's Stop reason %d times, want once", part, asks)
	}
	api.setScript(nil)

	api.mu.Lock()
	away := slices.Clone(api.away)
	api.mu.Unlock()
	if len(away) > 0 {
		t.Errorf("opencode: requests for other hosts reached the proxy (refused): %v", away)
	}
}

// opencodeServer is 'opencode serve' on a free port of 127.0.0.1, for the
// test's life.
type opencodeServer struct{ url string }

func opencodeServe(t *testing.T, opencode, repo string, env []string) *opencodeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var out bytes.Buffer
	cmd := exec.Command(opencode, "serve", "--hostname", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = repo, env, &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	s := &opencodeServer{url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	// A request that comes while the server is still starting can hang:
	// each try has its own short limit.
	try := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 5 * time.Second}
	var last string
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, err := try.Get(s.url + "/session")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("opencode serve did not answer on %s in 90 s (%s):\n%s", s.url, last, out.String())
		}
	}
}

// opencodeHTTP talks to the server directly, never through a proxy.
var opencodeHTTP = &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 90 * time.Second}

// post sends body to path and decodes the answer into v, if given.
func (s *opencodeServer) post(t *testing.T, path, body string, v any) {
	t.Helper()
	resp, err := opencodeHTTP.Post(s.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("opencode serve: POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("opencode serve: POST %s: %s\n%s", path, resp.Status, data)
	}
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("opencode serve: POST %s: %v\n%s", path, err, data)
		}
	}
}
