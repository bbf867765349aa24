package anchor

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"lore/record"
)

func TestParseSpec(t *testing.T) {
	good := map[string]Spec{
		"a.go":           {Path: "a.go"},
		"a.go:3":         {Path: "a.go", Start: 3, End: 3},
		"a.go:3-9":       {Path: "a.go", Start: 3, End: 9},
		"dir/a b.go:1-1": {Path: "dir/a b.go", Start: 1, End: 1},
		"c:/x":           {Path: "c:/x"}, // not a range: a colon in the path
		"a.go:x-1":       {Path: "a.go:x-1"},
		"a.go:":          {Path: "a.go:"},
	}
	for in, want := range good {
		got, err := ParseSpec(in)
		if err != nil || got != want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                          "empty path",
		":3-4":                      "no path",
		"a.go:0-3":                  "numbered from 1",
		"a.go:5-3":                  "ends before it starts",
		"a.go:99999999999999999999": "too large",
		"f\xe9.txt":                 `--file "f\xe9.txt": the path is not valid UTF-8`,
		"f\xe9.txt:1-2":             `--file "f\xe9.txt:1-2": the path is not valid UTF-8`,
	}
	for in, want := range bad {
		if _, err := ParseSpec(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSpec(%q) = %v; want an error saying %q", in, err, want)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"a.go", "a.go:3", "a.go:3-9", ":1", "a:b:1-2", "a.go:0-0", "x:9-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error for %q: %v", s, err)
			}
			return
		}
		if sp.Path == "" || sp.Start < 0 || sp.End < sp.Start || (sp.Start == 0) != (sp.End == 0) {
			t.Fatalf("ParseSpec(%q) = %+v: accepted an impossible spec", s, sp)
		}
		// What --file would print back reads as the same spec.
		back := sp.Path
		if sp.Start > 0 {
			back += ":" + strconv.Itoa(sp.Start) + "-" + strconv.Itoa(sp.End)
		}
		if again, err := ParseSpec(back); err != nil || again != sp {
			t.Fatalf("ParseSpec(%q) = %+v, but its own form %q reads as %+v, %v", s, sp, back, again, err)
		}
	})
}

func TestPathWords(t *testing.T) {
	text := `Fix rounding in internal/billing/invoice.go (see "README.md", ./cmd/main.go:42 and web/app.tsx#L3).
	Not: v1.2, e.g. and/or, https://example.com/a.go, -flag.go, ~/.bashrc, 3.14, ../up.go, /etc/passwd. Dir: internal/billing/.`
	got := strings.Join(PathWords(text), " ")
	want := "internal/billing/invoice.go README.md cmd/main.go web/app.tsx and/or internal/billing"
	if got != want {
		t.Errorf("PathWords:\n got %s\nwant %s", got, want)
	}
}

func TestMentioned(t *testing.T) {
	as := []record.Anchor{{Path: "internal/billing/invoice.go"}}
	for w, want := range map[string]bool{
		"invoice.go": true, "billing/invoice.go": true, "internal/billing": true, "internal/billing/": true,
		"internal/billing/invoice.go": true, "voice.go": false, "internal/bill": false, "other.go": false,
	} {
		if got := Mentioned(as, []string{w}); got != want {
			t.Errorf("Mentioned(%q) = %v", w, got)
		}
	}
}

// Resolve says the repository has no commits only when HEAD is unborn;
// when git fails otherwise, it says why.
func TestResolveSaysWhyHEADHasNoCommit(t *testing.T) {
	ctx := context.Background()
	specs := []Spec{{Path: "a.go"}}

	unborn := t.TempDir()
	run(t, unborn, "init", "-q")
	write(t, unborn, "a.go", "package a\n")
	g := Repo{Root: unborn, Getenv: func(string) string { return "" }}
	if _, err := g.Resolve(ctx, unborn, specs); !errors.Is(err, ErrNoCommits) {
		t.Errorf("Resolve before the first commit = %v, want ErrNoCommits", err)
	}

	// HEAD names an object the repository does not have.
	g = gitRepo(t, map[string]string{"a.go": "package a\n"})
	write(t, g.Root, ".git/HEAD", strings.Repeat("1", 40)+"\n")
	if _, err := g.Resolve(ctx, g.Root, specs); err == nil || errors.Is(err, ErrNoCommits) || !strings.Contains(err.Error(), "HEAD names no commit") {
		t.Errorf("Resolve with HEAD at a missing commit = %v", err)
	}

	// No git on PATH.
	g = gitRepo(t, map[string]string{"a.go": "package a\n"})
	t.Setenv("PATH", t.TempDir())
	_, notFound := exec.LookPath("git")
	if _, err := g.Resolve(ctx, g.Root, specs); err == nil || notFound == nil || err.Error() != "git rev-parse: "+notFound.Error() {
		t.Errorf("Resolve without git = %v, want git rev-parse: %v", err, notFound)
	}
}
