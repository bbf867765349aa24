//go:build unix

package anchor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A file git may not read is unchecked, alone: the files hashed in the
// same git hash-object are fresh or changed as they are. (Root reads any
// file: the test needs another user.)
func TestUnreadableFileAlone(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file whatever its mode")
	}
	ctx := context.Background()
	g := gitRepo(t, map[string]string{"a.go": lines(3), "b.go": lines(4), "c.go": lines(5), "d.go": lines(6)})
	as, err := g.Resolve(ctx, g.Root, []Spec{{Path: "a.go"}, {Path: "b.go"}, {Path: "c.go"}, {Path: "d.go"}})
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(g.Root, "b.go")
	if err := os.Chmod(b, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(b, 0o644) })
	write(t, g.Root, "c.go", lines(7))
	got := NewChecker(g, filepath.Join(t.TempDir(), "anchors")).Check(ctx, as)
	want := []string{"a.go unchanged", "b.go not checked: git gave no answer for it", "c.go changed since, 2 lines", "d.go unchanged"}
	for i, st := range got {
		if st.Describe() != want[i] {
			t.Errorf("anchor %d: %q, want %q", i, st.Describe(), want[i])
		}
	}
}
