//go:build unix

package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/inject"
	"lore/receipts"
)

// BenchmarkPromptReceipt is what the memory loop adds to the prompt hook:
// the marks of the records shown and one appended receipt line.
func BenchmarkPromptReceipt(b *testing.B) {
	s := benchStore(b, 1000)
	dir := b.TempDir()
	snap, err := index.Open(context.Background(), s, index.SnapshotOptions{Tokenizer: inject.Tokenizer()})
	if err != nil {
		b.Fatal(err)
	}
	shown := snap.Records()[:3]
	log := receipts.Open(dir, "bench-session")
	for b.Loop() {
		log.Append(receipts.Event{Time: time.Now(), Event: receipts.Prompt, Full: []string{shown[0].ID, shown[1].ID},
			Summary: []string{shown[2].ID}, Chars: 900, Marks: inject.Marks(shown)})
	}
}

// BenchmarkStopHook runs the whole Stop hook in process on a 10 MB
// transcript: it reads the session's receipts and the transcript to find
// which injected records were used, and checks with git whether the
// session changed the repository (it did not, so it asks nothing).
// "next-turn": the usual Stop, after one more turn of about 3 KB (earlier
// Stops read the rest); "first-stop": lore sees the long session for the
// first time and reads its newest megabyte.
func BenchmarkStopHook(b *testing.B) {
	repo := b.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-qm", "init")
	src := filepath.Join(os.TempDir(), "lore-bench-1000", ".lore")
	benchStore(b, 1000)
	if out, err := exec.Command("cp", "-r", src, filepath.Join(repo, ".lore")).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v %s", err, out)
	}
	transcript := filepath.Join(b.TempDir(), "transcript.jsonl") // outside the repository: it must not count as a change
	var t bytes.Buffer
	for i := 0; t.Len() < 10<<20; i++ {
		fmt.Fprintf(&t, `{"type":"user","message":{"role":"user","content":"question %d about the invoice export and the deploy pipeline"}}`+"\n", i)
		fmt.Fprintf(&t, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"%s"}]}}`+"\n",
			strings.Repeat("The export runs in the worker and writes CSV files to the bucket. ", 12))
		fmt.Fprintf(&t, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./..."}}]}}`+"\n", i)
	}
	if err := os.WriteFile(transcript, t.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	run := func(in string) {
		var out bytes.Buffer
		err := inject.RunHook(context.Background(), strings.NewReader(in), &out, inject.HookEnv{Getenv: func(string) string { return "" }, Cwd: repo})
		if err != nil && !inject.IsNothing(err) {
			b.Fatal(err)
		}
	}
	run(fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, repo))
	run(fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"the invoice export times out on CI after the upgrade"}`, repo))
	git("status") // settle the index so the fingerprint is stable
	stop := fmt.Sprintf(`{"session_id":"bench","transcript_path":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done."}`, transcript, repo)
	run(stop)
	turn := t.Bytes()[:3<<10]
	turn = turn[:bytes.LastIndexByte(turn, '\n')+1]
	b.Run("next-turn", func(b *testing.B) {
		for b.Loop() {
			f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			f.Write(turn)
			f.Close()
			run(stop)
		}
	})
	marks, _ := filepath.Glob(filepath.Join(repo, ".lore", ".local", "receipts", "*.read"))
	b.Run("first-stop", func(b *testing.B) {
		for b.Loop() {
			for _, m := range marks {
				os.Remove(m)
			}
			run(stop)
		}
	})
}
