package store

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A write that fails part way leaves the shard as it was. RLIMIT_FSIZE
// makes the write fail past a size (EFBIG; Go ignores SIGXFSZ), as a full
// disk does.
func TestAppendFailureLeavesNoTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "main-x.jsonl")
	if err := os.WriteFile(path, []byte("{\"id\":\"dec-1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 20, Max: old.Max}); err != nil {
		t.Skip(err)
	}
	_, err := appendSynced(path, []byte("{\"id\":\"dec-2\",\"text\":\""+strings.Repeat("x", 100)+"\"}\n"))
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil {
		t.Fatal("the append past the size limit succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "{\"id\":\"dec-1\"}\n" {
		t.Errorf("after a failed append the shard holds %q", b)
	}
}
