package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// README.md's "Exit codes" table is the one in app.go, row for row.
func TestExitCodesInREADME(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Exit codes\n")
	if !ok {
		t.Fatal(`README.md has no "## Exit codes" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile(`(?m)^\| *(\d+) *\| *(.*?) *\|$`)
	var got []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" "+strings.ReplaceAll(m[2], "`", "")) // backticks are Markdown's
	}
	var want []string
	for _, c := range exitCodes {
		want = append(want, strconv.Itoa(c.code)+" "+c.meaning)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README.md's exit codes:\n%s\n\nwant (app.go's exitCodes):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Each command's help is written once: the command table names it, the
// command prints it for --help, and lore --help lists every command of
// the table, once.
func TestHelpFromCommandTable(t *testing.T) {
	var main bytes.Buffer
	e := &env{stdout: &main, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }, cwd: t.TempDir()}
	if code := e.main([]string{"--help"}); code != exitOK {
		t.Fatalf("lore --help exits %d", code)
	}
	for _, c := range commands() {
		line := regexp.MustCompile("(?m)^  " + regexp.QuoteMeta(c.name) + " +" + regexp.QuoteMeta(c.summary) + "$")
		if n := len(line.FindAllString(main.String(), -1)); n != 1 {
			t.Errorf("lore --help lists %s %d times", c.name, n)
		}
		var out bytes.Buffer
		ce := &env{stdout: &out, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }, cwd: t.TempDir()}
		if code := ce.main([]string{c.name, "--help"}); code != exitOK {
			t.Errorf("lore %s --help exits %d", c.name, code)
		}
		if n := strings.Count(out.String(), "\nFlags:\n"); n > 1 {
			t.Errorf("lore %s --help lists its flags %d times: the help text is written once, the flags by the parser", c.name, n)
		}
		if c.help == "" {
			continue // built from its verbs
		}
		if !strings.HasPrefix(out.String(), strings.TrimSpace(c.help)) {
			t.Errorf("lore %s --help does not print the table's help:\n%s", c.name, out.String())
		}
		if !regexp.MustCompile(`^Usage:\s+lore ` + c.name + `\b`).MatchString(c.help) {
			t.Errorf("%s's help does not start with its usage: %.60q", c.name, c.help)
		}
	}
}

// Every verb groupVerbs lists runs through its group's dispatch, which
// has exactly those verbs (it panics otherwise), and its help starts with
// its own usage line.
func TestGroupVerbsDispatch(t *testing.T) {
	for group, verbs := range groupVerbs {
		for _, v := range verbs {
			var out bytes.Buffer
			e := &env{stdout: &out, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }, cwd: t.TempDir()}
			if code := e.main([]string{group, v, "--help"}); code != exitOK {
				t.Errorf("lore %s %s --help exits %d", group, v, code)
			}
			if !strings.Contains(out.String(), "lore "+group+" "+v) {
				t.Errorf("lore %s %s --help does not show its usage:\n%s", group, v, out.String())
			}
		}
	}
}

// Packages below the CLI never read the process environment: the CLI
// passes its env.getenv down (tests and lore mcp run commands with their
// own). Handing the environment on to git, which needs all of it, is not
// reading it.
func TestNoProcessEnvironmentBelowCLI(t *testing.T) {
	allowed := map[string]bool{"gitrepo/run.go: os.Environ": true} // git's own environment
	eachSourceFile(t, func(path string, fset *token.FileSet, f *ast.File) {
		if filepath.Dir(path) == "." {
			return // the CLI itself
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" {
				switch sel.Sel.Name {
				case "Getenv", "LookupEnv", "Environ", "ExpandEnv", "UserHomeDir", "UserConfigDir", "UserCacheDir":
					if name := filepath.ToSlash(path) + ": os." + sel.Sel.Name; !allowed[name] {
						t.Errorf("%s: %s reads the process environment; take a getenv from the CLI", fset.Position(sel.Pos()), "os."+sel.Sel.Name)
					}
				}
			}
			return true
		})
	})
}

