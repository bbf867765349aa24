package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// This file is lore mcp's stdio framing, between the client's lines and the
// MCP SDK: which lines reach the SDK, and when the end of input ends the
// session.

// jsonLines passes on the lines that hold a JSON object and answers any
// other line itself with a JSON-RPC error: the SDK ends the session on a
// line it cannot parse, and a client's bad line must not kill the server.
// With calls set, the end of input waits for the answers to the calls
// passed on.
type jsonLines struct {
	r     *bufio.Reader
	out   io.Writer
	calls *inflight
	buf   []byte
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		line, err := j.r.ReadBytes('\n')
		trimmed := bytes.TrimSpace(line)
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
		}
		switch {
		case len(trimmed) == 0:
		case !json.Valid(trimmed):
			j.reject("null", -32700, "parse error: the line is not JSON")
		case json.Unmarshal(trimmed, &msg) != nil:
			j.reject("null", -32600, "invalid request: not a JSON object")
		case msg.JSONRPC != "2.0" || msg.Method == "" && len(msg.ID) == 0:
			j.reject(rawID(msg.ID), -32600, `invalid request: want a JSON-RPC 2.0 message ("jsonrpc":"2.0" and a method)`)
		default:
			// encoding/json matches keys in any case and takes any id; the
			// SDK's decoder does neither ("JSONRPC", an id that is an object
			// or a number past float64, a response with a null id) and ends
			// the session on a line it refuses, so it must accept every line
			// passed on.
			decoded, refused := jsonrpc.DecodeMessage(trimmed)
			if refused != nil {
				j.reject(rawID(msg.ID), -32600, "invalid request: "+refused.Error())
				break
			}
			if req, ok := decoded.(*jsonrpc.Request); ok && req.IsCall() && j.calls != nil {
				j.calls.sent(req.ID)
			}
			j.buf = append(trimmed, '\n')
		}
		if err != nil && len(j.buf) == 0 {
			if err == io.EOF && j.calls != nil {
				j.calls.wait(answerGrace)
			}
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, j.buf)
	j.buf = j.buf[n:]
	return n, nil
}

// rawID is a request's id as it came, for the error answering it, or null.
func rawID(id json.RawMessage) string {
	if len(id) == 0 {
		return "null"
	}
	return string(id)
}

func (j *jsonLines) reject(id string, code int, msg string) {
	m, _ := json.Marshal(msg)
	fmt.Fprintf(j.out, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, m)
}

// answerGrace bounds the wait at the end of input for calls still being
// answered: lore's tools answer in milliseconds, and a call that waits on
// the client (which has closed its side) must not keep the server alive.
const answerGrace = 10 * time.Second

// inflight counts the calls passed on to the SDK and not yet answered. The
// SDK ends the session as soon as its reader reports the end of input and
// drops the calls it is still handling, so a client that writes its
// requests and closes stdin (a script, a pipe) got no answer to the last
// ones; the reader holds the end of input back until they are answered.
type inflight struct {
	mu       sync.Mutex
	pending  map[string]int
	answered chan struct{}
}

func newInflight() *inflight {
	return &inflight{pending: map[string]int{}, answered: make(chan struct{}, 1)}
}

// idKey tells a string id from a number one ("1" from 1), as JSON-RPC does.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (c *inflight) sent(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[idKey(id)]++
}

// saw notes a message the server wrote: an answer settles its call.
func (c *inflight) saw(line []byte) {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := idKey(resp.ID)
	if c.pending[key] == 0 {
		return // an error jsonLines wrote for a line it did not pass on
	}
	if c.pending[key]--; c.pending[key] == 0 {
		delete(c.pending, key)
	}
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// wait returns once every call is answered, or after grace.
func (c *inflight) wait(grace time.Duration) {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		open := len(c.pending)
		c.mu.Unlock()
		if open == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-deadline.C:
			return
		}
	}
}

// lockedWriter serialises the SDK's writes and jsonLines' error answers,
// and tells calls about each answer written.
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *inflight
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if l.calls != nil {
		l.calls.saw(p)
	}
	return n, err
}

func (l *lockedWriter) Close() error { return nil }
