package receipts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strings"

	"lore/record"
)

// What an agent did in a session, as far as deciding use goes: the text it
// wrote, the shell commands it ran, and the records it opened with lore's
// MCP show tool (the ID or prefix it asked for).
type Activity struct {
	Texts    []string
	Commands []string
	Opened   []string
}

// maxTranscript bounds how much of a transcript one Stop reads: the newest
// part. Each Stop reads on from where the previous one left off, so this
// only matters when lore first sees a long session (installed mid-session).
const maxTranscript = 256 << 10

// ReadTranscript reads the agent's text, shell commands and lore MCP show
// calls from the transcript its host names in a Stop hook's
// transcript_path, starting at byte offset from (where the previous Stop
// left off). It returns the offset it read to. Claude Code, Codex CLI and
// Gemini CLI each write JSONL, one record per line, and each line tells by
// its shape whose it is (see add), so a file needs no other sign of its
// host. A missing file, or a file in another shape, gives no activity and
// no error worth reporting: only lines that parse count.
func ReadTranscript(path string, from int64) (Activity, int64) {
	var act Activity
	// The path comes from the agent: only a regular file is read (a FIFO
	// would block the open, /dev/zero never end), and only up to the size
	// it had, so a file that keeps growing cannot hold the hook.
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return act, from
	}
	f, err := os.Open(path)
	if err != nil {
		return act, from
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return act, from
	}
	size := info.Size()
	if from > size || from < 0 {
		from = 0 // a rewritten transcript: read it again
	}
	from = max(from, size-maxTranscript)
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return act, from
	}
	r := bufio.NewReaderSize(io.LimitReader(f, size-from), 256<<10)
	pos := from
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: assemble it.
			whole := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				whole = append(whole, line...)
			}
			line = whole
		}
		if len(line) == 0 || line[len(line)-1] != '\n' {
			break // end of file, or a line still being written: read it next time
		}
		pos += int64(len(line))
		if hasMarker(line) {
			act.add(line)
		}
		if err != nil {
			break
		}
	}
	return act, pos
}

// markers are what a line lore reads holds, one per host: the type of a
// Claude Code assistant line, of a Codex rollout item, of a Gemini CLI
// model message. A line without any is not decoded.
var markers = [][]byte{[]byte(`"assistant"`), []byte(`"response_item"`), []byte(`"gemini"`)}

func hasMarker(line []byte) bool {
	for _, m := range markers {
		if bytes.Contains(line, m) {
			return true
		}
	}
	return false
}

