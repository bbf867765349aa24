package receipts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// codexTranscript is a Codex CLI 0.169.0 rollout (the file a Stop hook's
// transcript_path names, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl),
// in the shape that Codex wrote it in runs of 'codex exec' against a mock
// of the Responses API: lines copied from those files, with IDs and
// timestamps shortened, long metadata left out, and the record ID made
// showID's. Each line is {"timestamp","type","payload"}; "response_item"
// payloads are the Responses API items Codex keeps (its binary's
// ResponseItem: message, function_call, local_shell_call, …), "event_msg"
// the status stream beside them (item_completed repeats each call as
// Codex ran it: read, it would count a call twice).
//   - exec_command (Codex's shell tool, "unified exec"): arguments, a JSON
//     string, {"cmd":…} (the tool's schema in the request Codex sends);
//   - lore's MCP show tool, with [mcp_servers.lore] in config.toml: name
//     "show" in namespace "mcp__lore" (the request lists the tool in a
//     "namespace" tool named mcp__lore), arguments {"id":…};
//   - local_shell_call (ResponseItem::LocalShellCall): action.command, an
//     argv; and function calls of shell_command ({"command":"…"}) and
//     shell ({"command":[argv]}), which 0.169.0 records as the model sent
//     them (it answers "unsupported call" when the model's tool set lacks
//     them).
var codexTranscript = strings.Join([]string{
	`{"timestamp":"2026-11-23T03:29:42.700Z","type":"session_meta","payload":{"session_id":"01a20673","id":"01a20673","cwd":"/tmp/repo","originator":"codex_exec","cli_version":"0.169.0","source":"exec","model_provider":"mock","history_mode":"paginated"}}`,
	`{"timestamp":"2026-11-23T03:29:42.843Z","ordinal":1,"type":"event_msg","payload":{"type":"task_started","turn_id":"01a20673-cfaf","started_at":1795404582,"model_context_window":258400,"collaboration_mode_kind":"default"}}`,
	`{"timestamp":"2026-11-23T03:29:42.874Z","ordinal":7,"type":"response_item","payload":{"type":"message","id":"msg_01a20673-cfda","role":"user","content":[{"type":"input_text","text":"Why JSONL? Run lore show dec-k3v9 if you must."}],"internal_chat_message_metadata_passthrough":{"turn_id":"01a20673-cfaf","content_item_kinds":["user.text"]}},"metadata":{"history_sequence":3,"sampled_through_sequence":0}}`,
	`{"timestamp":"2026-11-23T03:29:42.904Z","ordinal":9,"type":"response_item","payload":{"type":"function_call","id":"fc_1","name":"exec_command","arguments":"{\"cmd\": \"lore show dec-k3v9\"}","call_id":"call_1","internal_chat_message_metadata_passthrough":{"turn_id":"01a20673-cfaf"}},"metadata":{"history_sequence":4,"sampled_through_sequence":3,"client_authored":false,"user_input_order":1}}`,
	`{"timestamp":"2026-11-23T03:29:42.951Z","ordinal":11,"type":"event_msg","payload":{"type":"item_completed","turn_id":"01a20673-cfaf","item":{"type":"CommandExecution","id":"call_1","command":["/bin/bash","-lc","lore show dec-k3v9"],"parsed_cmd":[{"type":"unknown","cmd":"lore show dec-k3v9"}],"source":"unified_exec_startup","status":"completed","exit_code":0}}}`,
	`{"timestamp":"2026-11-23T03:29:42.955Z","ordinal":12,"type":"response_item","payload":{"type":"function_call_output","id":"fco_01a20673-d02a","call_id":"call_1","output":"Chunk ID: eda20b\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\ndecision dec-k3v9q2xw7mtb, as the assistant said\n"},"metadata":{"history_sequence":5}}`,
	`{"timestamp":"2026-11-23T03:29:48.778Z","ordinal":13,"type":"response_item","payload":{"type":"function_call","id":"fc_3","name":"show","namespace":"mcp__lore","arguments":"{\"id\":\"dec-k3v9\"}","call_id":"call_3","internal_chat_message_metadata_passthrough":{"turn_id":"01a20673-cfaf"}},"metadata":{"history_sequence":6}}`,
	`{"timestamp":"2026-11-23T03:29:48.787Z","ordinal":14,"type":"event_msg","payload":{"type":"item_completed","turn_id":"01a20673-cfaf","item":{"type":"McpToolCall","id":"call_3","server":"lore","tool":"show","arguments":{"id":"dec-k3v9"},"readOnlyHint":true,"status":"completed"}}}`,
	`{"timestamp":"2026-11-23T03:29:48.790Z","ordinal":15,"type":"response_item","payload":{"type":"function_call","id":"fc_4","name":"show","namespace":"mcp__other","arguments":"{\"id\":\"fail-aaaa1111\"}","call_id":"call_4"}}`,
	`{"timestamp":"2026-11-23T03:31:33.949Z","ordinal":16,"type":"response_item","payload":{"type":"local_shell_call","id":"lsh_1","call_id":"call_ls1","status":"completed","action":{"type":"exec","command":["bash","-lc","lore show --json dec-k3v9"],"timeout_ms":null,"working_directory":null,"env":null,"user":null},"internal_chat_message_metadata_passthrough":{"turn_id":"01a20673-cfaf"}},"metadata":{"history_sequence":8}}`,
	`{"timestamp":"2026-11-23T03:31:34.170Z","ordinal":17,"type":"response_item","payload":{"type":"function_call","id":"fc_9","name":"shell_command","arguments":"{\"command\":\"git status\"}","call_id":"call_sc"}}`,
	`{"timestamp":"2026-11-23T03:31:34.429Z","ordinal":18,"type":"response_item","payload":{"type":"function_call","id":"fc_10","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"echo 'lore show dec-k3v9'\"]}","call_id":"call_sh"}}`,
	`{"timestamp":"2026-11-23T03:29:42.973Z","ordinal":19,"type":"event_msg","payload":{"type":"item_completed","turn_id":"01a20673-cfaf","item":{"type":"AgentMessage","id":"msg_2","content":[{"type":"Text","text":"Done reading."}]}}}`,
	`{"timestamp":"2026-11-23T03:29:42.975Z","ordinal":20,"type":"response_item","payload":{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"output_text","text":"Done reading."}],"internal_chat_message_metadata_passthrough":{"turn_id":"01a20673-cfaf","content_item_kinds":["unknown"]}},"metadata":{"history_sequence":9}}`,
	`{"timestamp":"2026-11-23T03:29:42.978Z","ordinal":21,"type":"event_msg","payload":{"type":"task_complete","turn_id":"01a20673-cfaf","last_agent_message":"Done reading.","duration_ms":145}}`,
}, "\n") + "\n"

