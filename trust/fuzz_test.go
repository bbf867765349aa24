package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The trusted list is a file the user may edit by hand: whatever it holds,
// List never panics and reads exactly its entries (each non-blank line
// not starting with #, trimmed), in order, or fails. Entries read write
// back to a list that reads the same, and trusting one more store keeps
// every entry already there: no edit of the list loses one.
func FuzzTrustList(f *testing.F) {
	f.Add([]byte("# Stores whose memory lore injects into agents (lore trust, lore init). One path per line.\n/home/ada/src/lore/.lore\n/home/ada/work/api/.lore\n"))
	f.Add([]byte("/home/ada/src/lore/.lore\r\n\r\n   # indented comment\n\t/srv/repo with spaces/.lore \n/home/ada/src/lore/.lore"))
	f.Add([]byte("#\n#/not/an/entry\n\x00\xff\n/a\x1b[31m/.lore\n"))
	f.Add([]byte("/before/.lore\n" + strings.Repeat("x", 70<<10) + "\n/after/.lore\n"))
	f.Add([]byte{})
	home := f.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	getenv := func(k string) string { return env[k] }
	dir, err := Dir(getenv)
	if err != nil {
		f.Fatal(err)
	}
	storeDir := filepath.Join(home, "repo", ".lore")
	for _, d := range []string{dir, storeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		list, err := List(getenv)
		if err != nil {
			return
		}
		var want []string
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				want = append(want, l)
			}
		}
		if !slices.Equal(list, want) {
			t.Fatalf("List read %.200q from %.500q, want %.200q", list, data, want)
		}

		if err := write(getenv, list); err != nil {
			t.Fatal(err)
		}
		if back, err := List(getenv); err != nil || !slices.Equal(back, list) {
			t.Fatalf("%.200q written back reads as %.200q, %v", list, back, err)
		}

		_, added, err := Add(getenv, storeDir)
		if err != nil {
			t.Fatal(err)
		}
		after, err := List(getenv)
		if err != nil {
			t.Fatal(err)
		}
		if k := key(storeDir); added && !slices.Equal(after, append(slices.Clone(list), k)) || !added && !slices.Equal(after, list) || !Trusted(getenv, storeDir) {
			t.Fatalf("trusting %s in %.200q (added %v) left %.200q", k, list, added, after)
		}
	})
}
