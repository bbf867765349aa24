package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"lore/config"

	"github.com/rogpeppe/go-internal/diff"
)

// The golden tests run every human-readable command on a copy of the
// example store (.lore-example) with the clock pinned to goldenNow, and
// compare what it prints with testdata/golden/<case>.golden. The files are
// also the documentation of lore's output: read them when changing it.
//
// After an intended change to the output, rewrite them with
//
//	go test -run TestGolden . -args -update
//
// (the -update flag in main_test.go, shared with the testscript goldens)
// and review the diff.

// goldenNow is "now" for every command: two days after the example
// store's last handoff.
var goldenNow = time.Date(2026, 11, 6, 9, 0, 0, 0, time.UTC)

// goldenAuthor commits to the fixture repositories.
const goldenAuthor = "Priya Raman <priya@ledgerline.dev>"

// exampleHandoffCommit is the commit the example store's last handoff
// (ho-tzwbe8tx) names; the fixture repository's copy points it at a commit
// of its own, so resume has commits to show since the handoff.
const exampleHandoffCommit = "bf0d7c1c1e21862ab8a18a8902073fec8df4f509"

type goldenCase struct {
	name string   // testdata/golden/<name>.golden
	dir  string   // where it runs: "example", "repo" or "hooks" (see TestGolden)
	args []string // lore's arguments
}

var goldenCases = []goldenCase{
	// Help.
	{"help", "example", []string{"--help"}},
	{"help-remember", "example", []string{"remember", "--help"}},

	// Reading the example store (no git: a plain directory).
	{"list", "example", []string{"--dir", ".lore-example", "list"}},
	{"list-decision", "example", []string{"--dir", ".lore-example", "list", "decision"}},
	{"list-limit", "example", []string{"--dir", ".lore-example", "list", "--limit", "5"}},
	{"show-decision", "example", []string{"--dir", ".lore-example", "show", "dec-9q9g8xe6"}},    // abandoned: two versions
	{"show-pattern", "example", []string{"--dir", ".lore-example", "show", "pat-qgc1trtd"}},     // deprecated
	{"show-failure", "example", []string{"--dir", ".lore-example", "show", "fail-4sxwf6e9"}},    // recurring NonZeroExit
	{"show-handoff", "example", []string{"--dir", ".lore-example", "show", "ho-tzwbe8tx"}},      // the latest handoff
	{"show-observation", "example", []string{"--dir", ".lore-example", "show", "obs-ncbx2krq"}}, // promoted to a pattern
	{"resume-no-git", "example", []string{"--dir", ".lore-example", "resume", "--no-git"}},
	{"inject", "example", []string{"--dir", ".lore-example", "inject", "make migrate fails with exit 2 on deploy"}},
	{"inject-explain", "example", []string{"--dir", ".lore-example", "inject", "--explain", "make migrate fails with exit 2 on deploy"}},
	{"inject-nothing", "example", []string{"--dir", ".lore-example", "inject", "rename the logo file"}},
	{"export", "example", []string{"--dir", ".lore-example", "export"}},
	{"doctor", "example", []string{"--dir", ".lore-example", "doctor"}},

	// The example store as .lore in a git repository with commits since
	// the handoff, an uncommitted file and an uncommitted record.
	{"resume", "repo", []string{"resume"}},
	{"status", "repo", []string{"status"}},

	// A repository with Claude Code's hooks installed in project scope.
	{"hooks-status", "hooks", []string{"hooks", "status"}},
}

func TestGolden(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fixtures link lore on PATH to the test binary")
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found")
	}
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	goldenEnv(t, work, gitBin)
	dirs := map[string]string{
		"example": goldenExample(t, work),
		"repo":    goldenRepo(t, work),
		"hooks":   goldenHooks(t, work),
	}
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			dir := dirs[c.dir]
			stdout, stderr, code := goldenRun(dir, c.args...)
			got := formatGolden(c.args, stdout, stderr, code)
			got = strings.ReplaceAll(got, filepath.Join(work, "home"), "$HOME")
			got = strings.ReplaceAll(got, work, "$WORK")
			path := filepath.Join("testdata", "golden", c.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v\n(run 'go test -run TestGolden . -args -update' to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s:\n%s\nIf the new output is intended, run\n\tgo test -run 'TestGolden/%s$' . -args -update\nand review the diff.",
					path, diff.Diff(path, want, "got", []byte(got)), c.name)
			}
		})
	}
}

// goldenRun runs lore in-process in dir, as main does but with the clock
// pinned, and returns what it printed and its exit code.
func goldenRun(dir string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: os.Getenv, cwd: dir,
		now: func() time.Time { return goldenNow }}
	code = e.main(args)
	return out.String(), errb.String(), code
}

