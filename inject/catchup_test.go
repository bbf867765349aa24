package inject

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/record"
	"lore/store"
)

// A hook that leaves shards unread for want of time asks, once it has
// answered, for the index to catch up (lore index in the background); a
// hook whose index is current does not.
func TestHookThatFallsBehindAsksToCatchUp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if _, err := store.Init(dir); err != nil {
		t.Fatal(err)
	}
	var asked []string
	hook := func() {
		t.Helper()
		var out bytes.Buffer
		in := strings.NewReader(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"which database do we use for billing"}`)
		env := HookEnv{Getenv: func(string) string { return "" }, StoreDir: dir, HostTrusted: true,
			CatchUp: func(d string) { asked = append(asked, d) }}
		_ = RunHook(context.Background(), in, &out, env)
	}
	hook() // builds the index of the empty store
	hook()
	if len(asked) != 0 {
		t.Fatalf("a hook with a current index asked to catch up: %v", asked)
	}
	// A pull of 6,000 shards: far more than a prompt's budget reads.
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6000 {
		ts := base.Add(time.Duration(i) * time.Hour)
		r := &record.Record{V: 1, ID: record.NewID(record.Decision, ts), Kind: record.Decision, Time: ts, Created: ts,
			Text: fmt.Sprintf("use postgres %d for billing", i)}
		line, err := r.MarshalLine()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "journal", ts.Format("2006-01"), fmt.Sprintf("main-%04d.jsonl", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, line, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hook()
	if len(asked) != 1 || asked[0] != dir {
		t.Fatalf("a hook that read part of a 6,000-shard pull asked to catch up %d times (%v)", len(asked), asked)
	}
}
