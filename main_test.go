package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the lore command inside scripts, so
// every script runs the real program as a separate process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lore": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar: end-to-end scenarios with real
// git in a fresh temp directory each.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}

var update = flag.Bool("update", false, "rewrite golden files in testdata/script from the actual output")

func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		// go test -run TestScripts/NAME -args -update rewrites the golden
		// files a cmp compares with, from what the commands now produce.
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitconfig := "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
			if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("NO_COLOR", "1")
			// Under -race every lore a script runs would sleep a second
			// before exiting, for goroutines still reporting (the race
			// detector's default); races are reported as they happen.
			if os.Getenv("GORACE") == "" {
				env.Setenv("GORACE", "atexit_sleep_ms=0")
			}
			for _, v := range []string{"LORE_DIR", "LORE_CONTEXT_BUDGET", "LORE_DEBUG"} {
				env.Setenv(v, "")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// setid NAME: the last command's stdout (a captured ID) into $NAME.
			"setid": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: setid NAME")
				}
				ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
			},
			// expand SRC DST: copy SRC to DST with $VARS expanded (hook JSON needs $WORK).
			"expand": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: expand SRC DST")
				}
				out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
			},
			// hookcontext EVENT: stdout is exactly one hook answer for EVENT;
			// its additionalContext goes to the file "context".
			"hookcontext": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: hookcontext EVENT")
				}
				out := ts.ReadFile("stdout")
				dec := json.NewDecoder(strings.NewReader(out))
				dec.DisallowUnknownFields()
				var ans struct {
					HookSpecificOutput struct {
						HookEventName     string `json:"hookEventName"`
						AdditionalContext string `json:"additionalContext"`
					} `json:"hookSpecificOutput"`
				}
				if err := dec.Decode(&ans); err != nil {
					ts.Fatalf("stdout is not a hook answer: %v\n%s", err, out)
				}
				if dec.More() {
					ts.Fatalf("stdout holds more than one JSON value:\n%s", out)
				}
				if got := ans.HookSpecificOutput.HookEventName; got != args[0] {
					ts.Fatalf("hookEventName %q, want %q", got, args[0])
				}
				ts.Check(os.WriteFile(ts.MkAbs("context"), []byte(ans.HookSpecificOutput.AdditionalContext), 0o644))
			},
			// maxlen N FILE: FILE holds at most N characters.
			"maxlen": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: maxlen N FILE")
				}
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				if got := utf8.RuneCountInString(ts.ReadFile(args[1])); got > n {
					ts.Fatalf("%s holds %d characters, more than %d", args[1], got, n)
				}
			},
			// lines N GLOB...: the matching files together hold exactly N non-empty lines.
			"lines": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: lines N FILE...")
				}
				n := 0
				var files []string
				for _, g := range args[1:] {
					m, _ := filepath.Glob(ts.MkAbs(g))
					if len(m) == 0 {
						ts.Fatalf("no file matches %s", g)
					}
					files = append(files, m...)
				}
				for _, f := range files {
					for _, l := range strings.Split(ts.ReadFile(f), "\n") {
						if strings.TrimSpace(l) != "" {
							n++
						}
					}
				}
				if got := strings.TrimSpace(args[0]); (got == strconv.Itoa(n)) == neg {
					ts.Fatalf("want %s lines, have %d", args[0], n)
				}
			},
		},
	}
}
