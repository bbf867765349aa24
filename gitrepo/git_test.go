package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// The author comes from git's config files as git reads them, found with
// the getenv given: the repository's config over the global ones over the
// system one, value by value; git config itself agrees.
func TestAuthorFromConfigFiles(t *testing.T) {
	root, home, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	git(t, root, "init", "-q", "-b", "main")
	system := filepath.Join(t.TempDir(), "gitconfig")
	write(t, system, "[user]\n\tname = System\n\temail = system@example.com\n")
	write(t, filepath.Join(xdg, "git", "config"), "[User]\n\tName = \"Ada \\\"the\\\" Lovelace\"\n")
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg, "GIT_CONFIG_SYSTEM": system}
	getenv := func(k string) string { return vars[k] }
	check := func(want string) {
		t.Helper()
		if got := ReadHead(root, getenv).Author; got != want {
			t.Errorf("author = %q, want %q", got, want)
		}
		env := []string{"PATH=" + os.Getenv("PATH")}
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
		var gits []string
		for _, key := range []string{"user.name", "user.email"} {
			cmd := exec.Command("git", "-C", root, "config", key)
			cmd.Env = env
			out, _ := cmd.Output() // exits 1 when unset
			gits = append(gits, strings.TrimSpace(string(out)))
		}
		if got := formatAuthor(gits[0], gits[1]); got != want {
			t.Errorf("git config says %q, the test wants %q", got, want)
		}
	}
	check(`Ada "the" Lovelace <system@example.com>`)
	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\temail = ada@example.com\n")
	check(`Ada "the" Lovelace <ada@example.com>`)
	git(t, root, "config", "user.email", "ada@repo.example.com")
	check(`Ada "the" Lovelace <ada@repo.example.com>`)
	vars["GIT_CONFIG_NOSYSTEM"] = "1"
	delete(vars, "XDG_CONFIG_HOME") // now $HOME/.config/git/config, which is absent
	check("ada@repo.example.com")
	vars["GIT_CONFIG_GLOBAL"] = system // the only global file: ~/.gitconfig is not read
	git(t, root, "config", "--unset", "user.email")
	check("System <system@example.com>")
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

// A rebase stopped on a conflict detaches HEAD; what is captured meanwhile
// belongs to the branch being rebased, for both of git's rebase back ends.
func TestReadHeadDuringARebase(t *testing.T) {
	for _, backend := range []string{"merge", "apply"} {
		root := t.TempDir()
		git(t, root, "init", "-q", "-b", "main")
		write(t, filepath.Join(root, "f"), "base\n")
		git(t, root, "add", "f")
		git(t, root, "commit", "-qm", "base")
		git(t, root, "checkout", "-qb", "feature")
		write(t, filepath.Join(root, "f"), "feature\n")
		git(t, root, "commit", "-qam", "feature")
		git(t, root, "checkout", "-q", "main")
		write(t, filepath.Join(root, "f"), "main\n")
		git(t, root, "commit", "-qam", "main")
		cmd := exec.Command("git", "-C", root, "rebase", "--"+backend, "main", "feature")
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("%s: the rebase did not stop on its conflict: %s", backend, out)
		}
		if h := ReadHead(root, os.Getenv); h.Branch != "feature" || h.Commit == "" {
			t.Errorf("%s: ReadHead = %+v during a rebase of feature, want branch feature", backend, h)
		}
		git(t, root, "rebase", "--abort")
		git(t, root, "checkout", "-q", "--detach", "main")
		if h := ReadHead(root, os.Getenv); h.Branch != "" {
			t.Errorf("%s: ReadHead = %+v on a detached HEAD, want no branch", backend, h)
		}
	}
}
