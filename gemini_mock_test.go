package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// geminiMock stands in for the Gemini API (generativelanguage v1beta) on
// 127.0.0.1: it records every generateContent and streamGenerateContent
// request and answers each with what its script says (a short text when
// there is no script), which can be a call of Gemini CLI's shell tool.
type geminiMock struct {
	url string
	recorder[*geminiRequest, geminiReply]
}

// geminiReply is one model answer: text, a run_shell_command call of
// shell, or a call of the tool named call (an MCP tool: mcp_<server>_<tool>)
// with args. tokens is the promptTokenCount the answer reports (100 if zero):
// Gemini CLI compresses its history when that count nears the model's
// context window.
type geminiReply struct {
	text   string
	shell  string
	call   string // a call of another tool, with args
	args   map[string]any
	tokens int
}

// geminiRequest is a model call the mock received.
type geminiRequest struct {
	Path              string          `json:"-"`
	Raw               string          `json:"-"`
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *struct {
		Parts []geminiPart `json:"parts"`
	} `json:"systemInstruction"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text         string `json:"text"`
	FunctionCall *struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// main reports a turn of the agent's own conversation (streamed), as
// opposed to a utility call such as the compression summary.
func (r *geminiRequest) main() bool { return strings.Contains(r.Path, ":streamGenerateContent") }

// compression reports one of the two calls Gemini CLI makes to summarise
// its history into a <state_snapshot> when it compresses the chat.
func (r *geminiRequest) compression() bool {
	n := len(r.Contents)
	if n == 0 {
		return false
	}
	last := r.Contents[n-1]
	for _, p := range last.Parts {
		if strings.Contains(p.Text, "<state_snapshot>") {
			return true
		}
	}
	return false
}

// text is all the text the model is shown in the conversation, decoded:
// every text part of every turn, in order.
func (r *geminiRequest) text() string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.Text != "" {
				b.WriteString(p.Text)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// toolResults joins the responses of the tool calls named name.
func (r *geminiRequest) toolResults(name string) string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.Name == name {
				var out struct {
					Output string `json:"output"`
				}
				if json.Unmarshal(p.FunctionResponse.Response, &out) == nil && out.Output != "" {
					b.WriteString(out.Output)
				} else {
					b.Write(p.FunctionResponse.Response)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

func newGeminiMock(t *testing.T) *geminiMock {
	t.Helper()
	m := &geminiMock{recorder: recorder[*geminiRequest, geminiReply]{dump: "gemini"}}
	m.url = serveLoopback(t, m.serve)
	return m
}

func (m *geminiMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.logLine(r.Method + " " + r.URL.RequestURI())
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens": 100}`)
	case r.Method == http.MethodPost && (strings.HasSuffix(path, ":generateContent") || strings.HasSuffix(path, ":streamGenerateContent")):
		req := &geminiRequest{Path: path, Raw: string(body)}
		if err := json.Unmarshal(body, req); err != nil {
			http.Error(w, "mock: bad request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		n, script := m.add(req, body)
		rep := geminiReply{text: "Noted."}
		if script != nil {
			rep = script(req)
		}
		m.answer(w, req.main(), rep, n)
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}
}

// answer writes rep as a GenerateContentResponse: one server-sent event
// for streamGenerateContent?alt=sse, a JSON body for generateContent.
func (m *geminiMock) answer(w http.ResponseWriter, stream bool, rep geminiReply, n int) {
	part := map[string]any{"text": rep.text}
	if rep.shell != "" {
		rep.call, rep.args = "run_shell_command", map[string]any{"command": rep.shell, "description": "Run a lore command"}
	}
	if rep.call != "" {
		part = map[string]any{"functionCall": map[string]any{
			"id":   fmt.Sprintf("call_mock_%d", n),
			"name": rep.call,
			"args": rep.args,
		}}
	}
	tokens := rep.tokens
	if tokens == 0 {
		tokens = 100
	}
	resp, _ := json.Marshal(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": tokens, "candidatesTokenCount": 5, "totalTokenCount": tokens + 5},
		"modelVersion":  geminiModel,
	})
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fmt.Fprintf(w, "data: %s\r\n\r\n", resp)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// geminiMain keeps the agent's own turns of reqs.
func geminiMain(reqs []*geminiRequest) []*geminiRequest {
	var out []*geminiRequest
	for _, r := range reqs {
		if r.main() {
			out = append(out, r)
		}
	}
	return out
}

// geminiBlock returns lore's block with the given header prefix from the
// text the model is shown, or "".
func geminiBlock(text, header string) string {
	i := strings.Index(text, "--- Lore Context ("+header)
	if i < 0 {
		return ""
	}
	const footer = "--- end lore context ---"
	j := strings.Index(text[i:], footer)
	if j < 0 {
		return text[i:]
	}
	return text[i : i+j+len(footer)]
}

// geminiBlocks returns every lore block in text.
func geminiBlocks(text string) []string {
	var out []string
	for {
		b := geminiBlock(text, "")
		if b == "" {
			return out
		}
		out = append(out, b)
		text = text[strings.Index(text, b)+len(b):]
	}
}
