package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
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
// It holds at most max bytes of a line (maxLineBytes if 0): a longer one is
// read to its end, dropped and answered. With calls set, the end of input
// waits for the answers to the calls passed on.
type jsonLines struct {
	r     *bufio.Reader
	out   io.Writer
	calls *inflight
	max   int
	buf   []byte
}

// maxLineBytes bounds a request line, its end included. A record holds at
// most 64 KiB (store.MaxRecordBytes), which JSON's escapes can make six
// times as long on the line: a longer line is no request lore can use,
// and it is not held in memory to find that out.
const maxLineBytes = 4 << 20

// idHead is how much of a line too long to read is kept to find its id in.
const idHead = 4 << 10

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		line, size, err := j.readLine()
		trimmed := bytes.TrimSpace(line)
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
		}
		switch {
		case size > j.limit():
			// Answered whatever it holds, as only its start was read.
			j.reject(headID(line[:min(len(line), idHead)]), -32600, fmt.Sprintf("invalid request: the line is %d bytes, over the %s a request line may hold; it was dropped",
				size, byteSize(j.limit())))
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
			switch req, _ := decoded.(*jsonrpc.Request); {
			case req != nil && !req.IsCall() && len(msg.ID) > 0 && hasID(trimmed):
				// The SDK reads an id of null as none, and would take the
				// call for a notification, never to be answered.
				j.reject("null", -32600, "invalid request: id must be a string or a number, not null (MCP)")
			case req != nil && req.IsCall() && j.calls != nil && !j.calls.sent(req):
				// The SDK drops a call whose id is in use, unanswered.
				id, _ := json.Marshal(req.ID.Raw())
				j.reject(string(id), -32600, fmt.Sprintf("invalid request: id %s is in use by a request not yet answered (MCP: an id is not reused in a session)", id))
			default:
				j.buf = append(trimmed, '\n')
			}
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

func (j *jsonLines) limit() int {
	if j.max > 0 {
		return j.max
	}
	return maxLineBytes
}

// readLine reads the next line and returns it with its size, its end
// included. Of a line over the limit it keeps only the start (as much as
// fitted, at least idHead bytes if the line has them) and reads the rest
// to the line's end without keeping it: a client's 100 MB line costs
// no more memory than a line at the limit.
func (j *jsonLines) readLine() (line []byte, size int, err error) {
	for {
		chunk, e := j.r.ReadSlice('\n')
		size += len(chunk)
		switch {
		case size <= j.limit():
			line = append(line, chunk...)
		case len(line) < idHead:
			line = append(line, chunk[:min(len(chunk), idHead-len(line))]...)
		}
		if e != bufio.ErrBufferFull {
			return line, size, e
		}
	}
}

// headID is the id of the request whose line starts with head, when head
// holds it whole (something follows it), as a member of a JSON object that
// only whole members come before: the answer to a line too long to read
// names the call it answers, as the usual order of a request's members
// (jsonrpc, id, method, params) lets it. Else, or if the id is not a
// string or a number, it is null.
func headID(head []byte) string {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "null"
	}
	for dec.More() {
		key, err := dec.Token()
		var value json.RawMessage
		if err != nil || dec.Decode(&value) != nil || dec.InputOffset() >= int64(len(head)) {
			return "null"
		}
		if key != "id" {
			continue
		}
		if value[0] == '"' || value[0] == '-' || value[0] >= '0' && value[0] <= '9' {
			return string(value)
		}
		return "null"
	}
	return "null"
}

// hasID reports whether line, a JSON object, has a member named "id"
// (exactly so: the SDK reads no other spelling). Of a call the SDK reads
// no id from, it tells an id of null from none.
func hasID(line []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		if key == "id" {
			return true
		}
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return false
		}
	}
	return false
}

// byteSize is n bytes in the largest unit that divides it: 4 MiB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// rawID is a request's id as it came, for the error answering it, or null.
func rawID(id json.RawMessage) string {
	if len(id) == 0 {
		return "null"
	}
	return string(id)
}

// reject answers a line not passed on. The answer settles no call, even
// one whose id it has (a call whose id was in use).
func (j *jsonLines) reject(id string, code int, msg string) {
	m, _ := json.Marshal(msg)
	line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, m)
	if l, ok := j.out.(*lockedWriter); ok {
		l.writeOwn(line)
		return
	}
	j.out.Write(line)
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
// It also holds the ids in use, which a call must not take (the SDK would
// drop it unanswered), and knows whether the session is initialized, for
// the code of the SDK's errors that have none (see answer).
//
// An id is in use from its call's line until its answer is written: an
// id used again after that is taken as a new call. MCP forbids it, but
// refusing it would mean holding every id a session ever used.
type inflight struct {
	mu          sync.Mutex
	pending     map[string]bool // the ids in use
	inits       map[string]bool // the initialize calls among pending
	writing     int             // answers settled and still being written
	initialized bool            // an initialize call was answered with a result
	answered    chan struct{}
}

func newInflight() *inflight {
	return &inflight{pending: map[string]bool{}, inits: map[string]bool{}, answered: make(chan struct{}, 1)}
}

// idKey tells a string id from a number one ("1" from 1), as JSON-RPC does.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// sent notes a call passed on, or reports false, noting nothing, if its id
// is in use.
func (c *inflight) sent(req *jsonrpc.Request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := idKey(req.ID)
	if c.pending[key] {
		return false
	}
	c.pending[key] = true
	if req.Method == "initialize" {
		c.inits[key] = true
	}
	return true
}

// answer reads a message the server is about to write: the answer to a
// call, or nil. An error the SDK gives without a JSON-RPC code (code 0,
// which JSON-RPC does not define) gets one: -32600, invalid request, for a
// call the session's state refuses (a call before initialize, initialize
// again), else -32603, internal error. The SDK returns these as plain Go
// errors from its own request handling, before any middleware lore could
// add, so only its output can be mended.
func (c *inflight) answer(line []byte) (resp *jsonrpc.Response, fixed []byte) {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return nil, line
	}
	var werr *jsonrpc.Error
	if !errors.As(resp.Error, &werr) || werr.Code != 0 {
		return resp, line
	}
	c.mu.Lock()
	refused := !c.initialized || c.inits[idKey(resp.ID)]
	c.mu.Unlock()
	werr.Code = jsonrpc.CodeInternalError
	if refused {
		werr.Code = jsonrpc.CodeInvalidRequest
	}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return resp, line
	}
	return resp, append(b, '\n')
}

// settle notes an answer about to be written, and reports whether it
// settles a call, for which written must follow the write. Its id is free
// before the write, as in the SDK: the client may use it again as soon as
// it has read the answer.
func (c *inflight) settle(resp *jsonrpc.Response) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := idKey(resp.ID)
	if !c.pending[key] {
		return false // an answer to no call passed on
	}
	delete(c.pending, key)
	if c.inits[key] {
		delete(c.inits, key)
		if resp.Error == nil {
			c.initialized = true
		}
	}
	c.writing++
	return true
}

// written notes the end of the write of an answer that settled a call.
func (c *inflight) written() {
	c.mu.Lock()
	c.writing--
	c.mu.Unlock()
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
		open := len(c.pending) + c.writing
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
// gives the SDK's errors a JSON-RPC code, and tells calls about each
// answer written.
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *inflight
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil {
		return l.w.Write(p)
	}
	resp, out := l.calls.answer(p)
	if resp != nil && l.calls.settle(resp) {
		defer l.calls.written()
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeOwn writes jsonLines' answer to a line it did not pass on, which
// settles no call.
func (l *lockedWriter) writeOwn(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
