package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// GeminiCLIVersion is the Gemini CLI release (npm @google/gemini-cli) this
// test was written and checked against; .ci/install-agents installs
// exactly this one.
const GeminiCLIVersion = "0.61.0"

// geminiModel is the model the test asks for. A concrete model keeps Gemini
// CLI off its "auto" router, which would first ask a classifier model for a
// JSON verdict (and retry for a minute and a half when the mock answers
// with text).
const geminiModel = "gemini-2.5-flash"

// TestGeminiCLIE2E runs the real Gemini CLI headless ('gemini -p') against
// a mock of the Gemini API, in a repository wired with 'lore hooks install
// --agent gemini --scope project', and checks what reaches the model.
//
// How Gemini CLI 0.61.0 hands lore's answers to the model (read in its
// bundle: packages/cli/src/gemini.tsx, packages/core/src/core/client.ts,
// packages/core/src/hooks/):
//   - SessionStart's additionalContext is wrapped as
//     <hook_context>…</hook_context> and, headless, prepended to the user's
//     prompt ("\n\n" between), so BeforeAgent's "prompt" carries the resume
//     view and lore must strip it before ranking;
//   - BeforeAgent's additionalContext is appended to the prompt as a
//     separate part, wrapped the same way;
//   - both have '<' and '>' replaced by "&lt;" and "&gt;" (nothing else is
//     escaped, nothing unescapes it);
//   - there is no SessionStart after a compression (sources are startup,
//     resume and clear) and PreCompress's answer is ignored;
//   - hooks, user and project alike, run only in a trusted folder, and a
//     headless run in an untrusted one exits with an error. A user trusts
//     the folder once ("Trust folder" when Gemini CLI first starts there),
//     which writes ~/.gemini/trustedFolders.json; the test writes that file
//     the same way. The first run in the folder then warns on stderr that
//     project hooks were found, records them in ~/.gemini/trusted_hooks.json
//     and runs them.
func TestGeminiCLIE2E(t *testing.T) {
	gemini := findAgentCLI(t, "Gemini CLI", "gemini-cli", GeminiCLIVersion, "gemini", "LORE_GEMINI_BIN")
	dir := t.TempDir()
	bin := buildLore(t)
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(home, ".gemini", "policies"), 0o755)
	os.MkdirAll(repo, 0o755)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real // Gemini CLI matches trusted folders by real path
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	// Nothing of the developer's own Gemini or Google Cloud setup.
	env := agentEnv(home, []string{"GEMINI_", "GOOGLE_", "CLOUD_SHELL"})
	run := setupRunner(t, "gemini", repo, env)
	run("git", "init", "-q")
	run(bin, "init")
	// The session-resume view shows the five newest decisions: the first one
	// is older than those, so only the prompt hook (BeforeAgent) can bring it.
	run(bin, "remember", "Store records as append-only JSONL shards", "--rationale", "merges only ever add files")
	run(bin, "remember", "Indent Makefiles with tabs")
	run(bin, "remember", "Log through log/slog")
	run(bin, "remember", "Name command-line flags in kebab-case")
	run(bin, "remember", "Keep the README's install section first")
	run(bin, "remember", `Date parsers return Result<Date, ParseError> & never panic`, "--rationale", `callers decide "what next" on bad input`)
	run(bin, "handoff", "Parser rewrite is half done", "--next", "port the date tests to the new parser")
	run(bin, "hooks", "install", "--agent", "gemini", "--scope", "project")
	run("git", "add", "-A")
	run("git", "commit", "-qm", "lore")

	// The user's side, once per machine: Gemini CLI pointed at the mock
	// with an API key, no telemetry or update checks (no network but the
	// mock), and the repository trusted — what the "Trust folder" dialog
	// writes to ~/.gemini/trustedFolders.json. Its shell tool may run lore
	// without asking, by a policy rule (the headless default otherwise
	// leaves run_shell_command out). compressionThreshold: Gemini CLI
	// compresses its history at this fraction of the context window.
	writeJSON := func(path string, v any) {
		t.Helper()
		b, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"model":     map[string]any{"compressionThreshold": 0.2},
		"ui":        map[string]any{"showHomeDirectoryWarning": false},
	}
	writeJSON(filepath.Join(home, ".gemini", "settings.json"), settings)
	writeJSON(filepath.Join(home, ".gemini", "trustedFolders.json"), map[string]string{repo: "TRUST_FOLDER"})
	os.WriteFile(filepath.Join(home, ".gemini", "policies", "lore.toml"), []byte(
		"[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"lore\"\ndecision = \"allow\"\npriority = 100\n"), 0o644)

	api := newGeminiMock(t)
	// lore on PATH: the agent runs it through Gemini CLI's shell tool.
	geminiEnv := append(env, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GEMINI_API_KEY=test-not-a-key", "GOOGLE_GEMINI_BASE_URL="+api.url,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	ask := func(part string, args ...string) []*geminiRequest {
		t.Helper()
		n := api.count()
		cmd := exec.Command(gemini, append([]string{"-m", geminiModel}, args...)...)
		cmd.Dir, cmd.Env = repo, geminiEnv
		out := runAgentCLI(t, "Gemini CLI: "+part, cmd, 90*time.Second, api.lastLog)
		reqs := api.since(n)
		if len(geminiMain(reqs)) == 0 {
			t.Fatalf("Gemini CLI: %s: gemini sent no model request to the mock API\n%s\nrequests seen: %v", part, out, api.lastLog())
		}
		return reqs
	}
	// first is the text the model is shown at the first turn of a run.
	first := func(reqs []*geminiRequest) string { return geminiMain(reqs)[0].text() }
	const handoffNext = "Next: port the date tests to the new parser"

	// 1. A prompt about a stored decision: BeforeAgent answers with the
	// decision in an auto-injected block; SessionStart (source startup)
	// with the resume view, which carries the handoff.
	part := "targeted prompt (BeforeAgent)"
	api.setScript(nil)
	shown := first(ask(part, "-p", "Why do we store records as JSONL shards?"))
	if b := geminiBlock(shown, "auto-injected"); !strings.Contains(b, "Store records as append-only JSONL shards -- merges only ever add files") {
		t.Errorf("Gemini CLI: %s: the model was not shown lore's auto-injected block with the decision; block: %q", part, b)
	}
	if b := geminiBlock(shown, "session resume"); !strings.Contains(b, "Parser rewrite is half done") || !strings.Contains(b, handoffNext) {
		t.Errorf("Gemini CLI: %s: the model was not shown lore's session-resume block with the handoff (SessionStart); block: %q", part, b)
	}

	// 6. Legibility: lore's blocks reach the model as lore wrote them.
	// Gemini CLI replaces '<' and '>' in every hook's additionalContext by
	// "&lt;" and "&gt;" (and escapes nothing else), so text lore means the
	// model to read must not depend on angle brackets.
	part = "legibility"
	// A record's own '<' and '>' are escaped too; that is the host's doing,
	// reported below, and not counted against lore's framing here.
	const rawTitle, escTitle = "Result<Date, ParseError> & never panic", "Result&lt;Date, ParseError&gt; & never panic"
	for _, b := range geminiBlocks(strings.ReplaceAll(shown, escTitle, rawTitle)) {
		for _, line := range strings.Split(b, "\n") {
			for _, ent := range []string{"&lt;", "&gt;", "&amp;", "&quot;", "&#"} {
				if strings.Contains(line, ent) {
					t.Errorf("Gemini CLI: %s: a line of lore's block %q reaches the model with HTML entities (Gemini CLI replaces '<' and '>' in additionalContext by &lt; and &gt;, so lore must not write angle brackets): %q", part, strings.SplitN(b, "\n", 2)[0], line)
					break
				}
			}
		}
	}
	if !strings.Contains(shown, `callers decide "what next" on bad input`) {
		t.Errorf("Gemini CLI: %s: the decision's rationale with quotes is not shown verbatim (Gemini CLI leaves quotes alone)", part)
	}
	switch {
	case strings.Contains(shown, rawTitle):
	case strings.Contains(shown, escTitle):
		t.Logf("Gemini CLI: %s: note: a record's own '<' and '>' reach the model as &lt; and &gt;: %q", part, escTitle)
	case !strings.Contains(shown, "never panic"):
		t.Errorf("Gemini CLI: %s: the decision %q is not in what the model was shown", part, rawTitle)
	default:
		i := strings.Index(shown, "never panic")
		t.Logf("Gemini CLI: %s: note: lore rewrote the decision's angle brackets: %q", part, shown[max(0, i-40):i+len("never panic")])
	}

	// 2. An unrelated prompt: no auto-injected block. The session-resume
	// block is expected (every session starts with it); before lore strips
	// the <hook_context> Gemini folds into the prompt, that resume view was
	// ranked as if the user typed it and brought back its own records.
	part = "unrelated prompt (BeforeAgent)"
	for _, r := range geminiMain(ask(part, "-p", "write a haiku about autumn leaves")) {
		if b := geminiBlock(r.text(), "auto-injected"); b != "" {
			t.Errorf("Gemini CLI: %s: lore injected a prompt block it should not have (was the <hook_context> Gemini folds into the prompt ranked?): %q", part, b)
		}
	}

	// 3. Session start: a prompt about the handoff itself. The model must
	// be shown the handoff in full exactly once: from the session-resume
	// block, not again in the prompt block of the same session.
	part = "session start (SessionStart + BeforeAgent)"
	shown = first(ask(part, "-p", "Where did we leave the parser rewrite?"))
	if n := strings.Count(shown, handoffNext); n != 1 {
		t.Errorf("Gemini CLI: %s: the model was shown the handoff %d times, want exactly once; lore's blocks:\n%s", part, n, strings.Join(geminiBlocks(shown), "\n"))
	}

	// 5. The agent's tool loop: the model calls Gemini CLI's shell tool to
	// run 'lore remember'; the record lands in the store and the tool result
	// reaches the model.
	part = "shell tool loop"
	const learned = "Date parsing goes through the new parser only"
	api.setScript(func(r *geminiRequest) geminiReply {
		if r.toolResults("run_shell_command") != "" {
			return geminiReply{text: "Recorded the decision."}
		}
		return geminiReply{shell: `lore remember "` + learned + `" --rationale "the old parser is being removed"`}
	})
	var result string
	for _, r := range ask(part, "-p", "Record that date parsing goes through the new parser only") {
		if res := r.toolResults("run_shell_command"); res != "" {
			result = res
		}
	}
	// Gemini CLI reports "Exit Code: N" only for a command that failed.
	if !strings.Contains(result, "Output: dec-") || strings.Contains(result, "Exit Code:") {
		t.Errorf("Gemini CLI: %s: no successful run_shell_command result with the new record's ID reached the model (policy rule allowing commandPrefix lore, lore on PATH); result: %q", part, result)
	}
	if out := run(bin, "list", "decision"); !strings.Contains(out, learned) {
		t.Errorf("Gemini CLI: %s: the decision the model recorded through run_shell_command is not in .lore/: lore list decision says\n%s", part, out)
	}

	// 4. Compaction. Gemini CLI has no SessionStart source for it and runs
	// no hook after compressing (PreCompress fires before, its answer is
	// ignored), so nothing can re-deliver lore's view inside one session.
	// Headless, a compression happens in a resumed run: its SessionStart
	// (source resume) answer is folded into that run's prompt, which is
	// kept. Check that the compression happens and that the next turn still
	// shows the handoff, once.
	part = "compaction"
	api.setScript(nil)
	ask(part, "-p", "Let us look at the storage format")
	api.setScript(func(r *geminiRequest) geminiReply {
		switch {
		case r.compression():
			return geminiReply{text: "<state_snapshot>The user looked at the storage format.</state_snapshot>"}
		case r.toolResults("run_shell_command") != "":
			return geminiReply{text: "The parser rewrite is next."}
		}
		// A tool call, reporting a nearly full context window: Gemini CLI
		// compresses before the turn that sends the tool's result.
		return geminiReply{shell: "lore list handoff", tokens: 900_000}
	})
	reqs := ask(part, "--resume", "latest", "-p", "What should I do next?")
	compressed, after := false, ""
	for _, r := range reqs {
		switch {
		case r.compression():
			compressed = true
		case compressed && r.main() && after == "":
			after = r.text()
		}
	}
	if resumed := geminiMain(reqs)[0].text(); !strings.Contains(resumed, "Let us look at the storage format") {
		// Gemini CLI records the headless prompt with the SessionStart
		// context folded in front, and on --resume drops every recorded user
		// message that starts with <hook_context> (isIgnoredUserContent).
		t.Logf("Gemini CLI: %s: note: the resumed history lacks the previous run's prompt (host behaviour: a folded prompt is dropped on --resume)", part)
	}
	if !compressed {
		t.Errorf("Gemini CLI: %s: Gemini CLI did not compress its history (no <state_snapshot> request reached the mock); requests seen: %v", part, api.lastLog())
	} else if n := strings.Count(after, handoffNext); n != 1 {
		t.Errorf("Gemini CLI: %s: after compressing, the model was shown the handoff %d times, want exactly once; lore's blocks:\n%s", part, n, strings.Join(geminiBlocks(after), "\n"))
	}

	// 7. Use: the model runs lore show on the decision BeforeAgent injected,
	// and says nothing that names it: through run_shell_command, then (lore's
	// MCP server added to the user's settings, trusted) through lore's MCP
	// show tool. AfterAgent reads Gemini CLI's session file (its
	// transcript_path: JSONL, the call in the model message's toolCalls,
	// named run_shell_command with args {"command":…}, or mcp_lore_show
	// with {"id":…}) and counts the decision used, as shown, in lore stats.
	decID := regexp.MustCompile(`\[decision\] (dec-[0-9a-z]{8})`)
	for _, via := range []struct {
		tool  string
		reply func(id string) geminiReply
	}{
		{"run_shell_command", func(id string) geminiReply { return geminiReply{shell: "lore show " + id} }},
		{"mcp_lore_show", func(id string) geminiReply { return geminiReply{call: "mcp_lore_show", args: map[string]any{"id": id}} }},
	} {
		part = "lore show through " + via.tool + " counts as use"
		if via.tool == "mcp_lore_show" {
			settings["mcpServers"] = map[string]any{"lore": map[string]any{"command": bin, "args": []string{"mcp"}, "trust": true}}
			writeJSON(filepath.Join(home, ".gemini", "settings.json"), settings)
		}
		api.setScript(func(r *geminiRequest) geminiReply {
			if r.toolResults(via.tool) != "" {
				return geminiReply{text: "Done."}
			}
			if m := decID.FindStringSubmatch(geminiBlock(r.text(), "auto-injected")); m != nil {
				return via.reply(m[1])
			}
			return geminiReply{text: "Noted."}
		})
		usedBefore, _ := loreUses(t, bin, repo, env)
		short, result := "", ""
		for _, r := range ask(part, "-p", "Why do we store records as JSONL shards?") {
			if m := decID.FindStringSubmatch(geminiBlock(r.text(), "auto-injected")); m != nil {
				short = m[1]
			}
			if res := r.toolResults(via.tool); res != "" {
				result = res
			}
		}
		if short == "" {
			t.Fatalf("Gemini CLI: %s: the model was not shown the decision in lore's auto-injected block", part)
		}
		if !strings.Contains(result, short) {
			t.Errorf("Gemini CLI: %s: the tool's result sent back to the model does not show the record (did the call reach lore?): %q", part, result)
		}
		used, how := loreUses(t, bin, repo, env)
		if id := withPrefix(used, short); used[id] != usedBefore[id]+1 || how[id] != "shown" {
			t.Errorf("Gemini CLI: %s: after the agent ran lore show %s, lore stats counts the decision used %d times (before: %d) and the latest use is %q (want one more use, shown)",
				part, short, used[id], usedBefore[id], how[id])
		}
	}
}
