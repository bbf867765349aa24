//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// CodexVersion is the Codex CLI release this test was written and checked
// against; .ci/install-agents installs exactly this one.
const CodexVersion = "0.169.0"

// TestCodexE2E runs the real Codex CLI (codex exec) against a mock of the
// Responses API, in a repository wired with 'lore hooks install --agent
// codex', and checks what reaches the model: the relevant decision for a
// prompt, the handoff at session start and again after a compaction,
// nothing for an unrelated prompt; and that the agent's own tool loop can
// run lore.
func TestCodexE2E(t *testing.T) {
	codex := findAgentCLI(t, "Codex CLI", "codex", CodexVersion, "codex", "LORE_CODEX_BIN")
	dir := t.TempDir()
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	bin := buildLore(t)
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	codexHome := filepath.Join(dir, "codex-home")
	for _, d := range []string{home, repo, codexHome} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	env := agentEnv(home, []string{"CODEX_", "OPENAI_"})
	run := setupRunner(t, "codex", repo, env)
	run("git", "init", "-q")
	run(bin, "init")
	run(bin, "remember", "Store records as append-only JSONL shards", "--rationale", "merges only ever add files")
	// Newer decisions push that one out of the session-start view (the
	// newest five), so only the prompt hook can bring it back.
	for _, d := range []string{"Timestamps are UTC everywhere", "The CLI makes no network calls", "Record IDs carry a kind prefix",
		"Releases are built with goreleaser", "Diagnostics go to stderr only"} {
		run(bin, "remember", d)
	}
	run(bin, "learn", "Run go vet before pushing", "--solution", "make lint")
	run(bin, "handoff", "Parser rewrite is half done", "--next", "port the date tests to the new parser")
	t.Logf("lore hooks install --agent codex --scope project:\n%s", run(bin, "hooks", "install", "--agent", "codex", "--scope", "project"))
	run("git", "add", "-A")
	run("git", "commit", "-qm", "lore")

	api := codexNewMock(t)
	// Everything Codex would fetch besides the model (update checks,
	// plugins, analytics) is off; a dead proxy catches anything left, so
	// the only network is the mock on 127.0.0.1.
	config := fmt.Sprintf(`model = "mock-model"
model_provider = "mock"
check_for_update_on_startup = false
model_auto_compact_token_limit = 5000

[model_providers.mock]
name = "mock"
base_url = %q
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
apps = false
remote_plugin = false
`, api.url)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	codexEnv := append(env, "CODEX_HOME="+codexHome,
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "ALL_PROXY=http://127.0.0.1:9",
		"http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9", "all_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")

	// ask runs codex exec and returns the requests the mock received.
	ask := func(part string, args ...string) ([]codexRequest, string) {
		t.Helper()
		n := api.count()
		cmd := exec.Command(codex, append([]string{"exec", "--color", "never"}, args...)...)
		cmd.Dir, cmd.Env = repo, codexEnv
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out := runAgentCLI(t, "codex "+part, cmd, 120*time.Second, api.lastLog)
		reqs := api.since(n)
		if len(reqs) == 0 {
			t.Fatalf("codex %s: codex exec sent no request to the mock API\n%s\nrequests seen: %v", part, out, api.lastLog())
		}
		return reqs, out
	}

	// 0. Trust, the way a user does it. Codex loads .codex/ only in a
	// trusted project: 'codex exec --trust' records that. Each hook must
	// then be trusted by hash, or codex exec skips it without a word; the
	// TUI does it (at start, or /hooks) through the app-server, as here.
	part := "project trust"
	st := exec.Command(bin, "hooks", "status", "--agent", "codex", "--scope", "project")
	st.Dir, st.Env = repo, codexEnv
	if out, _ := st.CombinedOutput(); !strings.Contains(string(out), "until you trust the project") {
		t.Errorf("codex %s: before 'codex exec --trust', lore hooks status does not say the project is untrusted:\n%s", part, out)
	}
	reqs, out := ask(part, "--trust", "Say hello")
	cfg, _ := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	if !strings.Contains(string(cfg), fmt.Sprintf("[projects.%q]", repo)) || !strings.Contains(string(cfg), `trust_level = "trusted"`) {
		t.Errorf("codex %s: codex exec --trust did not record the project as trusted in config.toml:\n%s\n%s", part, cfg, out)
	}
	for _, r := range reqs {
		if b := r.loreBlock(""); b != "" {
			t.Errorf("codex %s: a hook ran before the user trusted it (Codex should skip untrusted hooks): %q", part, b)
		}
	}

	part = "hook trust"
	// loreStatus is what 'lore hooks status' says keeps Codex from running
	// each of lore's hooks, which must agree with Codex's own trust status.
	loreStatus := func() map[string]string {
		t.Helper()
		cmd := exec.Command(bin, "hooks", "status", "--agent", "codex", "--scope", "project", "--json")
		cmd.Dir, cmd.Env = repo, codexEnv
		out, err := cmd.Output()
		var rows []struct {
			Events []struct {
				Event     string `json:"event"`
				Installed bool   `json:"installed"`
				Problem   string `json:"problem"`
			} `json:"events"`
		}
		if err != nil || json.Unmarshal(out, &rows) != nil || len(rows) != 1 {
			t.Fatalf("codex %s: lore hooks status --json: %v\n%s", part, err, out)
		}
		got := map[string]string{}
		for _, ev := range rows[0].Events {
			got[ev.Event] = ev.Problem
		}
		return got
	}
	app := codexStartAppServer(t, codex, repo, codexEnv)
	app.call(t, "initialize", map[string]any{"clientInfo": map[string]any{"name": "lore-e2e", "version": "0"}})
	app.notify(t, "initialized")
	hooksFile := filepath.Join(repo, ".codex", "hooks.json")
	var edits []map[string]any
	lore := 0
	listed, warnings := app.listHooks(t, repo)
	status := loreStatus()
	for _, h := range listed {
		if !strings.Contains(h.Command, bin+" inject --stdin") {
			continue
		}
		lore++
		event := codexEventLabels[h.EventName]
		if h.TrustStatus != "untrusted" {
			t.Errorf("codex %s: lore's new %s hook is %q before anyone trusted it", part, event, h.TrustStatus)
		}
		if p := status[event]; !strings.Contains(p, "not trusted by Codex") {
			t.Errorf("codex %s: Codex calls lore's %s hook untrusted, lore hooks status says %q", part, event, p)
		}
		edits = append(edits, map[string]any{"keyPath": fmt.Sprintf("hooks.state.%q.trusted_hash", h.Key), "value": h.CurrentHash, "mergeStrategy": "replace"})
	}
	if lore != 3 {
		t.Fatalf("codex %s: Codex lists %d of lore's hooks in %s (want UserPromptSubmit, SessionStart, Stop); its warnings: %q", part, lore, hooksFile, warnings)
	}
	app.call(t, "config/batchWrite", map[string]any{"edits": edits})
	listed, _ = app.listHooks(t, repo)
	status = loreStatus()
	for _, h := range listed {
		if strings.Contains(h.Command, bin+" inject --stdin") && h.TrustStatus != "trusted" {
			t.Errorf("codex %s: lore's %s hook is still %q after recording its trust", part, h.EventName, h.TrustStatus)
		}
	}
	for event, p := range status {
		if p != "" {
			t.Errorf("codex %s: Codex trusts lore's %s hook (its key and hash match), lore hooks status says %q", part, event, p)
		}
	}

	// 1. A prompt about a stored decision: the decision in the prompt's
	// block, the latest handoff in the session-start block.
	part = "prompt about a stored decision"
	decID := regexp.MustCompile(`\[decision\] (dec-[0-9a-z]{8})`)
	api.setScript(func(r codexRequest) codexReply {
		if m := decID.FindStringSubmatch(r.loreBlock("auto-injected")); m != nil {
			return codexReply{text: "We follow " + m[1] + ": shards keep merges additive."}
		}
		return codexReply{text: "Noted."}
	})
	var prompt, start string
	reqs, out = ask(part, "Why do we store records as JSONL shards?")
	for _, r := range reqs {
		if b := r.loreBlock("auto-injected"); b != "" {
			prompt = b
		}
		if b := r.loreBlock("session resume"); b != "" {
			start = b
		}
	}
	if !strings.Contains(prompt, "Store records as append-only JSONL shards -- merges only ever add files") {
		t.Errorf("codex %s: the request to the model has no Lore Context block with the decision (UserPromptSubmit hook); block: %q\n%s", part, prompt, out)
	}
	if strings.Contains(start, "Store records as append-only JSONL shards") {
		t.Errorf("codex %s: the session-start block already holds the decision the prompt is about, so this part cannot tell whether the prompt hook works; block: %q", part, start)
	}
	if !strings.Contains(start, "Parser rewrite is half done") || !strings.Contains(start, "port the date tests") {
		t.Errorf("codex %s: the request to the model has no session-start block with the latest handoff (SessionStart hook, source startup); block: %q\n%s", part, start, out)
	}

	// 2. An unrelated prompt: no prompt block at all.
	part = "unrelated prompt"
	api.setScript(nil)
	reqs, _ = ask(part, "write a haiku about autumn leaves")
	for _, r := range reqs {
		if b := r.loreBlock("auto-injected"); b != "" {
			t.Errorf("codex %s: lore injected a block it should not have: %q", part, b)
		}
	}

	// 3. Compaction: the model runs a command and reports a huge token
	// count, so Codex compacts in the middle of the turn and fires
	// SessionStart with source compact; lore's resume view must come back
	// in the request that carries on after the summary.
	part = "compaction"
	api.setScript(func(r codexRequest) codexReply {
		switch {
		case r.Kind == "compaction":
			return codexReply{text: "Summary: ran git status; nothing else happened."}
		case r.has("function_call") || r.has("function_call_output") || strings.Contains(r.Raw, "Summary: ran git status"):
			return codexReply{text: "Done."}
		}
		return codexReply{cmd: "git status --short", bigUsage: true}
	})
	reqs, out = ask(part, "Check the working tree")
	compacted, found := false, false
	for _, r := range reqs {
		if r.Kind == "compaction" {
			compacted = true
			continue
		}
		if compacted && strings.Contains(r.loreBlock("session resume after compaction"), "Parser rewrite is half done") {
			found = true
		}
	}
	if !compacted {
		t.Errorf("codex %s: Codex never compacted (no request with request_kind compaction) although the mock reported 900000 tokens over model_auto_compact_token_limit 5000\n%s", part, out)
	} else if !found {
		t.Errorf("codex %s: after the compaction no request carried lore's 'session resume after compaction' block with the handoff (SessionStart source compact; lore's Codex SessionStart matcher must include compact)\n%s", part, out)
	}

	// 4. The agent's own tool loop runs lore: the mock answers with an
	// exec_command call of 'lore remember', Codex runs it in its sandbox
	// and returns the output, and the record is in .lore/.
	part = "tool loop"
	api.setScript(func(r codexRequest) codexReply {
		if r.has("function_call_output") {
			return codexReply{text: "Recorded the decision."}
		}
		return codexReply{cmd: `lore remember "Codex agents run lore through exec_command" --rationale "the tool loop reaches the store"`}
	})
	reqs, out = ask(part, "Record that Codex agents run lore through exec_command")
	var output string
	for _, r := range reqs {
		for _, it := range r.Items {
			if it.Type == "function_call_output" {
				output = it.Output
			}
		}
	}
	if !regexp.MustCompile(`dec-[0-9a-z]{8}`).MatchString(output) {
		t.Errorf("codex %s: the exec_command result sent back to the model does not show lore's new record ID: %q\n%s", part, output, out)
	}
	if list := run(bin, "list", "decision"); !strings.Contains(list, "Codex agents run lore through exec_command") {
		t.Errorf("codex %s: the decision the model recorded through exec_command is not in .lore/: lore list decision says\n%s\ncodex said:\n%s", part, list, out)
	}

	// 5. The memory loop: a session that writes a file is asked at its
	// first Stop to record a handoff (Codex hands the Stop hook's reason to
	// the model as a <hook_prompt> message); the model records one with
	// exec_command, and the next session starts with it.
	part = "memory loop"
	notes := filepath.Join(repo, "NOTES.md")
	calls := func(r codexRequest, sub string) bool {
		for _, it := range r.Items {
			if it.Type == "function_call" && strings.Contains(it.Args, sub) {
				return true
			}
		}
		return false
	}
	asked := func(r codexRequest) bool {
		for _, it := range r.Items {
			if it.Role == "user" && strings.Contains(it.Text, "<hook_prompt") && strings.Contains(it.Text, "recorded no handoff in lore") {
				return true
			}
		}
		return false
	}
	api.setScript(func(r codexRequest) codexReply {
		switch {
		case calls(r, "lore handoff"):
			return codexReply{text: "Recorded the handoff."}
		case asked(r):
			return codexReply{cmd: `lore handoff "Added NOTES.md with the setup notes" --next "Link NOTES.md from the README"`}
		case r.has("function_call_output"):
			return codexReply{text: "Created NOTES.md."}
		}
		return codexReply{cmd: `printf '# Notes\n' > NOTES.md`}
	})
	reqs, out = ask(part, "Add a NOTES.md file")
	n := 0
	for _, r := range reqs {
		if asked(r) {
			n++
		}
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("codex %s: the mock's exec_command did not create NOTES.md: %v\n%s", part, err, out)
	}
	if n == 0 {
		t.Errorf("codex %s: no request to the model carried lore's Stop reason asking for a handoff (Stop hook, decision block)\n%s", part, out)
	}
	if list := run(bin, "list", "handoff"); !strings.Contains(list, "Added NOTES.md with the setup notes") {
		t.Errorf("codex %s: the handoff the model recorded through exec_command is not in .lore/: lore list handoff says\n%s\ncodex said:\n%s", part, list, out)
	}

	part = "next session"
	api.setScript(nil)
	found = false
	reqs, out = ask(part, "What should I do next?")
	for _, r := range reqs {
		if b := r.loreBlock("session resume"); strings.Contains(b, "Added NOTES.md with the setup notes") && strings.Contains(b, "Link NOTES.md from the README") {
			found = true
		}
		if asked(r) {
			t.Errorf("codex %s: a session that changed nothing was asked for a handoff", part)
		}
	}
	if !found {
		t.Errorf("codex %s: the next session's SessionStart block does not carry the handoff recorded in the memory loop\n%s", part, out)
	}

	// 6. Use: the model runs lore show on the decision the prompt hook
	// injected, and says nothing that names it: through exec_command, then
	// (in a run given lore's MCP server, as [mcp_servers.lore] in
	// config.toml would) through lore's MCP show tool. The Stop hook reads
	// Codex's rollout (its transcript_path: the call is a response_item
	// function_call, exec_command's with arguments {"cmd":…}, the MCP
	// tool's named show in namespace mcp__lore with {"id":…}) and counts
	// the decision used, as shown, in lore stats.
	for _, via := range []struct {
		name  string
		args  []string
		reply func(id string) codexReply
	}{
		{"exec_command", nil, func(id string) codexReply { return codexReply{cmd: "lore show " + id} }},
		{"lore's MCP show tool", []string{"-c", fmt.Sprintf("mcp_servers.lore.command=%q", bin), "-c", `mcp_servers.lore.args=["mcp"]`},
			func(id string) codexReply { return codexReply{show: id} }},
	} {
		part = "lore show through " + via.name + " counts as use"
		api.setScript(func(r codexRequest) codexReply {
			if r.has("function_call_output") {
				return codexReply{text: "Done."}
			}
			if m := decID.FindStringSubmatch(r.loreBlock("auto-injected")); m != nil {
				return via.reply(m[1])
			}
			return codexReply{text: "Noted."}
		})
		usedBefore, _ := loreUses(t, bin, repo, env)
		reqs, out = ask(part, append(via.args, "Why do we store records as JSONL shards?")...)
		short, output := "", ""
		for _, r := range reqs {
			if m := decID.FindStringSubmatch(r.loreBlock("auto-injected")); m != nil {
				short = m[1]
			}
			for _, it := range r.Items {
				if it.Type == "function_call_output" {
					output = it.Output
				}
			}
		}
		if short == "" {
			t.Fatalf("codex %s: no request carried the decision in lore's auto-injected block\n%s", part, out)
		}
		if !strings.Contains(output, short) {
			t.Errorf("codex %s: the call's output sent back to the model does not show the record (did it reach lore?): %q\n%s", part, output, out)
		}
		used, how := loreUses(t, bin, repo, env)
		if id := withPrefix(used, short); used[id] != usedBefore[id]+1 || how[id] != "shown" {
			t.Errorf("codex %s: after the agent ran lore show %s, lore stats counts the decision used %d times (before: %d) and the latest use is %q (want one more use, shown); the call's output: %q\n%s",
				part, short, used[id], usedBefore[id], how[id], output, out)
		}
	}
}
