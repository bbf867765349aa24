//go:build unix

package anchor

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe where the anchored file was is changed, and is not read:
// hash-object would wait on it for a writer until its timeout.
func TestFileBecameAPipe(t *testing.T) {
	ctx := context.Background()
	g := gitRepo(t, map[string]string{"a.go": lines(10)})
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "a.go"}})
	if err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(g.Root, "a.go")
	if err := os.Remove(full); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(full, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	st := NewChecker(g, filepath.Join(t.TempDir(), "anchors")).Check(ctx, as)[0]
	if st.Status != Changed || st.Describe() != "a.go changed since: it is now a named pipe" {
		t.Errorf("%s %q, want changed, a named pipe", st.Status, st.Describe())
	}
}
