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

// A hook cut short after a checkout serves the directories it did not read
// as the index holds them; a record it is about to show from a shard the
// checkout removed is caught by the stat of the shown records' shards,
// and the hook reads the store again rather than show it.
func TestHookCutShortShowsNoRecordOfARemovedShard(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if _, err := store.Init(dir); err != nil {
		t.Fatal(err)
	}
	write := func(month, name, text string) string {
		ts, _ := time.Parse("2006-01", month)
		r := &record.Record{V: 1, ID: record.NewID(record.Decision, ts), Kind: record.Decision, Time: ts, Created: ts, Text: text}
		line, err := r.MarshalLine()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "journal", month, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, line, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	removed := write("2020-01", "main-old.jsonl", "the ledger service keeps its balances in cockroachdb")
	var months []string
	for i := range 24 {
		months = append(months, time.Date(2022, time.Month(i+1), 1, 0, 0, 0, 0, time.UTC).Format("2006-01"))
		write(months[i], "main-a.jsonl", fmt.Sprintf("the release train leaves on day %d", i))
	}
	hook := func(session string) string {
		t.Helper()
		var out bytes.Buffer
		in := strings.NewReader(`{"session_id":"` + session + `","hook_event_name":"UserPromptSubmit","prompt":"where does the ledger service keep its balances, cockroachdb?"}`)
		env := HookEnv{Getenv: func(string) string { return "" }, StoreDir: dir, HostTrusted: true}
		if err := RunHook(context.Background(), in, &out, env); err != nil && !strings.Contains(err.Error(), "nothing") {
			t.Fatal(err)
		}
		return out.String()
	}
	ageTree(t, dir, time.Hour)
	if got := hook("before"); !strings.Contains(got, "cockroachdb") {
		t.Fatalf("before the checkout the hook shows no record of the ledger: %q", got)
	}
	ageTree(t, dir, time.Hour) // the index's own files too: nothing is racy
	// The checkout: the ledger's shard goes, every month gets a shard.
	if err := os.Remove(removed); err != nil {
		t.Fatal(err)
	}
	for _, m := range months {
		write(m, "other-b.jsonl", "the release train waits for the tag")
	}
	defer func(b time.Duration) { HookIndexBudget = b }(HookIndexBudget)
	HookIndexBudget = time.Nanosecond // one directory a level is read
	// A new session, which has seen nothing.
	if got := hook("after"); strings.Contains(got, "cockroachdb") {
		t.Fatalf("a hook cut short showed a record of a removed shard:\n%s", got)
	}
}

// ageTree sets the mtime of everything under dir to d ago.
func ageTree(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}
