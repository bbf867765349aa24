package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
