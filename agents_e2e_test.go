package main

import (
	"os"
	"path/filepath"
	"testing"
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
