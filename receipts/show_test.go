package receipts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const showID = "dec-k3v9q2xw7mtb"

// Every way an agent runs lore show on a record counts, as lore parses its
// arguments; a command that does not run lore show on it does not.
func TestRanShowForms(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		// lore show, its flags before or after the ID
		{"lore show dec-k3v9", true},
		{"lore show --json dec-k3v9q2xw7mtb", true},
		{"lore show dec-k3v9q2xw7mtb --json", true},
		{"lore show --json=true dec-k3v9", true},
		{"lore show -- dec-k3v9", true},
		{"lore show --dir .lore dec-k3v9", true},
		{"lore show dec-k3v9 --dir=.lore --json", true},
		// global flags before show
		{"lore --dir /srv/memory show dec-k3v9", true},
		{"lore --dir=/repo/.lore show --json dec-k3v9", true},
		{"lore -- show dec-k3v9", true},
		// the binary by path, quoted or behind an assignment or a wrapper
		{"/usr/local/bin/lore show dec-k3v9", true},
		{"/usr/local/bin/lore --dir /srv/memory show dec-k3v9 --json", true},
		{"/usr/local/bin/lore show --json dec-k3v9", true},
		{"./lore show dec-k3v9", true},
		{`"$HOME/go/bin/lore" show 'dec-k3v9'`, true},
		{"LORE_DIR=/x lore show dec-k3v9", true},
		{"env NO_COLOR=1 lore show dec-k3v9", true},
		// one command of several, with redirections and comments
		{"cd /repo && lore show dec-k3v9 2>&1 | head -40", true},
		{"lore show dec-k3v9>/tmp/out; cat /tmp/out", true},
		{"git status\nlore show --json dec-k3v9 # why", true},
		{"for i in 1; do lore show dec-k3v9; done", true},
		{"x=$(lore show --json dec-k3v9)", true},
		{"(lore show dec-k3v9)", true},
		{"lore \\\n  show dec-k3v9", true},
		{"bash -lc 'lore show dec-k3v9'", true},
		{"lore show dec-k3v9 <<'EOF'\nx\nEOF", true},

		// not a lore show, or not one naming the record
		{"echo lore show dec-k3v9", false},
		{"echo 'lore show dec-k3v9'", false},
		{`git commit -m "lore show dec-k3v9"`, false},
		{"explore show dec-k3v9", false},
		{"lore-helper show dec-k3v9", false},
		{"lore search show dec-k3v9", false},
		{"lore show --help dec-k3v9", false},
		{"lore show -h dec-k3v9", false},
		{"lore --help show dec-k3v9", false},
		{"lore -v show dec-k3v9", false},
		{"lore show dec-k3v9 dec-k3v9q2", false}, // two IDs: lore refuses
		{"lore show", false},
		{"lore show dec-k3v", false},                       // too short a prefix
		{"lore show dec-k3v9zzzz", false},                  // another record
		{"lore show --dir dec-k3v9 ho-zzzz", false},        // the ID is --dir's value
		{"lore --dir dec-k3v9 show ho-zzzz", false},        // the same, as a global flag
		{"lore show pat-k3v9", false},                      // another kind
		{"cat <<EOF\nlore show dec-k3v9\nEOF", false},      // a here-document's text
		{"cat <<-EOF\n\tlore show dec-k3v9\n\tEOF", false}, // the same, tabs stripped
		{"grep -r 'lore show dec-k3v9' . # lore show", false},
		{"lore show \"dec-k3v9 \"", false},
	} {
		if got := ranShow([]string{tc.cmd}, showID); got != tc.want {
			t.Errorf("ranShow(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

// Claude Code writes a call of lore's MCP show tool as a tool_use named
// mcp__lore__show (mcp__<server>__<tool>; lore mcp install registers the
// server as lore) with the tool's input, {"id": …}.
func TestReadTranscriptMCPShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	lines := []string{
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__lore__search","input":{"query":"header parsing"}}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"mcp__lore__show","input":{"id":"dec-k3v9"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"assistant"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"mcp__other__show","input":{"id":"fail-aaaa1111"}}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t4","name":"mcp__lore__show","input":{"id":""}}]}}`,
		// another tool's "id" of another type costs nothing else on the line
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"t5","name":"Other","input":{"id":7}}]}}`,
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	act, _ := ReadTranscript(path, 0)
	if want := []string{"dec-k3v9"}; !slices.Equal(act.Opened, want) {
		t.Errorf("opened = %q, want %q", act.Opened, want)
	}
	if want := []string{"Looking."}; !slices.Equal(act.Texts, want) {
		t.Errorf("texts = %q, want %q", act.Texts, want)
	}

	shown := map[string][]uint32{showID: nil, "fail-aaaa1111bbbb": nil, "pat-zzzz0000": nil}
	got := Uses(shown, act, nil)
	if len(got) != 1 || got[showID] != "shown" {
		t.Errorf("Uses = %v, want only %s shown", got, showID)
	}
	// The same rule as lore show's: a prefix of at least 4 characters
	// after the kind, of a record the session was shown.
	for _, id := range []string{"dec-k3v", "dec-k3v9zzzz", "pat-zzz"} {
		if got := Uses(shown, Activity{Opened: []string{id}}, nil); len(got) != 0 {
			t.Errorf("MCP show of %q counted: %v", id, got)
		}
	}
	if got := Uses(map[string][]uint32{"pat-zzzz0000": nil}, Activity{Opened: []string{showID}}, nil); len(got) != 0 {
		t.Errorf("MCP show of a record not injected counted: %v", got)
	}
}

// The tester's transcript: a Bash tool_use running lore show --json ID
// counts the record as used.
func TestUsesShowWithFlagAfterShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	line := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"lore show --json ` + showID + `"}}]}}`
	os.WriteFile(path, []byte(line+"\n"), 0o644)
	act, _ := ReadTranscript(path, 0)
	if got := Uses(map[string][]uint32{showID: nil}, act, nil); got[showID] != "shown" {
		t.Errorf("Uses = %v, want %s shown", got, showID)
	}
}

// A command is whatever an agent ran: reading it never panics, and the
// same text handed to echo as one quoted word never runs lore show.
func FuzzRanShow(f *testing.F) {
	for _, s := range []string{"lore show dec-k3v9", "cat <<EOF\nlore show dec-k3v9", "lore show 'dec-k3v9", `"\`, "2>&1 <<- $( ` #", "bash -c 'bash -c \"lore show dec-k3v9\"'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ranShow([]string{s}, showID)
		quoted := "echo '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		if ranShow([]string{quoted}, showID) {
			t.Fatalf("%q counted as lore show", quoted)
		}
	})
}