// eachSourceFile parses every Go file of the module but tests (and
// testdata, and dot directories) and hands it to check.
func eachSourceFile(t *testing.T, check func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		check(path, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "5c8ab30f1e2d3c4b5a69788796a5b4c3d2e1f0a9"
	for _, c := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "v1.2.3"},
		{"v1.2.3", vcs(rev, "false"), "v1.2.3"},
		{"v1.2.3+dirty", vcs(rev, "true"), "v1.2.3 dirty"},
		{"(devel)", vcs(rev, "true"), "(devel) 5c8ab30 dirty, built with go1.26.8"},
		{"(devel)", vcs(rev, "false"), "(devel) 5c8ab30, built with go1.26.8"},
		{"(devel)", nil, "(devel), built with go1.26.8"},
		{"", nil, "(devel), built with go1.26.8"},
		{"v0.0.0-20261122070000-5c8ab30f1e2d+dirty", vcs(rev, "true"), "(devel) 5c8ab30 dirty, built with go1.26.8"},
		{"v1.2.4-0.20261122070000-5c8ab30f1e2d", vcs(rev, "false"), "(devel) 5c8ab30, built with go1.26.8"},
		{"v1.3.0-rc.1.0.20261122070000-5c8ab30f1e2d", vcs(rev, "false"), "(devel) 5c8ab30, built with go1.26.8"},
		{"v1.3.0-rc.1", nil, "v1.3.0-rc.1"},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "lore", Version: c.version}, Settings: c.settings}
		if got := versionOf(bi); got != c.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", c.version, c.settings, got, c.want)
		}
	}
}

// invokedAs is the path the user ran lore by: a path as given (made
// absolute against the command's directory), or a name found in the
// command's PATH; relative PATH entries are not places to hand an agent.
func TestInvokedAs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "lore"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "lore"), []byte("not executable"), 0o644)
	pathEnv := func(path string) func(string) string {
		return func(k string) string {
			if k == "PATH" {
				return path
			}
			return ""
		}
	}
	for _, c := range []struct{ argv0, path, want string }{
		{"/opt/homebrew/bin/lore", "", "/opt/homebrew/bin/lore"},
		{"./bin/lore", "", filepath.Join(dir, "bin", "lore")},
		{"lore", ".:" + dir + ":" + bin, filepath.Join(bin, "lore")}, // not ./lore, and not dir's, which does not run
		{"lore", "", ""},
		{"", bin, ""},
	} {
		e := &env{cwd: dir, argv0: c.argv0, getenv: pathEnv(c.path)}
		if got := e.invokedAs(); got != c.want {
			t.Errorf("argv0 %q, PATH %q: %q, want %q", c.argv0, c.path, got, c.want)
		}
	}
}

// The block README.md shows under "Use with your agent" is what lore
// injects for the prompt it names, from the bundled .lore-example/.
func TestREADMEInjectExample(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Use with your agent.*?gives the prompt \"(.*?)\":\n\n```\n(.*?)```").FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md: no example block with its prompt under \"Use with your agent\"")
	}
	prompt := strings.Join(strings.Fields(string(m[1])), " ")
	var out, errOut bytes.Buffer
	home := t.TempDir()
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, cwd: ".", getenv: func(k string) string {
		return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}[k]
	}}
	if code := e.main([]string{"--dir", ".lore-example", "inject", prompt}); code != 0 {
		t.Fatalf("lore inject: exit %d: %s", code, errOut.String())
	}
	if got := out.String(); got != string(m[2]) {
		t.Errorf("README.md's example block:\n%s\nlore injects:\n%s", m[2], got)
	}
}

// No package compiles a regular expression when it is initialised: Go
// initialises every linked package in every process, the prompt hook
// included, whether the expression is used or not (an export's grammar
// compiled at init cost each hook a fifth of a millisecond). Compile it
// when first used (sync.OnceValue).
func TestNoRegexpCompiledAtInit(t *testing.T) {
	eachSourceFile(t, func(_ string, fset *token.FileSet, f *ast.File) {
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called, not at init
				}
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile") {
						t.Errorf("%s: regexp.%s at package init; compile it when first used (sync.OnceValue)", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	})
}
