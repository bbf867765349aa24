package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"lore/internal/mmapfile"
)

// A long-running lore mcp lets go of the index files a merge replaced:
// before, every segment it had mapped stayed mapped (and its deleted
// file's disk space taken) until the agent's session ended. Calls run at
// once in the SDK, so a burst of searches and captures sent together must
// all be answered while files are replaced and released under them.
func TestMCPReleasesReplacedIndexFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/maps")
	}
	bin := buildLore(t)
	repo, _ := mcpRepo(t, bin)
	c := startMCP(t, bin, repo)
	c.initialize()

	// deleted counts the process's mappings of index files since removed.
	deleted := func() (mapped, gone int) {
		maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", c.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(maps), "\n") {
			if strings.Contains(l, filepath.Join(".lore", ".local", "index")) {
				mapped++
				if strings.HasSuffix(l, "(deleted)") {
					gone++
				}
			}
		}
		return mapped, gone
	}
	for i := range 12 {
		if _, isErr, _ := c.call("observe", map[string]any{"text": fmt.Sprintf("invoice export %d retried after the queue came back", i)}); isErr {
			t.Fatalf("observe %d failed", i)
		}
		if text, isErr, _ := c.call("search", map[string]any{"query": "invoice export"}); isErr || !strings.Contains(text, "invoice export") {
			t.Fatalf("search %d: %q", i, text)
		}
	}
	if mapped, gone := deleted(); mapped == 0 || gone > 0 {
		t.Errorf("after 12 captures and searches: %d index files mapped, %d of them deleted, want some and none", mapped, gone)
	}

	// A burst: every request written before any answer is read.
	var burst strings.Builder
	first := c.next + 1
	for i := range 24 {
		c.next++
		call := map[string]any{"name": "search", "arguments": map[string]any{"query": "queue invoice"}}
		if i%4 == 0 {
			call = map[string]any{"name": "observe", "arguments": map[string]any{"text": fmt.Sprintf("burst note %d on the invoice queue", i)}}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": "tools/call", "params": call})
		burst.Write(append(b, '\n'))
	}
	if _, err := io.WriteString(c.in, burst.String()); err != nil {
		t.Fatal(err)
	}
	answered := map[float64]bool{}
	for len(answered) < 24 {
		line, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatalf("the server stopped after %d of 24 answers: %v", len(answered), err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		res, ok := m["result"].(map[string]any)
		if !ok || res["isError"] == true {
			t.Fatalf("a call of the burst failed: %s", line)
		}
		answered[m["id"].(float64)] = true
	}
	if !answered[float64(first)] || !answered[float64(c.next)] {
		t.Errorf("answers %v, want ids %d to %d", answered, first, c.next)
	}
	c.call("search", map[string]any{"query": "burst note"}) // runs alone: the burst's replaced files are let go after it
	if mapped, gone := deleted(); mapped == 0 || gone > 0 {
		t.Errorf("after the burst: %d index files mapped, %d of them deleted, want some and none", mapped, gone)
	}
}

// An idle server lets go of index files another process replaced (a
// hook's background catch-up merging the index) without waiting for a
// next call, which may never come.
func TestIdleServerReleasesReplacedFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/maps")
	}
	path := filepath.Join(t.TempDir(), "segment.seg")
	if err := os.WriteFile(path, []byte("an index segment"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mmapfile.Map(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".new", []byte("its replacement"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil { // as a merge replaces one
		t.Fatal(err)
	}
	held := func() bool {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(maps), path+" (deleted)")
	}
	if !held() {
		t.Fatal("the replaced file is not mapped to begin with")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&toolCalls{every: 5 * time.Millisecond}).releaseIdle(ctx)
	for deadline := time.Now().Add(5 * time.Second); held(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("an idle server still maps the replaced file after 5 s")
		}
	}
}
