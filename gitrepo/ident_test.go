package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// identEnv clears what git reads an identity from, but HOME, for one case.
func identEnv(t *testing.T, home string) {
	t.Helper()
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"EMAIL", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
		"XDG_CONFIG_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// gitVarAuthor is git var GIT_AUTHOR_IDENT in dir, without the date.
func gitVarAuthor(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "var", "GIT_AUTHOR_IDENT")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git var GIT_AUTHOR_IDENT: %v\n%s", err, out)
	}
	line := strings.TrimSuffix(string(out), "\n")
	for range 2 { // the date: seconds and zone
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("git var GIT_AUTHOR_IDENT: %q", out)
		}
		line = line[:i]
	}
	return line
}

// newRepo makes a repository at dir (its parents made), on branch.
func newRepo(t *testing.T, dir, branch string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", branch)
	return dir
}

// The author lore records is the one git commits with: each case builds
// real config files in a temporary HOME and compares ReadHead's author
// with git var GIT_AUTHOR_IDENT run in the same place. needGit says lore
// must ask git (what it does not evaluate); otherwise it must not.
func TestAuthorIsGitsAuthor(t *testing.T) {
	const me = "[user]\n\tname = Personal\n\temail = me@home.example\n"
	for _, c := range []struct {
		name    string
		want    string
		needGit bool
		setup   func(t *testing.T, home string) (dir string)
	}{
		{name: "include.path relative to the including file", want: "Inc Luded <inc@example.com>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = .gitconfig.d/me\n")
				write(t, filepath.Join(home, ".gitconfig.d", "me"), "[user]\n\tname = Inc Luded\n\temail = inc@example.com\n")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "include.path from ~ in the repository's config", want: "Tilde <tilde@example.com>", needGit: true,
			setup: func(t *testing.T, home string) string {
				dir := newRepo(t, filepath.Join(home, "r"), "main")
				write(t, filepath.Join(home, "id.inc"), "[user]\n\tname = Tilde\n\temail = tilde@example.com\n")
				git(t, dir, "config", "include.path", "~/id.inc")
				return dir
			}},
		{name: "an include overrides what comes before it, not after", want: "Included <after@example.com>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Before\n[include]\n\tpath = a.inc\n[user]\n\temail = after@example.com\n")
				write(t, filepath.Join(home, "a.inc"), "[include]\n\tpath = b.inc\n[user]\n\tname = Included\n")
				write(t, filepath.Join(home, "b.inc"), "[user]\n\tname = Nested\n\temail = nested@example.com\n")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "includeIf gitdir matching", want: "Personal <me@work.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				return newRepo(t, filepath.Join(home, "work", "r"), "main")
			}},
		{name: "includeIf gitdir not matching", want: "Personal <me@home.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				return newRepo(t, filepath.Join(home, "play", "r"), "main")
			}},
		{name: "includeIf gitdir/i", want: "Personal <me@work.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir/i:~/WORK/\"]\n\tpath = work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				return newRepo(t, filepath.Join(home, "work", "r"), "main")
			}},
		{name: "includeIf gitdir is case-sensitive", want: "Personal <me@home.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir:~/WORK/\"]\n\tpath = work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				return newRepo(t, filepath.Join(home, "work", "r"), "main")
			}},
		{name: "includeIf gitdir relative pattern", want: "Personal <me@work.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir:work/*/.git\"]\n\tpath = work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				return newRepo(t, filepath.Join(home, "work", "r"), "main")
			}},
		{name: "includeIf gitdir ./ and **", want: "Personal <me@work.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir:./src/**/deep/\"]\n\tpath = work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				return newRepo(t, filepath.Join(home, "src", "a", "b", "deep"), "main")
			}},
		{name: "includeIf gitdir through a symbolic link to HOME", want: "Personal <me@work.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				real := filepath.Join(home, "real")
				link := filepath.Join(home, "link")
				if err := os.MkdirAll(real, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(real, link); err != nil {
					t.Fatal(err)
				}
				t.Setenv("HOME", link)
				write(t, filepath.Join(link, ".gitconfig"), me+"[includeIf \"gitdir:~/work/\"]\n\tpath = work.inc\n")
				write(t, filepath.Join(link, "work.inc"), "[user]\n\temail = me@work.example\n")
				newRepo(t, filepath.Join(real, "work", "r"), "main")
				return filepath.Join(link, "work", "r")
			}},
		{name: "includeIf onbranch on an unborn branch", want: "Personal <me@feature.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"onbranch:feat/\"]\n\tpath = feat.inc\n")
				write(t, filepath.Join(home, "feat.inc"), "[user]\n\temail = me@feature.example\n")
				return newRepo(t, filepath.Join(home, "r"), "feat/x")
			}},
		{name: "includeIf onbranch on another branch", want: "Personal <me@home.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"onbranch:feat/\"]\n\tpath = feat.inc\n")
				write(t, filepath.Join(home, "feat.inc"), "[user]\n\temail = me@feature.example\n")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "includeIf gitdir in a linked worktree", want: "Personal <me@work.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir:~/work/\"]\n\tpath = work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				dir := newRepo(t, filepath.Join(home, "work", "r"), "main")
				git(t, dir, "commit", "-q", "--allow-empty", "-m", "c")
				wt := filepath.Join(home, "elsewhere", "wt")
				git(t, dir, "worktree", "add", "-q", wt)
				return wt
			}},
		{name: "includeIf hasconfig: asks git", want: "Personal <me@forge.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"hasconfig:remote.*.url:https://forge.example/**\"]\n\tpath = forge.inc\n")
				write(t, filepath.Join(home, "forge.inc"), "[user]\n\temail = me@forge.example\n")
				dir := newRepo(t, filepath.Join(home, "r"), "main")
				git(t, dir, "remote", "add", "origin", "https://forge.example/x.git")
				return dir
			}},
		{name: "an include lore cannot evaluate, without an identity", want: "Personal <me@home.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"hasconfig:remote.*.url:https://forge.example/**\"]\n\tpath = forge.inc\n")
				write(t, filepath.Join(home, "forge.inc"), "[core]\n\teditor = vi\n")
				dir := newRepo(t, filepath.Join(home, "r"), "main")
				git(t, dir, "remote", "add", "origin", "https://forge.example/x.git")
				return dir
			}},
		{name: "a bracket expression asks git", want: "Personal <me@work.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[includeIf \"gitdir:~/w[aeiou]rk/\"]\n\tpath = work.inc\n")
				write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = me@work.example\n")
				return newRepo(t, filepath.Join(home, "work", "r"), "main")
			}},
		{name: "author.* over user.*", want: "Author Name <author@example.com>",
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[author]\n\tname = Author Name\n\temail = author@example.com\n")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "author.name alone", want: "Author Name <me@home.example>",
			setup: func(t *testing.T, home string) string {
				dir := newRepo(t, filepath.Join(home, "r"), "main")
				write(t, filepath.Join(home, ".gitconfig"), me)
				git(t, dir, "config", "author.name", "Author Name")
				return dir
			}},
		{name: "GIT_AUTHOR_NAME with the email from config", want: "EnvName <me@home.example>",
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me)
				t.Setenv("GIT_AUTHOR_NAME", "EnvName")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "GIT_AUTHOR_EMAIL over author.email", want: "Author Name <env@example.com>",
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me+"[author]\n\tname = Author Name\n\temail = author@example.com\n")
				t.Setenv("GIT_AUTHOR_EMAIL", "env@example.com")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "EMAIL when no config gives one", want: "Named <mail@example.com>",
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Named\n")
				t.Setenv("EMAIL", "mail@example.com")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "config.worktree with extensions.worktreeConfig", want: "Personal <wt@example.com>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me)
				dir := newRepo(t, filepath.Join(home, "r"), "main")
				git(t, dir, "commit", "-q", "--allow-empty", "-m", "c")
				wt := filepath.Join(home, "wt")
				git(t, dir, "worktree", "add", "-q", wt)
				git(t, dir, "config", "extensions.worktreeConfig", "true")
				git(t, wt, "config", "--worktree", "user.email", "wt@example.com")
				git(t, dir, "config", "--worktree", "user.email", "main-wt@example.com")
				return wt
			}},
		{name: "config.worktree of the main worktree", want: "Personal <main-wt@example.com>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me)
				dir := newRepo(t, filepath.Join(home, "r"), "main")
				git(t, dir, "config", "extensions.worktreeConfig", "true")
				git(t, dir, "config", "--worktree", "user.email", "main-wt@example.com")
				return dir
			}},
		{name: "config.worktree without the extension", want: "Personal <me@home.example>",
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me)
				dir := newRepo(t, filepath.Join(home, "r"), "main")
				write(t, filepath.Join(dir, ".git", "config.worktree"), "[user]\n\temail = ignored@example.com\n")
				return dir
			}},
		{name: "GIT_CONFIG_COUNT", want: "Counted <me@home.example>", needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), me)
				t.Setenv("GIT_CONFIG_COUNT", "1")
				t.Setenv("GIT_CONFIG_KEY_0", "User.Name")
				t.Setenv("GIT_CONFIG_VALUE_0", "Counted")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "values as git's parser reads them", want: `Ada ; "q"   x <ada@example.com>`, needGit: true,
			setup: func(t *testing.T, home string) string {
				write(t, filepath.Join(home, ".gitconfig"), "\xef\xbb\xbf# c\n[User] ; c\n\tNAME = \" Ada ; \\\"q\\\" \"\t x. # c\n\temail = <ada@\\\nexample.com>\r\n")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
		{name: "GIT_CONFIG_NOSYSTEM=0 reads the system file", want: "System <system@example.com>",
			setup: func(t *testing.T, home string) string {
				system := filepath.Join(home, "system")
				write(t, system, "[user]\n\tname = System\n\temail = system@example.com\n")
				t.Setenv("GIT_CONFIG_SYSTEM", system)
				t.Setenv("GIT_CONFIG_NOSYSTEM", "0")
				return newRepo(t, filepath.Join(home, "r"), "main")
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			identEnv(t, home)
			dir := c.setup(t, home)
			want := gitVarAuthor(t, dir)
			if want != c.want {
				t.Fatalf("git var says %q, the case expects %q", want, c.want)
			}
			if got := ReadHead(dir, os.Getenv).Author; got != want {
				t.Errorf("ReadHead's author = %q, git's is %q", got, want)
			}
			r, err := FindRepo(dir, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := configAuthor(r, os.Getenv); ok == c.needGit {
				t.Errorf("configAuthor asks git: %v, want %v", !ok, c.needGit)
			}
		})
	}
}
