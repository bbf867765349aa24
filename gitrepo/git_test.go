package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
)

// git's variables come from the getenv the caller passes, not from the
// process: the author override and the ceiling directories.
func TestReadHeadAndFindRepoTakeGetenv(t *testing.T) {
	root := t.TempDir()
	git(t, root, "init", "-q", "-b", "main")
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"GIT_AUTHOR_NAME": "Grace Hopper", "GIT_AUTHOR_EMAIL": "grace@example.com"}
	getenv := func(k string) string { return vars[k] }
	if h := ReadHead(sub, getenv); h.Author != "Grace Hopper <grace@example.com>" || h.Branch != "main" {
		t.Errorf("ReadHead = %+v, want the author from getenv on main", h)
	}
	if r, err := FindRepo(sub, getenv); err != nil || r.Root != root {
		t.Errorf("FindRepo = %+v, %v; want %s", r, err, root)
	}
	vars["GIT_CEILING_DIRECTORIES"] = filepath.Join(root, "a")
	if _, err := FindRepo(sub, getenv); !IsNotRepo(err) {
		t.Errorf("FindRepo climbed past the ceiling getenv gives: %v", err)
	}
	if _, err := FindRepo(sub, nil); err != nil {
		t.Errorf("FindRepo without a getenv: %v", err)
	}
}

func TestGitReason(t *testing.T) {
	for _, c := range []struct{ stderr, want string }{
		{"error: open(\".lore/x.jsonl\"): Permission denied\nfatal: cannot hash .lore/x.jsonl\n", `open(".lore/x.jsonl"): Permission denied`},
		{"warning: in the working copy of 'x', LF will be replaced\nfatal: bad revision 'HEAD'\n", "bad revision 'HEAD'"},
		{"something odd\n", "something odd"},
		{"", ""},
	} {
		if got := gitReason(c.stderr); got != c.want {
			t.Errorf("gitReason(%q) = %q, want %q", c.stderr, got, c.want)
		}
	}
}
