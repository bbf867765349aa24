package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A user's file lore writes to (an agent's settings, an export) is written
// as an editor saves it: through a link, even one to a file not made yet;
// never over a file without write permission; a failure names the file.
func TestWriteThrough(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "settings.json")
	os.WriteFile(ro, []byte("{}\n"), 0o444)
	if err := WriteThrough(ro, []byte("x")); err == nil || !strings.Contains(err.Error(), ro+" is read-only") {
		t.Errorf("read-only file: %v", err)
	}
	if got, _ := os.ReadFile(ro); string(got) != "{}\n" {
		t.Errorf("read-only file now %q", got)
	}

	link := filepath.Join(dir, "link.json")
	os.Symlink("dotfiles/settings.json", link)
	os.Mkdir(filepath.Join(dir, "dotfiles"), 0o755)
	if err := WriteThrough(link, []byte("y")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to a file not made yet was replaced: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "dotfiles", "settings.json")); string(got) != "y" {
		t.Errorf("the link's target holds %q", got)
	}

	if os.Geteuid() == 0 {
		return // root writes in a read-only directory
	}
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o555)
	target := filepath.Join(locked, "settings.json")
	if err := WriteThrough(target, []byte("z")); err == nil || !strings.Contains(err.Error(), "write "+target+": ") || strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("read-only directory: %v", err)
	}
}