// geminiTranscript is a Gemini CLI 0.61.0 session file (the hook input's
// transcript_path: ChatRecordingService.getConversationFilePath(),
// ~/.gemini/tmp/<project>/chats/session-*.jsonl), in the shape Gemini CLI
// wrote it in 'gemini -p' runs against a mock of the Gemini API: lines
// copied from those files, shortened, with showID's record. Its bundle
// (packages/core/src/services/chatRecordingService.ts) appends one JSON
// record per line: the session's metadata first, then each message as
// {"id","timestamp","type":"user"|"gemini"|…,"content",…}, appended again
// whenever it changes (recordToolCalls adds "toolCalls":[{"id","name",
// "args","result","status",…}] to the model's last message), metadata
// updates as {"$set":{…}} and rewinds as {"$rewindTo":id}. The shell tool
// is run_shell_command with args {"command":…}; an MCP tool is named
// mcp_<server>_<tool> (generateValidName in tools/mcp-tool.ts), so lore's
// show is mcp_lore_show with args {"id":…}. A model message's content is
// its text, or the response's parts when it has no text.
var geminiTranscript = strings.Join([]string{
	`{"sessionId":"e56c60b8-15fb-436f-a4f8-a5b04689a5d9","projectHash":"fba292bc","startTime":"2026-11-23T03:30:53.723Z","lastUpdated":"2026-11-23T03:30:53.723Z","kind":"main"}`,
	`{"$set":{"messages":[{"id":"d04923d3","timestamp":"2026-11-23T03:30:53.723Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI."}]},{"id":"old1","type":"gemini","content":"an older reply","toolCalls":[{"id":"c0","name":"run_shell_command","args":{"command":"lore show dec-k3v9"}}]}]}}`,
	`{"id":"d506d382","timestamp":"2026-11-23T03:30:53.757Z","type":"user","content":[{"text":"<hook_context>--- Lore Context (session resume, 1 item) ---\n[decision] dec-k3v9q2xw (2026-11-23)\n--- end lore context ---</hook_context>\n\nWhy do we store records as JSONL shards? Run lore show dec-k3v9."}]}`,
	`{"$set":{"lastUpdated":"2026-11-23T03:30:53.757Z"}}`,
	`{"id":"227d053f","timestamp":"2026-11-23T03:30:53.828Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":100,"output":5,"cached":0,"thoughts":0,"tool":0,"total":105},"model":"gemini-2.5-flash"}`,
	`{"id":"227d053f","timestamp":"2026-11-23T03:30:53.828Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":100,"output":5,"cached":0,"thoughts":0,"tool":0,"total":105},"model":"gemini-2.5-flash","toolCalls":[{"id":"run_shell_command__call_1","name":"run_shell_command","args":{"command":"lore show dec-k3v9","description":"Run lore"},"result":[{"functionResponse":{"id":"run_shell_command__call_1","name":"run_shell_command","response":{"output":"<untrusted_context>\nOutput: decision dec-k3v9q2xw7mtb\n</untrusted_context>"}}}],"status":"success","timestamp":"2026-11-23T03:30:53.878Z","displayName":"Shell","description":"Run lore","renderOutputAsMarkdown":false}]}`,
	`{"id":"952eae1d","timestamp":"2026-11-23T03:30:53.880Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command__call_1","name":"run_shell_command","response":{"output":"<untrusted_context>\nOutput: decision dec-k3v9q2xw7mtb, the gemini one\n</untrusted_context>"}}}]}`,
	`{"id":"5b1e0c2a","timestamp":"2026-11-23T03:31:00.100Z","type":"gemini","content":"Let me look.","thoughts":[],"model":"gemini-2.5-flash"}`,
	`{"id":"5b1e0c2a","timestamp":"2026-11-23T03:31:00.100Z","type":"gemini","content":"Let me look.","thoughts":[],"model":"gemini-2.5-flash","toolCalls":[{"id":"mcp_lore_show__call_3","name":"mcp_lore_show","args":{"id":"dec-k3v9"},"result":[{"functionResponse":{"id":"mcp_lore_show__call_3","name":"mcp_lore_show","response":{"output":"decision dec-k3v9q2xw7mtb"}}}],"status":"success","timestamp":"2026-11-23T03:31:00.174Z","displayName":"show (lore MCP Server)"},{"id":"mcp_other_show__call_4","name":"mcp_other_show","args":{"id":"fail-aaaa1111"},"status":"success"}]}`,
	`{"id":"7c9d2e11","timestamp":"2026-11-23T03:31:00.300Z","type":"gemini","content":[{"text":"Weighing it.","thought":true},{"text":"The shards keep merges additive."}],"model":"gemini-2.5-flash"}`,
	`{"$rewindTo":"0f0f0f0f"}`,
	`{"id":"04f95246","timestamp":"2026-11-23T03:30:53.901Z","type":"gemini","content":"Done reading.","thoughts":[],"tokens":{"input":100,"output":5,"cached":0,"thoughts":0,"tool":0,"total":105},"model":"gemini-2.5-flash"}`,
	`{"$set":{"lastUpdated":"2026-11-23T03:30:53.901Z"}}`,
}, "\n") + "\n"

