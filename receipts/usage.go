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

// ReadTranscript reads the assistant's text, shell commands and lore MCP
// show calls from a Claude Code transcript (JSONL: one line per message
// block, assistant lines {"type":"assistant","message":{"content":[
// {"type":"text","text":…} | {"type":"tool_use","name":"Bash","input":
// {"command":…}} | {"type":"tool_use","name":"mcp__lore__show","input":
// {"id":…}}]}}), starting
// at byte offset from (where the previous Stop left off). It returns the
// offset it read to. A missing file, or a file in another shape, gives no
// activity and no error worth reporting: only lines that parse count.
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
	marker := []byte(`"assistant"`)
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
		if bytes.Contains(line, marker) {
			act.add(line)
		}
		if err != nil {
			break
		}
	}
	return act, pos
}

// transcriptLine is the part of a Claude Code transcript line lore reads.
type transcriptLine struct {
	Type    string `json:"type"`
	Message struct {
		Role    string `json:"role"`
		Content json.RawMessage
	} `json:"message"`
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
const mcpShow = "mcp__lore__show"

func (a *Activity) add(line []byte) {
	var tl transcriptLine
	if json.Unmarshal(line, &tl) != nil || tl.Type != "assistant" {
		return
	}
	var blocks []contentBlock
	if json.Unmarshal(tl.Message.Content, &blocks) != nil {
		var text string
		if json.Unmarshal(tl.Message.Content, &text) == nil {
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
			var id string
			if json.Unmarshal(b.Input.ID, &id) == nil && id != "" {
				a.Opened = append(a.Opened, id)
			}
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