// transcriptLine is the part of a transcript line lore reads, whichever
// host wrote it: its type says which, and which of the other fields count.
type transcriptLine struct {
	Type string `json:"type"`
	// Claude Code: {"type":"assistant","message":{…}}.
	Message claudeMessage `json:"message"`
	// Codex CLI: {"type":"response_item","payload":{…}}.
	Payload json.RawMessage `json:"payload"`
	// Gemini CLI: {"id":…,"type":"gemini","content":…,"toolCalls":[…]}.
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"toolCalls"`
}

// add reads one transcript line: a Claude Code assistant message, a Codex
// rollout's response item, or a Gemini CLI model message. Anything else,
// or a line that does not parse, adds nothing.
func (a *Activity) add(line []byte) {
	var tl transcriptLine
	if json.Unmarshal(line, &tl) != nil {
		return
	}
	switch tl.Type {
	case "assistant":
		a.addClaude(tl.Message)
	case "response_item":
		a.addCodex(tl.Payload)
	case "gemini":
		a.addGemini(tl.Content, tl.ToolCalls)
	}
}

// claudeMessage is a Claude Code transcript line's message.
type claudeMessage struct {
	Role    string `json:"role"`
	Content json.RawMessage
}

type contentBlock struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Name  string `json:"name"`
	Input struct {
		Command string `json:"command"`
		// ID is the record an MCP show call asks for; kept raw so another
		// tool's "id" of another type loses nothing else on the line.
		ID json.RawMessage `json:"id"`
	} `json:"input"`
}

// mcpShow is lore's MCP show tool as Claude Code names it in a transcript:
// mcp__<server>__<tool>, and lore mcp install registers the server as lore.
// Codex CLI gives the same name split in two (see addCodex).
const mcpShow = "mcp__lore__show"

// addClaude reads a Claude Code assistant message ({"role":"assistant",
// "content":[{"type":"text","text":…} | {"type":"tool_use","name":"Bash",
// "input":{"command":…}} | {"type":"tool_use","name":"mcp__lore__show",
// "input":{"id":…}}]}, or content as one string).
func (a *Activity) addClaude(m claudeMessage) {
	var blocks []contentBlock
	if json.Unmarshal(m.Content, &blocks) != nil {
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			a.Texts = append(a.Texts, text)
		}
		return
	}
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			a.Texts = append(a.Texts, b.Text)
		case b.Type == "tool_use" && b.Input.Command != "":
			a.Commands = append(a.Commands, b.Input.Command)
		case b.Type == "tool_use" && b.Name == mcpShow:
			a.open(b.Input.ID)
		}
	}
}

// open notes an MCP show call's id, if it is a string.
func (a *Activity) open(raw json.RawMessage) {
	var id string
	if json.Unmarshal(raw, &id) == nil && id != "" {
		a.Opened = append(a.Opened, id)
	}
}

// command notes a tool's shell command given as one string, or as an argv
// (Codex's shell and local_shell_call: ["bash","-lc","lore show …"]),
// which is quoted back into one command line for ranShow.
func (a *Activity) command(raw json.RawMessage) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var argv []string
		if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
			return
		}
		s = shellJoin(argv)
	}
	if s != "" {
		a.Commands = append(a.Commands, s)
	}
}

// shellJoin quotes argv into a command line that simpleCommands reads back
// as the same words.
func shellJoin(argv []string) string {
	quoted := make([]string, len(argv))
	for i, w := range argv {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// codexItem is the payload of a Codex rollout's response_item line
// ({"timestamp":…,"type":"response_item","payload":{…}}): a Responses API
// item as Codex keeps it (its ResponseItem, "type" in snake_case; shapes
// as Codex 0.169.0 writes them, see codexTranscript in the tests). lore
// reads:
//   - {"type":"message","role":"assistant","content":[{"type":"output_text","text":…}]};
//   - {"type":"function_call","name":…,"namespace":…,"arguments":"<JSON>"}:
//     exec_command's arguments {"cmd":…}, shell_command's {"command":…},
//     shell's {"command":[argv]}; an MCP tool's name "show" in namespace
//     "mcp__lore" (a name given whole, mcp__lore__show, reads the same),
//     arguments {"id":…};
//   - {"type":"local_shell_call","action":{"type":"exec","command":[argv]}}.
//
// The event_msg lines beside them repeat each call as Codex ran it
// (item_completed): they are not read, or a call would count twice.
type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Action    struct {
		Command json.RawMessage `json:"command"`
	} `json:"action"`
}

// toolArgs are the arguments of a tool call lore reads, kept raw: a
// command as a string or an argv, an MCP show call's id.
type toolArgs struct {
	Cmd     json.RawMessage `json:"cmd"`
	Command json.RawMessage `json:"command"`
	ID      json.RawMessage `json:"id"`
}

func (a *Activity) addCodex(raw json.RawMessage) {
	var kind struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &kind) != nil {
		return
	}
	var it codexItem
	switch kind.Type {
	case "message", "function_call", "local_shell_call":
		if json.Unmarshal(raw, &it) != nil {
			return
		}
	default:
		return
	}
	switch it.Type {
	case "message":
		if it.Role != "assistant" {
			return
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(it.Content, &parts) != nil {
			return
		}
		for _, p := range parts {
			if p.Type == "output_text" {
				a.Texts = append(a.Texts, p.Text)
			}
		}
	case "function_call":
		var args toolArgs
		if json.Unmarshal([]byte(it.Arguments), &args) != nil {
			return
		}
		a.command(args.Cmd)
		a.command(args.Command)
		name := it.Name
		if it.Namespace != "" {
			name = strings.TrimSuffix(it.Namespace, "__") + "__" + it.Name
		}
		if name == mcpShow {
			a.open(args.ID)
		}
	case "local_shell_call":
		a.command(it.Action.Command)
	}
}

// geminiMCPShow is lore's MCP show tool as Gemini CLI names it:
// mcp_<server>_<tool> (generateValidName in its tools/mcp-tool).
const geminiMCPShow = "mcp_lore_show"

// addGemini reads a Gemini CLI model message ({"id":…,"type":"gemini",
// "content":"text" or [parts],"toolCalls":[{"name":"run_shell_command",
// "args":{"command":…}} | {"name":"mcp_lore_show","args":{"id":…}}]}),
// as its ChatRecordingService appends it. A message is appended again
// each time it changes (its tool calls once they complete, with the text
// it was first written with): its text is read only from a line without
// tool calls, so it counts once.
func (a *Activity) addGemini(content, toolCalls json.RawMessage) {
	var calls []json.RawMessage
	if len(toolCalls) > 0 && json.Unmarshal(toolCalls, &calls) != nil {
		return
	}
	if len(calls) == 0 {
		var text string
		var parts []json.RawMessage
		switch {
		case json.Unmarshal(content, &text) == nil:
			if text != "" {
				a.Texts = append(a.Texts, text)
			}
		case json.Unmarshal(content, &parts) == nil:
			for _, raw := range parts {
				var p struct {
					Text    string `json:"text"`
					Thought bool   `json:"thought"`
				}
				if json.Unmarshal(raw, &p) == nil && p.Text != "" && !p.Thought {
					a.Texts = append(a.Texts, p.Text)
				}
			}
		}
		return
	}
	for _, raw := range calls {
		var c struct {
			Name string   `json:"name"`
			Args toolArgs `json:"args"`
		}
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		a.command(c.Args.Command)
		if c.Name == geminiMCPShow {
			a.open(c.Args.ID)
		}
	}
}

// Shingles hashes the runs of shingleLen consecutive words of each of a
// record's fields (already reduced to its significant, stemmed words), the
// marks by which a restatement is recognised; a field shorter than that
// but of at least 3 words counts whole.
func Shingles(fields [][]string) []uint32 {
	var sh shingler
	for _, ws := range fields {
		if len(ws) < shingleLen && len(ws) >= 3 {
			sh.add(ws)
		}
		sh.runs(ws, shingleLen)
	}
	return sh.out
}

// TextShingles hashes what an agent wrote the same way, with the runs of
// three words too, which is what a short record field's mark is.
func TextShingles(texts [][]string) []uint32 {
	var sh shingler
	for _, ws := range texts {
		sh.runs(ws, 3)
		sh.runs(ws, shingleLen)
	}
	return sh.out
}

type shingler struct {
	seen map[uint32]bool
	out  []uint32
}

func (sh *shingler) runs(ws []string, n int) {
	for i := 0; i+n <= len(ws); i++ {
		sh.add(ws[i : i+n])
	}
}

func (sh *shingler) add(ws []string) {
	h := fnv.New32a()
	io.WriteString(h, strings.Join(ws, " "))
	s := h.Sum32()
	if sh.seen == nil {
		sh.seen = map[uint32]bool{}
	}
	if !sh.seen[s] {
		sh.seen[s] = true
		sh.out = append(sh.out, s)
	}
}

// shingleLen is how many consecutive significant words make a phrase
// distinctive enough that writing it again means using the record.
const shingleLen = 4

// Uses decides which of the records shown in a session the agent used:
//   - named: its text holds the record's ID (the short form is enough);
//   - shown: it ran lore show, or called lore's MCP show tool, with a
//     prefix of the ID (at least 4 characters after the kind prefix);
//   - restated: its text repeats one of the record's distinctive phrases
//     (Shingles: four significant words in a row, or a whole field of
//     three), which chance rarely produces.
//
// textShingles are the shingles of the agent's text (TextShingles). A
// record merely shown is not used.
func Uses(shown map[string][]uint32, act Activity, textShingles []uint32) map[string]string {
	said := map[uint32]bool{}
	for _, s := range textShingles {
		said[s] = true
	}
	text := strings.Join(act.Texts, "\n")
	uses := map[string]string{}
	for id, marks := range shown {
		switch {
		case strings.Contains(text, record.ShortID(id)):
			uses[id] = "named"
		case ranShow(act.Commands, id) || slices.ContainsFunc(act.Opened, func(arg string) bool { return names(arg, id) }):
			uses[id] = "shown"
		case slices.ContainsFunc(marks, func(m uint32) bool { return said[m] }):
			uses[id] = "restated"
		}
	}
	return uses
}