func readString(t *testing.T, data string) Activity {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	act, off := ReadTranscript(path, 0)
	if off != int64(len(data)) {
		t.Errorf("read to %d of %d bytes", off, len(data))
	}
	return act
}

// Codex CLI's rollout: the shell commands of its shell tools (exec_command's
// cmd, an argv quoted back into a command line), lore's MCP show calls and
// the assistant's text count; the user's words, tool output and the
// event_msg stream do not.
func TestReadTranscriptCodexRollout(t *testing.T) {
	act := readString(t, codexTranscript)
	wantCmds := []string{
		"lore show dec-k3v9",
		`'bash' '-lc' 'lore show --json dec-k3v9'`,
		"git status",
		`'bash' '-lc' 'echo '\''lore show dec-k3v9'\'''`,
	}
	if !slices.Equal(act.Commands, wantCmds) {
		t.Errorf("commands = %q, want %q", act.Commands, wantCmds)
	}
	if want := []string{"dec-k3v9"}; !slices.Equal(act.Opened, want) {
		t.Fatalf("opened = %q, want %q", act.Opened, want)
	}
	if want := []string{"Done reading."}; !slices.Equal(act.Texts, want) {
		t.Errorf("texts = %q, want %q", act.Texts, want)
	}
	shown := map[string][]uint32{showID: nil, "fail-aaaa1111bbbb": nil}
	if got := Uses(shown, act, nil); len(got) != 1 || got[showID] != "shown" {
		t.Errorf("Uses = %v, want only %s shown", got, showID)
	}
	if len(act.Commands) != len(wantCmds) {
		return
	}
	// Each signal alone is enough: exec_command, the local shell's argv,
	// the MCP call.
	for i, one := range []Activity{{Commands: act.Commands[:1]}, {Commands: act.Commands[1:2]}, {Opened: act.Opened}} {
		if got := Uses(shown, one, nil); got[showID] != "shown" {
			t.Errorf("signal %d alone (%q): Uses = %v", i, one, got)
		}
	}
	if got := Uses(shown, Activity{Commands: act.Commands[2:]}, nil); len(got) != 0 {
		t.Errorf("git status and an echo counted: %v", got)
	}
}

