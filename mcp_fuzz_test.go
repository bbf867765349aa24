package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzMCPLineFilter feeds arbitrary bytes to lore mcp's stdin filter, read
// in pieces of any size. Every non-blank line is either passed on, trimmed
// and whole, or answered, never both and never lost, in order. What it
// passes on is one JSON object per line that the SDK's transport decodes
// (jsonrpc.DecodeMessage is what it runs on each line; a line it refuses
// ends the session, which the filter exists to prevent). What it answers
// with is one JSON-RPC 2.0 error per line, valid JSON whatever the line
// held. A line over the filter's limit (its end included) is answered
// whatever it holds, with -32600 and the id of its start or null, and never
// passed on; the fuzzer tries limits of a few dozen bytes, so that its
// lines cross them.
func FuzzMCPLineFilter(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"why JSONL shards?"}}}` + "\n",
		"{not json\n[1,2]\n{\"foo\":1}\n\n  \r\n",
		`{"jsonrpc":"2.0","id":"a\u2028b","result":{}}` + "\r\n" + `{"jsonrpc":"1.0","id":[1,{"x":null}],"method":"m"}` + "\n" + `{"jsonrpc":"2.0","method":5}`,
		`null` + "\n" + `"2.0"` + "\n" + `{"jsonrpc":"2.0","method":"x","id":null}` + "\n" + "\xff\xfe{}\n" + `{"jsonrpc":"2.0","method":"ping","id":3}`,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(7))
		f.Add([]byte(s), uint8(64+7))
		f.Add([]byte(s), uint8(128))
		f.Add([]byte(s), uint8(192+33))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x\"y","method":"tools/call","params":{"name":"search","arguments":{"query":"`+strings.Repeat("a", 100)+`"}}}`+"\n"+
		`{"id":-1.5e3,"jsonrpc":"2.0","method":"ping"}`+"\n"+`{"params":{"q":"`+strings.Repeat("b", 100)+`"},"id":7}`+"\n"+strings.Repeat(" ", 60)+"\n"+
		`{"jsonrpc":"2.0","id":{"a":1},"method":"`+strings.Repeat("m", 60)+`"}`), uint8(64+7))
	f.Fuzz(func(t *testing.T, data []byte, piece uint8) {
		var out bytes.Buffer
		// piece's top bits choose the limit: jsonLines' own, or 48, 96 or
		// 192 bytes; its low bits, the size of the reads.
		j := &jsonLines{r: bufio.NewReaderSize(bytes.NewReader(data), 16), out: &out}
		if piece>>6 > 0 {
			j.max = 24 << (piece >> 6)
		}
		limit := j.limit()
		var passed []byte
		p := make([]byte, int(piece)%64+1)
		for reads := 0; ; reads++ {
			if reads > 2*len(data)+10 {
				t.Fatalf("Read does not come to an end on %q", data)
			}
			n, err := j.Read(p)
			passed = append(passed, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil || n == 0 {
				t.Fatalf("Read: %d, %v", n, err)
			}
		}

		var lines, sent, answers []string
		long := map[int]string{} // lines over the limit, by index in lines: their start
		raw := strings.Split(string(data), "\n")
		for i, l := range raw {
			size := len(l)
			if i < len(raw)-1 {
				size++ // its end
			}
			if size > limit {
				long[len(lines)] = l[:min(len(l), idHead)]
				lines = append(lines, l)
			} else if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		if len(passed) > 0 {
			if passed[len(passed)-1] != '\n' {
				t.Fatalf("passed on %q, not whole lines", passed)
			}
			sent = strings.Split(string(passed[:len(passed)-1]), "\n")
		}
		if out.Len() > 0 {
			if b := out.Bytes(); b[len(b)-1] != '\n' {
				t.Fatalf("answered %q, not whole lines", b)
			}
			answers = strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		}
		for _, l := range sent {
			if len(l) > limit {
				t.Fatalf("passed on a line of %d bytes, over the limit of %d", len(l), limit)
			}
			if !json.Valid([]byte(l)) || !strings.HasPrefix(l, "{") {
				t.Fatalf("passed on %q, not a JSON object", l)
			}
			if _, err := jsonrpc.DecodeMessage([]byte(l)); err != nil {
				t.Fatalf("passed on %q, which the SDK refuses (%v), ending the session", l, err)
			}
		}
		for _, a := range answers {
			var m map[string]json.RawMessage
			var e struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if !json.Valid([]byte(a)) || json.Unmarshal([]byte(a), &m) != nil || string(m["jsonrpc"]) != `"2.0"` || m["id"] == nil ||
				json.Unmarshal(m["error"], &e) != nil || e.Code != -32700 && e.Code != -32600 || e.Message == "" {
				t.Fatalf("answered %q, not a JSON-RPC 2.0 error", a)
			}
		}
		// Each line's fate is decided by its content alone, so matching
		// greedily pairs every line with its own outcome. A long line's
		// answer comes in its turn among the answers.
		s, a := 0, 0
		for i, l := range lines {
			start, isLong := long[i]
			switch {
			case isLong:
				if a >= len(answers) {
					t.Fatalf("a line over the limit is not answered: %.80q", l)
				}
				var m struct {
					ID    json.RawMessage    `json:"id"`
					Error struct{ Code int } `json:"error"`
				}
				json.Unmarshal([]byte(answers[a]), &m)
				if m.Error.Code != -32600 || string(m.ID) != "null" && !strings.Contains(start, string(m.ID)) {
					t.Fatalf("a line over the limit, starting %.80q, is answered %q", start, answers[a])
				}
				a++
			case s < len(sent) && sent[s] == l:
				s++
			default:
				a++
			}
		}
		if s != len(sent) || len(sent)+len(answers) != len(lines) {
			t.Fatalf("%d lines: %d passed on (%d of them in order), %d answered:\n%q\n%q\n%q", len(lines), len(sent), s, len(answers), lines, sent, answers)
		}
	})
}
