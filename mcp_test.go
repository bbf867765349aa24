package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mcpClient drives a lore mcp process over stdio, one JSON-RPC line at a
// time.
type mcpClient struct {
	t    *testing.T
	in   io.WriteCloser
	out  *bufio.Reader
	cmd  *exec.Cmd
	next int
}

func startMCP(t *testing.T, bin, dir string, args ...string) *mcpClient {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LORE_DIR=", "NO_COLOR=1")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &mcpClient{t: t, in: in, out: bufio.NewReader(out), cmd: cmd}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return c
}

// rpc sends a request and returns the response with its id (a line the
// server answers with "id": null comes first when raw is bad).
func (c *mcpClient) rpc(method string, params any) map[string]any {
	c.t.Helper()
	c.next++
	id := c.next
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return c.send(string(b), float64(id))
}

func (c *mcpClient) send(line string, id any) map[string]any {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		l, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("the server closed its output after %q: %v", line, err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			c.t.Fatalf("not JSON from the server: %q", l)
		}
		if m["id"] == id {
			return m
		}
	}
	c.t.Fatalf("no answer to %q", line)
	return nil
}

func (c *mcpClient) call(tool string, args map[string]any) (text string, isError bool, structured any) {
	c.t.Helper()
	res := c.rpc("tools/call", map[string]any{"name": tool, "arguments": args})
	r, ok := res["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("tools/call %s: no result: %v", tool, res)
	}
	for _, ct := range r["content"].([]any) {
		text += ct.(map[string]any)["text"].(string)
	}
	isError, _ = r["isError"].(bool)
	return text, isError, r["structuredContent"]
}