// Gemini CLI's session file: run_shell_command's command and mcp_lore_show's
// id count, and the model's text, once per message (a message written
// again with its tool calls adds no second copy); user messages, tool
// results, thoughts and the $set and $rewindTo records do not.
func TestReadTranscriptGeminiSession(t *testing.T) {
	act := readString(t, geminiTranscript)
	if want := []string{"lore show dec-k3v9"}; !slices.Equal(act.Commands, want) {
		t.Errorf("commands = %q, want %q", act.Commands, want)
	}
	if want := []string{"dec-k3v9"}; !slices.Equal(act.Opened, want) {
		t.Errorf("opened = %q, want %q", act.Opened, want)
	}
	if want := []string{"Let me look.", "The shards keep merges additive.", "Done reading."}; !slices.Equal(act.Texts, want) {
		t.Errorf("texts = %q, want %q", act.Texts, want)
	}
	shown := map[string][]uint32{showID: nil, "fail-aaaa1111bbbb": nil}
	if got := Uses(shown, act, nil); len(got) != 1 || got[showID] != "shown" {
		t.Errorf("Uses = %v, want only %s shown", got, showID)
	}
	for i, one := range []Activity{{Commands: act.Commands}, {Opened: act.Opened}} {
		if got := Uses(shown, one, nil); got[showID] != "shown" {
			t.Errorf("signal %d alone (%q): Uses = %v", i, one, got)
		}
	}
}

// The three hosts' lines read the same in one file (each line tells its
// host by its shape), and a line of one host's shape carrying another's
// fields reads as its own host's only.
func TestReadTranscriptMixedHosts(t *testing.T) {
	act := readString(t, claudeTranscript+codexTranscript+geminiTranscript)
	claude, codex, gemini := readString(t, claudeTranscript), readString(t, codexTranscript), readString(t, geminiTranscript)
	want := Activity{
		Texts:    slices.Concat(claude.Texts, codex.Texts, gemini.Texts),
		Commands: slices.Concat(claude.Commands, codex.Commands, gemini.Commands),
		Opened:   slices.Concat(claude.Opened, codex.Opened, gemini.Opened),
	}
	if !sameActivity(act, want) {
		t.Errorf("mixed: %q, want %q", act, want)
	}
	odd := strings.Join([]string{
		`{"type":"assistant","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"lore show dec-k3v9\"}"}}`,
		`{"type":"response_item","toolCalls":[{"name":"run_shell_command","args":{"command":"lore show dec-k3v9"}}]}`,
		`{"type":"gemini","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"lore show dec-k3v9"}}]}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":{"cmd":"lore show dec-k3v9"}}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":[\"lore\",7]}"}}`,
		`{"type":"gemini","content":"","toolCalls":{"name":"mcp_lore_show","args":{"id":"dec-k3v9"}}}`,
		`{"type":"gemini","content":"","toolCalls":[7,{"name":"mcp_lore_show","args":{"id":7}},{"name":"mcp_lore_show","args":{"id":"dec-k3v9"}}]}`,
	}, "\n") + "\n"
	act = readString(t, odd)
	if len(act.Commands)+len(act.Texts) != 0 || !slices.Equal(act.Opened, []string{"dec-k3v9"}) {
		t.Errorf("lines of one shape with another's fields: %q", act)
	}
}
