package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lore/internal/benchstore"
)

// BenchmarkSearch10k compares a search through the MCP server with the
// same search as lore search, in process, on a 10k-record store: the
// server runs the CLI's code, so it should cost the same plus the
// protocol.
func BenchmarkSearch10k(b *testing.B) {
	dir := filepath.Join(os.TempDir(), "lore-bench-10000", ".lore")
	if _, err := os.Stat(dir); err != nil {
		if err := benchstore.Generate(dir, 10000, 25, 1); err != nil {
			b.Fatal(err)
		}
	}
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cwd: filepath.Dir(dir), dir: dir,
		getenv: func(string) string { return "" }}
	const query = "the invoice export times out on CI after the upgrade"
	if code := e.main([]string{"search", query}); code != 0 { // warm the index
		b.Fatalf("search: exit %d", code)
	}
	b.Run("cli", func(b *testing.B) {
		for b.Loop() {
			e.main([]string{"search", "--limit", "20", "--", query})
		}
	})
	b.Run("mcp", func(b *testing.B) {
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		go newMCPServer(ctx, e, true, true).Run(ctx, st)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query}})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
