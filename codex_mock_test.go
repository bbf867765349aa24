//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// codexRequest is one POST /v1/responses the mock received, decoded.
type codexRequest struct {
	Raw   string
	Kind  string // client_metadata x-codex-turn-metadata request_kind: "turn" or "compaction"
	Items []codexItem
}

// codexItem is one entry of a Responses API request's input.
type codexItem struct {
	Type   string // message, function_call, function_call_output, …
	Role   string // developer, user, assistant for messages
	Text   string // a message's text parts, joined
	Name   string // function_call
	Args   string // function_call arguments (a JSON string)
	CallID string
	Output string // function_call_output, as sent
}

// codexReply is one model answer: text, an exec_command call running cmd,
// or a call of lore's MCP show tool on the record show. bigUsage reports a
// huge token count, which makes Codex compact.
type codexReply struct {
	text     string
	cmd      string
	show     string
	bigUsage bool
}

// codexMock stands in for the OpenAI Responses API on 127.0.0.1: it records
// every request and streams the answer script gives (a short text when
// there is no script).
type codexMock struct {
	url string
	recorder[codexRequest, codexReply]
}

func codexNewMock(t *testing.T) *codexMock {
	t.Helper()
	m := &codexMock{recorder: recorder[codexRequest, codexReply]{dump: "codex"}}
	m.url = serveLoopback(t, m.serve) + "/v1"
	return m
}

func (m *codexMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.logLine(r.Method + " " + r.URL.Path)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"not mocked"}}`)
		return
	}
	req := codexParse(body)
	n, script := m.add(req, body)
	rep := codexReply{text: "Noted."}
	if script != nil {
		rep = script(req)
	}
	id := fmt.Sprintf("resp_mock_%d", n)
	var item any
	switch {
	case rep.show != "":
		// Codex offers an MCP server's tools to the model as a namespace
		// (mcp__<server>) and runs a function_call naming one in it.
		args, _ := json.Marshal(map[string]any{"id": rep.show})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_mock_%d", n), "call_id": fmt.Sprintf("call_mock_%d", n),
			"namespace": "mcp__lore", "name": "show", "arguments": string(args)}
	case rep.cmd != "":
		args, _ := json.Marshal(map[string]any{"cmd": rep.cmd, "login": false})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_mock_%d", n), "call_id": fmt.Sprintf("call_mock_%d", n),
			"name": "exec_command", "arguments": string(args)}
	default:
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_mock_%d", n),
			"content": []any{map[string]any{"type": "output_text", "text": rep.text}}}
	}
	tokens := 105
	if rep.bigUsage {
		tokens = 900000
	}
	usage := map[string]any{"input_tokens": tokens - 5, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": tokens}
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.done", "item": item},
		{"type": "response.completed", "response": map[string]any{"id": id, "usage": usage}},
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	for _, ev := range events {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// codexParse decodes the parts of a Responses API request the test reads.
func codexParse(body []byte) codexRequest {
	var req struct {
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Name    string          `json:"name"`
			Args    string          `json:"arguments"`
			CallID  string          `json:"call_id"`
			Output  json.RawMessage `json:"output"`
		} `json:"input"`
		ClientMetadata map[string]string `json:"client_metadata"`
	}
	out := codexRequest{Raw: string(body)}
	json.Unmarshal(body, &req)
	var meta struct {
		RequestKind string `json:"request_kind"`
	}
	json.Unmarshal([]byte(req.ClientMetadata["x-codex-turn-metadata"]), &meta)
	out.Kind = meta.RequestKind
	for _, in := range req.Input {
		it := codexItem{Type: in.Type, Role: in.Role, Name: in.Name, Args: in.Args, CallID: in.CallID}
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(in.Content, &parts) == nil {
			var texts []string
			for _, p := range parts {
				texts = append(texts, p.Text)
			}
			it.Text = strings.Join(texts, "\n")
		}
		var s string
		if json.Unmarshal(in.Output, &s) == nil {
			it.Output = s
		} else {
			it.Output = string(in.Output)
		}
		out.Items = append(out.Items, it)
	}
	return out
}

// has reports whether the request's input holds an item of type typ.
func (r codexRequest) has(typ string) bool {
	for _, it := range r.Items {
		if it.Type == typ {
			return true
		}
	}
	return false
}

// loreBlock is lore's block whose header starts with header, from the
// request's messages, or "".
func (r codexRequest) loreBlock(header string) string {
	for _, it := range r.Items {
		i := strings.Index(it.Text, "--- Lore Context ("+header)
		if i < 0 {
			continue
		}
		b := it.Text[i:]
		if j := strings.Index(b, "--- end lore context ---"); j >= 0 {
			b = b[:j]
		}
		return b
	}
	return ""
}
