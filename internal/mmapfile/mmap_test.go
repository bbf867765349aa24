//go:build unix

package mmapfile

import (
	"os"
	"path/filepath"
	"testing"
)

// One file, unchanged, is mapped once however often it is asked for (lore
// mcp runs command after command); a file replaced, or grown, is mapped
// anew and reads as it is now.
func TestMapsAFileOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg")
	if err := os.WriteFile(path, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Map(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Map(path)
	if string(a) != "first" || &a[0] != &b[0] {
		t.Errorf("mapped twice, or wrong: %q %q", a, b)
	}
	// Replaced, as lore replaces files (a new inode, renamed over it).
	tmp := path + ".tmp"
	os.WriteFile(tmp, []byte("second!"), 0o644)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	c, _ := Map(path)
	if string(c) != "second!" || string(a) != "first" {
		t.Errorf("after a replace: new %q, old %q", c, a)
	}
	// Grown in place: the old mapping is too short for it.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(" more")
	f.Close()
	if d, _ := Map(path); string(d) != "second! more" {
		t.Errorf("after growing: %q", d)
	}
}