// formatGolden is a golden file: the command line, its stdout, then its
// stderr and exit code when there are any.
func formatGolden(args []string, stdout, stderr string, code int) string {
	var b strings.Builder
	b.WriteString("$ lore")
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString("\n")
	b.WriteString(stdout)
	if stderr != "" {
		b.WriteString("-- stderr --\n" + stderr)
	}
	if code != 0 {
		b.WriteString("-- exit " + strconv.Itoa(code) + " --\n")
	}
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\|&;<>()*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// goldenEnv makes the process environment the same on every machine:
// HOME and XDG_CONFIG_HOME in work (hooks status and trust read them), no
// system or user git config beyond a fixed identity, no lore or git
// variables from the caller, and a PATH holding git and lore (hooks
// status checks that the hook's binary exists, and is this lore).
func goldenEnv(t *testing.T, work, gitBin string) {
	home := filepath.Join(work, "home")
	bin := filepath.Join(work, "bin")
	for _, d := range []string{home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitconfig := "[user]\n\tname = Priya Raman\n\temail = priya@ledgerline.dev\n[init]\n\tdefaultBranch = main\n"
	writeFile(t, filepath.Join(home, ".gitconfig"), gitconfig)
	// The lore on PATH is this one, as on a user's machine (hooks status
	// names a hook that runs another): a link to the test binary, which
	// nothing here runs.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "lore")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+filepath.Dir(gitBin))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CEILING_DIRECTORIES", work)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("TZ", "UTC")
	for _, v := range []string{
		"LORE_DIR", "LORE_CONTEXT_BUDGET", "LORE_DEBUG", "CODEX_HOME", "USERPROFILE",
		"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_CONFIG_GLOBAL",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
	} {
		t.Setenv(v, "") // restored after the test
		os.Unsetenv(v)
	}
}

// goldenExample is a plain directory holding a copy of the example store,
// so the commands' index caches stay out of the repository.
func goldenExample(t *testing.T, work string) string {
	dir := filepath.Join(work, "example")
	copyStore(t, ".lore-example", filepath.Join(dir, ".lore-example"))
	return dir
}

// goldenRepo is a git repository: a commit, pushed to origin; the example
// store (its last handoff made at that commit); a commit after the
// handoff; then an uncommitted change to a file and an uncommitted
// observation.
func goldenRepo(t *testing.T, work string) string {
	dir := filepath.Join(work, "repo")
	git(t, dir, "", "init", "--quiet")
	git(t, dir, "", "symbolic-ref", "HEAD", "refs/heads/main") // whatever init.defaultBranch says
	writeFile(t, filepath.Join(dir, "README.md"), "# ledgerline\n\nInvoicing for small agencies.\n")
	writeFile(t, filepath.Join(dir, "internal/webhook/stripe.go"), "package webhook\n\n// Dedupe drops events already seen, by event ID.\n")
	git(t, dir, "", "add", ".")
	git(t, dir, "2026-11-04T17:30:00Z", "commit", "--quiet", "-m", "Dedupe Stripe webhooks on the event ID")
	head := strings.TrimSpace(git(t, dir, "", "rev-parse", "HEAD"))
	remote := filepath.Join(work, "origin.git")
	git(t, work, "", "init", "--quiet", "--bare", remote)
	git(t, dir, "", "remote", "add", "origin", remote)
	git(t, dir, "", "push", "--quiet", "-u", "origin", "main")

	store := filepath.Join(dir, ".lore")
	copyStore(t, ".lore-example", store)
	shard := filepath.Join(store, "transfer", "2026-11", "main-bf0d7c1-r8t2vw.jsonl")
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(exampleHandoffCommit)) {
		t.Fatalf("%s no longer names commit %s", shard, exampleHandoffCommit)
	}
	writeFile(t, shard, strings.ReplaceAll(string(b), exampleHandoffCommit, head))
	git(t, dir, "", "add", ".")
	git(t, dir, "2026-11-04T17:45:00Z", "commit", "--quiet", "-m", "lore: handoff")

	writeFile(t, filepath.Join(dir, ".github/workflows/ci.yml"), "name: ci\non: push\n")
	git(t, dir, "", "add", ".")
	git(t, dir, "2026-11-05T16:20:00Z", "commit", "--quiet", "-m", "Run the webhook replay test against stripe-mock in CI")
	head = strings.TrimSpace(git(t, dir, "", "rev-parse", "HEAD"))

	writeFile(t, filepath.Join(dir, "internal/webhook/stripe.go"), "package webhook\n\n// Dedupe drops events already seen, by event ID.\n// TODO: invoice.paid after invoice.voided\n")
	obs := `{"v":1,"id":"obs-q4m7stvb1m6jz3g00","kind":"observation","ts":"2026-11-05T16:30:00Z","created":"2026-11-05T16:30:00Z",` +
		`"text":"stripe-mock never sends invoice.voided, so the out-of-order case needs a hand-written fixture","tags":["stripe","webhooks"],` +
		`"author":"` + goldenAuthor + `","branch":"main","commit":"` + head + `"}` + "\n"
	writeFile(t, filepath.Join(store, "inbox", "2026-11", "main-"+head[:7]+"-k3m9qa.jsonl"), obs)
	return dir
}

// goldenHooks is a git repository with Claude Code's hooks installed in
// project scope, with the command teams commit.
func goldenHooks(t *testing.T, work string) string {
	dir := filepath.Join(work, "hooks")
	git(t, dir, "", "init", "--quiet")
	if out, errs, code := goldenRun(dir, "hooks", "install", "--command", "lore inject --stdin"); code != 0 {
		t.Fatalf("lore hooks install: exit %d\n%s%s", code, out, errs)
	}
	return dir
}

// git runs git in dir (made if missing), committing at date when given.
func git(t *testing.T, dir, date string, args ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if date != "" {
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// copyStore copies the store at src to dst, without its per-checkout
// .local directory.
func copyStore(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if rel == ".local" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The bundled example store's config says every value is the built-in
// default: it must be what lore init writes.
func TestExampleConfigIsTheDefault(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(".lore-example", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != config.DefaultConfig {
		t.Fatal(".lore-example/config.toml differs from what lore init writes (config.DefaultConfig): copy it from a fresh 'lore init'")
	}
}
