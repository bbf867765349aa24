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

// ReleaseReplaced lets go of the mappings of files replaced or removed
// since, and of those only.
func TestReleaseReplacedKeepsCurrentFiles(t *testing.T) {
	ReleaseReplaced() // what earlier tests mapped
	dir := t.TempDir()
	kept, replaced, removed := filepath.Join(dir, "kept"), filepath.Join(dir, "replaced"), filepath.Join(dir, "removed")
	for _, p := range []string{kept, replaced, removed} {
		if err := os.WriteFile(p, []byte("segment "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Map(p); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := Map(kept)
	os.WriteFile(replaced+".tmp", []byte("segment new"), 0o644)
	os.Rename(replaced+".tmp", replaced)
	os.Remove(removed)
	if n := ReleaseReplaced(); n != 2 {
		t.Errorf("released %d mappings, want 2", n)
	}
	if b, _ := Map(kept); string(b) != "segment kept" || &a[0] != &b[0] {
		t.Errorf("the current file's mapping was not kept: %q", b)
	}
	if b, _ := Map(replaced); string(b) != "segment new" {
		t.Errorf("the replaced file maps as %q", b)
	}
	if n := ReleaseReplaced(); n != 0 {
		t.Errorf("released %d mappings of current files", n)
	}
}

func TestReadGivesTheBytesForTheCallOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index")
	if err := os.WriteFile(path, []byte("DIRC and more"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := Read(path, func(data []byte) error { got = string(data); return nil }); err != nil || got != "DIRC and more" {
		t.Errorf("Read = %q, %v", got, err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if err := Read(empty, func(data []byte) error { got = string(data); return nil }); err != nil || got != "" {
		t.Errorf("Read of an empty file = %q, %v", got, err)
	}
	if err := Read(filepath.Join(dir, "missing"), func([]byte) error { t.Error("called for a missing file"); return nil }); !os.IsNotExist(err) {
		t.Errorf("Read of a missing file = %v, want not exist", err)
	}
}
