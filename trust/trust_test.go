package trust

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrustListByResolvedPath(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	getenv := func(k string) string { return env[k] }
	store := filepath.Join(t.TempDir(), "repo", ".lore")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Dir(store), link); err != nil {
		t.Fatal(err)
	}
	if Trusted(getenv, store) {
		t.Fatal("trusted before anything was added")
	}
	if added, err := Add(getenv, filepath.Join(link, ".lore")); !added || err != nil {
		t.Fatalf("Add through a link: %v %v", added, err)
	}
	if !Trusted(getenv, store) {
		t.Error("the store is not trusted under its real path")
	}
	if added, _ := Add(getenv, store); added {
		t.Error("the same store was added twice")
	}
	if list, _ := List(getenv); len(list) != 1 {
		t.Errorf("list %q, want one entry", list)
	}
	if _, err := os.Stat(filepath.Join(home, "cfg", "lore", FileName)); err != nil {
		t.Errorf("the list is not in $XDG_CONFIG_HOME/lore: %v", err)
	}
	if removed, err := Remove(getenv, store); !removed || err != nil || Trusted(getenv, store) {
		t.Errorf("Remove: %v %v, still trusted %v", removed, err, Trusted(getenv, store))
	}
	if _, err := Dir(func(string) string { return "" }); err == nil {
		t.Error("no HOME and no XDG_CONFIG_HOME gave a directory")
	}
}