func buildLore(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lore")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestMCPProtocol drives lore mcp as an MCP client would: initialize,
// tools/list, every tool, bad calls and bad lines, a capture that lands in
// .lore/, and a record written by another process seen without a restart.
// mcpRepo makes a git repository with a lore store (trusted: lore init
// trusts what it makes) under a HOME of the test's own, and a runner of
// bin in it.
func mcpRepo(t *testing.T, bin string) (repo string, lore func(args ...string) string) {
	t.Helper()
	repo = t.TempDir()
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config")) // lore init trusts the store there
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	lore = func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("lore %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	lore("init")
	return repo, lore
}

// initialize opens the MCP session and returns the answer to initialize.
func (c *mcpClient) initialize() map[string]any {
	c.t.Helper()
	init := c.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	io.WriteString(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return init
}

func TestMCPProtocol(t *testing.T) {
	bin := buildLore(t)
	repo, lore := mcpRepo(t, bin)
	dec := lore("remember", "Store records as append-only JSONL shards", "--rationale", "merges only ever add files")
	lore("remember", "Use chi for HTTP routing")

	c := startMCP(t, bin, repo)
	if init := c.initialize(); init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"] != "lore" {
		t.Fatalf("initialize: %v", init)
	}

	tools := map[string][]string{}
	for _, tl := range c.rpc("tools/list", map[string]any{})["result"].(map[string]any)["tools"].([]any) {
		tm := tl.(map[string]any)
		if tm["description"].(string) == "" {
			t.Errorf("tool %s has no description", tm["name"])
		}
		var props []string
		schema := tm["inputSchema"].(map[string]any)
		properties, _ := schema["properties"].(map[string]any)
		for p := range properties {
			props = append(props, p)
		}
		slices.Sort(props)
		tools[tm["name"].(string)] = props
	}
	want := map[string][]string{
		"search": {"kind", "limit", "query"}, "show": {"id"}, "resume": nil, "list": {"kind", "limit"},
		"remember": {"alternatives", "files", "rationale", "tags", "text"},
		"learn":    {"anti", "confidence", "context", "files", "solution", "tags", "text"},
		"fail":     {"error_type", "files", "tags", "text", "tool"}, "handoff": {"blocked", "files", "next", "tags", "text"},
		"observe": {"files", "tags", "text"},
	}
	if fmt.Sprint(tools) != fmt.Sprint(want) {
		t.Errorf("tools/list:\n got %v\nwant %v", tools, want)
	}

	// Read tools answer in the CLI's layout, with structured content.
	if text, isErr, st := c.call("search", map[string]any{"query": "why JSONL shards?"}); isErr || !strings.Contains(text, dec+"  ") || st == nil {
		t.Errorf("search: %q error=%v structured=%v", text, isErr, st)
	}
	if text, _, _ := c.call("show", map[string]any{"id": dec[:8]}); !strings.Contains(text, "Rationale: merges only ever add files") {
		t.Errorf("show: %q", text)
	}
	if text, _, _ := c.call("resume", map[string]any{}); !strings.Contains(text, "No handoff yet") || !strings.Contains(text, "Use chi for HTTP routing") {
		t.Errorf("resume: %q", text)
	}
	if text, _, _ := c.call("list", map[string]any{"kind": "decision", "limit": 1}); strings.Count(text, "\n") != 1 {
		t.Errorf("list --limit 1: %q", text)
	}

	// Captures land in .lore/ and return the new ID; text is scrubbed.
	captures := []struct {
		tool string
		args map[string]any
		kind string
	}{
		{"remember", map[string]any{"text": "-v is a flag-looking decision", "rationale": "token ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui leaked", "tags": []string{"mcp"}}, "decision"},
		{"learn", map[string]any{"text": "Table-driven tests", "solution": "t.Run per case", "confidence": 0.9, "anti": false}, "pattern"},
		{"fail", map[string]any{"error_type": "NonZeroExit", "text": "deploy.sh fails", "tool": "Bash"}, "failure"},
		{"handoff", map[string]any{"text": "MCP server done", "next": []string{"write the README"}, "blocked": []string{"review"}}, "handoff"},
		{"observe", map[string]any{"text": "CI is slow on Mondays"}, "observation"},
	}
	for _, cp := range captures {
		text, isErr, st := c.call(cp.tool, cp.args)
		id, _ := st.(map[string]any)["id"].(string)
		if isErr || id == "" || !strings.Contains(text, id) {
			t.Fatalf("%s: %q error=%v structured=%v", cp.tool, text, isErr, st)
		}
		// The token scrubbed is said, as the CLI says it; nothing else is.
		want := "recorded " + id
		if cp.tool == "remember" {
			want += "\nlore: redacted before writing: github-pat in rationale"
		}
		if text != want {
			t.Errorf("%s: %q, want %q", cp.tool, text, want)
		}
		if shown := lore("show", id); !strings.HasPrefix(shown, cp.kind+" ") {
			t.Errorf("%s: lore show %s says %q", cp.tool, id, shown)
		}
	}
	// A capture repeating one just made writes nothing, and says so.
	first, _, st := c.call("observe", map[string]any{"text": "CI is slow on Mondays"})
	if id, _ := st.(map[string]any)["id"].(string); id == "" || !strings.HasPrefix(first, "already recorded: "+id+" (nothing written)") {
		t.Errorf("a repeated capture: %q structured=%v", first, st)
	}
	if n := strings.Count(lore("list", "observation"), "CI is slow on Mondays"); n != 1 {
		t.Errorf("a repeated capture through MCP left %d observations", n)
	}
	if shown := lore("list", "decision"); !strings.Contains(shown, "-v is a flag-looking decision") {
		t.Errorf("a text starting with - was taken as a flag: %s", shown)
	}
	if raw, _ := exec.Command("grep", "-r", "ghp_R7xk2Lq9", filepath.Join(repo, ".lore")).Output(); len(raw) > 0 {
		t.Errorf("a secret reached .lore/ through MCP: %s", raw)
	}

	// Bad calls are tool errors with the CLI's one-line message; the server
	// goes on answering.
	for _, bad := range []struct {
		tool string
		args map[string]any
		msg  string
	}{
		{"remember", map[string]any{"text": ""}, "lore: error: remember: decision is empty"},
		{"show", map[string]any{"id": "dec-zzzzzz"}, `lore: error: no record matches "dec-zzzzzz"`},
		{"show", map[string]any{"id": "dec-"}, `lore: error: "dec-" is ambiguous`},
		{"learn", map[string]any{"text": "x", "confidence": 3}, "lore: error: learn: confidence 3 is outside 0.0-1.0"},
		{"search", map[string]any{"query": "x", "kind": "nonsense"}, "lore: error: search: "},
		{"search", map[string]any{"query": 5}, `validating /properties/query`},
		// The error, not the note on stderr before it.
		{"fail", map[string]any{"error_type": "ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui", "text": "x"}, "must be one word"},
		// A kind is never taken for a flag: no other store is read.
		{"list", map[string]any{"kind": "--dir=" + t.TempDir()}, `lore: error: list: unknown kind "--dir=`},
		// MCP input has no command line to bound it.
		{"observe", map[string]any{"text": strings.Repeat("a log line\n", 7000)}, "over the 64 KiB a record may hold"},
		// The tools' own refusals read as the CLI's errors do.
		{"search", map[string]any{"query": "x", "limit": -1}, "lore: error: search: limit must not be negative"},
		{"observe", map[string]any{"text": "x", "tags": []string{"a,b"}}, `lore: error: observe: tag "a,b" holds a comma`},
	} {
		text, isErr, _ := c.call(bad.tool, bad.args)
		if !isErr || !strings.Contains(text, bad.msg) {
			t.Errorf("%s %v: want a tool error %q, got error=%v %q", bad.tool, bad.args, bad.msg, isErr, text)
		}
		// An agent has the tool's schema, not a command line to ask for
		// --help; and every error lore words says it is one.
		if strings.Contains(text, "--help") {
			t.Errorf("%s %v: the tool error points at the CLI's help: %q", bad.tool, bad.args, text)
		}
		if !strings.HasPrefix(bad.msg, "validating") && !strings.HasPrefix(text, "lore: error: ") {
			t.Errorf("%s %v: the tool error does not start with lore: error: %q", bad.tool, bad.args, text)
		}
	}
	for _, line := range []string{"{not json", "[1,2]", `{"foo":1}`} {
		if res := c.send(line, nil); res["error"] == nil {
			t.Errorf("%q: want a JSON-RPC error, got %v", line, res)
		}
	}
	// A line too long to read is answered, by its id, and dropped; the
	// session goes on (over the SDK's 16 MiB, it ended).
	big := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"search","arguments":{"query":"` + strings.Repeat("a", 17<<20) + `"}}}`
	if res, _ := c.send(big, "big")["error"].(map[string]any); res["code"] != float64(-32600) || !strings.Contains(fmt.Sprint(res["message"]), "over the 4 MiB") {
		t.Errorf("a 17 MiB line: want a -32600 error naming the limit, got %v", res)
	}
	if res := c.rpc("tools/call", map[string]any{"name": "nosuch", "arguments": map[string]any{}}); res["error"] == nil {
		t.Errorf("unknown tool: want an error, got %v", res)
	}

	// A record another process captures is seen without a restart.
	lore("remember", "Prefer table tests over subtests with shared state")
	if text, _, _ := c.call("search", map[string]any{"query": "table tests shared state"}); !strings.Contains(text, "Prefer table tests") {
		t.Errorf("the long-lived server did not see a record captured by the CLI: %q", text)
	}

	// A store with a damaged table warns on every command: a failing
	// tool still says what failed, not the warning.
	bad := filepath.Join(repo, ".lore", "patterns", "2020-01", "main-bad.toml")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("[[pattern]]\nv = 1\nid = \"pat-broken\n"), 0o644)
	if text, isErr, _ := c.call("show", map[string]any{"id": "dec-zzzzzz"}); !isErr || !strings.HasPrefix(text, `lore: error: no record matches "dec-zzzzzz"`) {
		t.Errorf("a failing tool beside a warning: error=%v %q", isErr, text)
	}
	os.Remove(bad)

	// A call before initialize is an invalid request, with a JSON-RPC code.
	early := startMCP(t, bin, repo)
	if res, _ := early.rpc("tools/list", map[string]any{})["error"].(map[string]any); res["code"] != float64(-32600) {
		t.Errorf("tools/list before initialize: want a -32600 error, got %v", res)
	}

	// --read-only serves only the read tools.
	ro := startMCP(t, bin, repo, "--read-only")
	ro.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	var names []string
	for _, tl := range ro.rpc("tools/list", map[string]any{})["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if fmt.Sprint(names) != "[list resume search show]" {
		t.Errorf("--read-only tools: %v", names)
	}

	// An untrusted repository's memory is not read, as the hooks do not
	// show it; captures still work. --host-trusted (a project's own
	// configuration) reads it.
	lore("trust", "--revoke")
	untrusted := startMCP(t, bin, repo)
	untrusted.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	for _, read := range []struct {
		tool string
		args map[string]any
	}{{"search", map[string]any{"query": "JSONL shards"}}, {"show", map[string]any{"id": dec}}, {"resume", map[string]any{}}, {"list", map[string]any{}}} {
		if text, isErr, _ := untrusted.call(read.tool, read.args); !isErr || !strings.Contains(text, "not trusted on this machine") || strings.Contains(text, "JSONL") {
			t.Errorf("%s in an untrusted repository: error=%v %q", read.tool, isErr, text)
		}
	}
	if text, isErr, _ := untrusted.call("observe", map[string]any{"text": "noted in an untrusted clone"}); isErr {
		t.Errorf("a capture in an untrusted repository: %q", text)
	}
	if text, _, _ := untrusted.call("search", map[string]any{"query": "x"}); !strings.Contains(text, "(records can still be captured)") {
		t.Errorf("the hint of a server with capture tools: %q", text)
	}
	// A read-only server has no capture tools to mention.
	untrustedRO := startMCP(t, bin, repo, "--read-only")
	untrustedRO.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	if text, isErr, _ := untrustedRO.call("search", map[string]any{"query": "x"}); !isErr || !strings.Contains(text, "lore trust") || strings.Contains(text, "captured") {
		t.Errorf("--read-only in an untrusted repository: error=%v %q", isErr, text)
	}
	hostTrusted := startMCP(t, bin, repo, "--host-trusted")
	hostTrusted.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	if text, isErr, _ := hostTrusted.call("search", map[string]any{"query": "JSONL shards"}); isErr || !strings.Contains(text, "JSONL") {
		t.Errorf("--host-trusted: error=%v %q", isErr, text)
	}
	lore("trust")

	// No store: a tool error, not a dead server.
	nostore := startMCP(t, bin, t.TempDir())
	nostore.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	if text, isErr, _ := nostore.call("search", map[string]any{"query": "x"}); !isErr || !strings.Contains(text, "no .lore store found") {
		t.Errorf("no store: error=%v %q", isErr, text)
	}
}
