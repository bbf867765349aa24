//go:build unix

package receipts

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The transcript path comes from the agent's hook input: a device or a FIFO
// there must not hold the Stop hook (nor fill its memory).
func TestReadTranscriptReadsOnlyRegularFiles(t *testing.T) {
	paths := []string{"/dev/zero", "/dev/urandom"}
	if fifo := filepath.Join(t.TempDir(), "fifo"); syscall.Mkfifo(fifo, 0o644) == nil {
		paths = append(paths, fifo)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		done := make(chan Activity, 1)
		go func() { act, _ := ReadTranscript(p, 0); done <- act }()
		select {
		case act := <-done:
			if len(act.Texts)+len(act.Commands) != 0 {
				t.Errorf("%s gave activity: %v", p, act)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadTranscript(%s) still reading after 5 s", p)
		}
	}
}
