package inject

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// A host that writes its JSON and keeps stdin open gets an answer: the
// object is read up to its closing brace, not to the end of the stream.
func TestReadHookInputDoesNotWaitForStdinToClose(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(`{"hook_event_name":"UserPromptSubmit","prompt":"x"}` + "\n"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data, err := readHookInput(ctx, r)
	if err != nil || !strings.Contains(string(data), `"prompt":"x"`) {
		t.Fatalf("readHookInput = %q, %v", data, err)
	}
}

// Nothing on stdin within the deadline: the hook gives up, silently.
func TestReadHookInputGivesUpAtTheDeadline(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := readHookInput(ctx, r); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("readHookInput on a silent stdin: %v", err)
	}
}

func TestReadHookInputRefusesTooMuch(t *testing.T) {
	big := io.MultiReader(strings.NewReader(`{"prompt":"`), strings.NewReader(strings.Repeat("x", maxHookInput+10)), strings.NewReader(`"}`))
	if _, err := readHookInput(context.Background(), big); err == nil || !strings.Contains(err.Error(), "over 8 MiB") {
		t.Fatalf("readHookInput of %d MiB: %v", maxHookInput>>20, err)
	}
}
