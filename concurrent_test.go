package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWriters starts eight real lore processes capturing at once,
// 200 records each, and checks that nothing is lost and no line is
// interleaved. It builds an ordinary binary, so it measures the real thing
// (and stays quick) under go test -race as well.
func TestConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 1,600 processes")
	}
	bin, repo := buildAndInit(t)
	const writers, each = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				cmd := exec.Command(bin, "observe", fmt.Sprintf("writer %d note %d", w, i))
				cmd.Dir = repo
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("writer %d capture %d: %v %s", w, i, err, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(repo, ".lore", "inbox", "*", "*.jsonl"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for n := 1; sc.Scan(); n++ {
			var r struct {
				ID, Text string
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil || !strings.HasPrefix(r.ID, "obs-") {
				t.Fatalf("%s:%d is not one whole record: %q", f, n, sc.Text())
			}
			if seen[r.Text] {
				t.Fatalf("%q written twice", r.Text)
			}
			seen[r.Text] = true
		}
		fh.Close()
	}
	if len(seen) != writers*each {
		t.Fatalf("%d records on disk, want %d", len(seen), writers*each)
	}
}

// buildAndInit builds lore and makes a repository with a store, with a
// home and configuration directory of the test's own (lore init adds the
// store to the trusted list there, not to the user's).
func buildAndInit(t *testing.T) (bin, repo string) {
	t.Helper()
	bin = buildLore(t)
	// After the build: go keeps its caches and settings under HOME.
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	repo = filepath.Join(dir, "repo")
	for _, args := range [][]string{{"git", "init", "-q", repo}, {bin, "--dir", filepath.Join(repo, ".lore"), "init"}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	return bin, repo
}

// TestConcurrentUpdatesAreAllKept runs eight processes validating one
// pattern at once: each validation must build on the one before it, so the
// count ends at 8.
func TestConcurrentUpdatesAreAllKept(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 40 processes")
	}
	bin, repo := buildAndInit(t)
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir = repo
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	// Confidence 0 leaves room for ten validations of 0.1 before the cap,
	// where validate becomes a no-op.
	id := strings.TrimSpace(run("learn", "retry flaky network calls", "--solution", "use backoff", "--confidence", "0"))
	const writers, each = 8, 1
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				cmd := exec.Command(bin, "patterns", "validate", id)
				cmd.Dir = repo
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("validate: %v %s", err, out)
				}
			}
		})
	}
	wg.Wait()
	var shown struct {
		Record struct {
			Validations int `json:"validations"`
		} `json:"record"`
		History []json.RawMessage `json:"history"`
	}
	if err := json.Unmarshal([]byte(run("show", id, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Record.Validations != writers*each || len(shown.History) != writers*each+1 {
		t.Fatalf("%d validations in %d versions, want %d in %d", shown.Record.Validations, len(shown.History), writers*each, writers*each+1)
	}
}
