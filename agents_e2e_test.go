package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The end-to-end tests drive the real agent programs (Claude Code, Codex
// CLI, Gemini CLI, opencode), each pinned by a version constant in its test
// file, which .ci/install-agents reads and installs from npm into
// ~/.cache/lore-e2e/<name>-<version>.

// findAgentCLI locates an agent program: $envVar, or where
// .ci/install-agents puts it. Missing, the test fails under CI (which must
// install it) and is skipped elsewhere, saying how to install it.
func findAgentCLI(t *testing.T, title, name, version, bin, envVar string) string {
	t.Helper()
	candidates := []string{os.Getenv(envVar)}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".cache", "lore-e2e", name+"-"+version, "node_modules", ".bin", bin))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	msg := title + " " + version + " not found: run .ci/install-agents " + name + " (or set " + envVar + ")"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// setupRunner runs setup commands in dir with env, failing the test (named
// for client) on the first that fails.
func setupRunner(t *testing.T, client, dir string, env []string) func(name string, args ...string) string {
	return func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s setup: %s %v: %v\n%s", client, name, args, err, out)
		}
		return string(out)
	}
}

// runAgentCLI runs an agent program to completion, for at most limit, and
// fails the test (naming the client and the part) if it fails or hangs.
// A command started in its own process group is killed with its children.
func runAgentCLI(t *testing.T, what string, cmd *exec.Cmd, limit time.Duration, seen func() []string) string {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: starting %s: %v", what, cmd.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v: %v\n%s\nrequests seen: %v", what, cmd.Args, err, out.String(), seen())
		}
	case <-time.After(limit):
		if cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s: %v did not finish in %v\n%s\nrequests seen: %v", what, cmd.Args, limit, out.String(), seen())
	}
	return out.String()
}

// serveLoopback serves handler on a free port of 127.0.0.1 until the test
// ends, and returns its URL: the agents' model APIs are mocked there.
func serveLoopback(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// agentEnv is the environment an agent program runs in: this process's,
// without the variables of the developer's own setup for that agent (names
// starting with one of drop), with a private HOME, no system git config and
// no colour, then extra.
func agentEnv(home string, drop []string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(drop, func(p string) bool { return strings.HasPrefix(name, p) }) {
			env = append(env, kv)
		}
	}
	return append(append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1"), extra...)
}

// recorder is what every agent's mock model API keeps: each request line
// (for failure messages), the requests it answered, and the script the
// test sets to answer the next ones. Mocks embed it.
type recorder[Req, Reply any] struct {
	dump   string // names the files LORE_E2E_DUMP=dir asks for: dir/<dump>-req-001.json, …
	mu     sync.Mutex
	log    []string
	reqs   []Req
	script func(Req) Reply
}

// setScript makes the mock answer with script until the next call.
func (r *recorder[Req, Reply]) setScript(script func(Req) Reply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.script = script
}

func (r *recorder[Req, Reply]) logLine(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, line)
}

// add records a request to answer, as decoded and as received, and returns
// its number (from 1) and the script to answer it with (nil: none set).
func (r *recorder[Req, Reply]) add(req Req, body []byte) (int, func(Req) Reply) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	n, script := len(r.reqs), r.script
	r.mu.Unlock()
	if dir := os.Getenv("LORE_E2E_DUMP"); dir != "" {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-req-%03d.json", r.dump, n)), body, 0o644)
	}
	return n, script
}

// count is how many requests the mock answered.
func (r *recorder[Req, Reply]) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// since returns the requests answered after the first n.
func (r *recorder[Req, Reply]) since(n int) []Req {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs[n:])
}

// lastLog is the last few request lines, for failure messages.
func (r *recorder[Req, Reply]) lastLog() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log[max(0, len(r.log)-10):])
}

// loreUses is what lore says of the records used in repo: for each record
// (its full ID), how many sessions used it (lore stats --json), and how
// the latest use was made (named, shown or restated), from the sessions'
// receipts in .lore/.local/receipts.
func loreUses(t *testing.T, bin, repo string, env []string) (map[string]int, map[string]string) {
	t.Helper()
	cmd := exec.Command(bin, "stats", "--json")
	cmd.Dir, cmd.Env = repo, env
	out, err := cmd.Output()
	var rep struct {
		Records []struct {
			ID   string `json:"id"`
			Used int    `json:"used"`
		} `json:"records"`
	}
	if err != nil || json.Unmarshal(out, &rep) != nil {
		t.Fatalf("lore stats --json: %v\n%s", err, out)
	}
	used := map[string]int{}
	for _, r := range rep.Records {
		used[r.ID] = r.Used
	}
	how, at := map[string]string{}, map[string]time.Time{}
	files, _ := filepath.Glob(filepath.Join(repo, ".lore", ".local", "receipts", "*.jsonl"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(data), "\n") {
			var ev struct {
				T     time.Time         `json:"t"`
				Event string            `json:"event"`
				Uses  map[string]string `json:"uses"`
			}
			if json.Unmarshal([]byte(line), &ev) != nil || ev.Event != "used" {
				continue
			}
			for id, h := range ev.Uses {
				if !ev.T.Before(at[id]) {
					how[id], at[id] = h, ev.T
				}
			}
		}
	}
	return used, how
}

// withPrefix is the key of m that starts with short (a record's short
// ID), or short.
func withPrefix[V any](m map[string]V, short string) string {
	for id := range m {
		if strings.HasPrefix(id, short) {
			return id
		}
	}
	return short
}
