//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// codexEventLabels maps hooks/list's eventName to the hooks.json key.
var codexEventLabels = map[string]string{"userPromptSubmit": "UserPromptSubmit", "sessionStart": "SessionStart", "stop": "Stop"}

// codexHookMeta is one hook as Codex's app-server lists it.
type codexHookMeta struct {
	Key         string  `json:"key"`
	EventName   string  `json:"eventName"`
	Command     string  `json:"command"`
	Matcher     *string `json:"matcher"`
	TimeoutSec  int     `json:"timeoutSec"`
	SourcePath  string  `json:"sourcePath"`
	Source      string  `json:"source"`
	CurrentHash string  `json:"currentHash"`
	TrustStatus string  `json:"trustStatus"`
}

// codexAppServer talks JSON-RPC to `codex app-server` over stdio, the
// protocol Codex's own TUI uses to list hooks and record their trust.
type codexAppServer struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	next  int
	errs  *bytes.Buffer
}

func codexStartAppServer(t *testing.T, codex, dir string, env []string) *codexAppServer {
	t.Helper()
	cmd := exec.Command(codex, "app-server")
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errs := &bytes.Buffer{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		t.Fatalf("codex hook trust: starting codex app-server: %v", err)
	}
	a := &codexAppServer{cmd: cmd, in: in, lines: make(chan string, 64), errs: errs}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			a.lines <- sc.Text()
		}
		close(a.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	return a
}

// call sends a request and returns its result, skipping notifications.
func (a *codexAppServer) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	a.next++
	id := a.next
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if _, err := a.in.Write(append(msg, '\n')); err != nil {
		t.Fatalf("codex hook trust: app-server %s: %v\n%s", method, err, a.errs)
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				t.Fatalf("codex hook trust: app-server exited during %s\n%s", method, a.errs)
			}
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(line), &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue
			}
			if resp.Error != nil {
				t.Fatalf("codex hook trust: app-server %s failed: %s", method, resp.Error)
			}
			return resp.Result
		case <-timeout:
			t.Fatalf("codex hook trust: app-server gave no answer to %s in 30s\n%s", method, a.errs)
		}
	}
}

func (a *codexAppServer) notify(t *testing.T, method string) {
	msg, _ := json.Marshal(map[string]any{"method": method})
	a.in.Write(append(msg, '\n'))
}

// listHooks returns the hooks Codex sees in dir, and its warnings.
func (a *codexAppServer) listHooks(t *testing.T, dir string) ([]codexHookMeta, []string) {
	t.Helper()
	var list struct {
		Data []struct {
			Hooks    []codexHookMeta `json:"hooks"`
			Warnings []string        `json:"warnings"`
			Errors   json.RawMessage `json:"errors"`
		} `json:"data"`
	}
	raw := a.call(t, "hooks/list", map[string]any{"cwds": []string{dir}})
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Data) == 0 {
		t.Fatalf("codex hook trust: unexpected hooks/list answer %s (%v)", raw, err)
	}
	return list.Data[0].Hooks, list.Data[0].Warnings
}
