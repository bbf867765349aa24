package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// TestHeadID: the id of a line too long to read, from its start.
func TestHeadID(t *testing.T) {
	for head, want := range map[string]string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"aaaa`: `2`,
		` { "jsonrpc" : "2.0" , "id" : "a\"b" , "params":{`:                                                  `"a\"b"`,
		`{"id":-1.5e3,"params":[`:                    `-1.5e3`,
		`{"method":"x","params":{"q":"aaaa","id":3`:  `null`, // the id of params, which is not whole
		`{"jsonrpc":"2.0","method":"x","params":"aa`: `null`,
		`{"jsonrpc":"2.0","id":1234`:                 `null`, // 12345…, cut off
		`{"jsonrpc":"2.0","id":{"a":1},"method":"x"`: `null`,
		`{"jsonrpc":"2.0","id":null,"method":"x"`:    `null`,
		`{"ID":3,"method":"x"`:                       `null`, // the SDK reads "id" only
		`[{"id":3,"method":"x"`:                      `null`,
		`not json "id":3,`:                           `null`,
		``:                                           `null`,
	} {
		if got := headID([]byte(head)); got != want {
			t.Errorf("headID(%q) = %s, want %s", head, got, want)
		}
	}
}

// TestJSONLinesLongLine: a line over the limit is answered and dropped,
// and not held whole; the lines after it are read.
func TestJSONLinesLongLine(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"q":"` + strings.Repeat("x", 1<<20) + `"}}`
	in := long + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	var out bytes.Buffer
	j := &jsonLines{r: bufio.NewReader(strings.NewReader(in)), out: &out, max: 64 << 10}
	line, size, err := j.readLine()
	if err != nil || size != len(long)+1 || len(line) > j.max {
		t.Fatalf("readLine: %d bytes kept of %d, %v", len(line), size, err)
	}
	j = &jsonLines{r: bufio.NewReader(strings.NewReader(in)), out: &out, max: 64 << 10}
	var passed bytes.Buffer
	if _, err := passed.ReadFrom(j); err != nil {
		t.Fatal(err)
	}
	if passed.String() != `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n" {
		t.Errorf("passed on %.100q", passed.String())
	}
	want := `{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"invalid request: the line is 1048645 bytes, over the 64 KiB a request line may hold; it was dropped"}}` + "\n"
	if out.String() != want {
		t.Errorf("answered %q\nwant %q", out.String(), want)
	}
}

// readLines reads from j what it passes on, n lines of it.
func readLines(t *testing.T, j *jsonLines, n int) string {
	t.Helper()
	var passed []byte
	p := make([]byte, 64<<10)
	for range n {
		k, err := j.Read(p)
		if err != nil {
			t.Fatalf("Read: %v, after passing on %q", err, passed)
		}
		passed = append(passed, p[:k]...)
	}
	return string(passed)
}

// TestJSONLinesNullID: a call with an id of null, which the SDK would take
// for a notification and never answer, is answered with -32600 and not
// passed on; a notification and calls with ids are passed on.
func TestJSONLinesNullID(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":null,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"id":null,"method":"ping"}` + "\n" + // the SDK reads the last id
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","ID":null,"method":"notifications/initialized"}` + "\n" + // the SDK reads "id" only
		`{"jsonrpc":"2.0","id":0,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":"","method":"ping"}` + "\n"
	var out bytes.Buffer
	calls := newInflight()
	j := &jsonLines{r: bufio.NewReader(strings.NewReader(in)), out: &lockedWriter{w: &out, calls: calls}, calls: calls}
	passed := readLines(t, j, 4)
	want := `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","ID":null,"method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":0,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":"","method":"ping"}` + "\n"
	if passed != want {
		t.Errorf("passed on %q\nwant %q", passed, want)
	}
	answer := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or a number, not null (MCP)"}}` + "\n"
	if out.String() != answer+answer {
		t.Errorf("answered %q\nwant %q twice", out.String(), answer)
	}
}

// TestJSONLinesIDInUse: a call whose id is in use by a call not yet
// answered, which the SDK would drop unanswered, is answered with -32600
// and its id and not passed on, and that answer leaves the id in use; the
// first call's answer frees it, for a call after it (MCP forbids that
// too, but lore does not hold every id a session used). The end of input
// then waits for nothing.
func TestJSONLinesIDInUse(t *testing.T) {
	call := func(id, text string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"observe","arguments":{"text":"` + text + `"}}}` + "\n"
	}
	in := call("17", "A") + call("17", "B") + call("17.0", "C") + call(`"17"`, "D") + call("17", "E")
	var out bytes.Buffer
	calls := newInflight()
	w := &lockedWriter{w: &out, calls: calls}
	j := &jsonLines{r: bufio.NewReader(strings.NewReader(in)), out: w, calls: calls}
	if got := readLines(t, j, 2); got != call("17", "A")+call(`"17"`, "D") {
		t.Errorf("passed on %q\nwant A and D", got)
	}
	inUse := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: id ` + strings.ReplaceAll(id, `"`, `\"`) + ` is in use by a request not yet answered (MCP: an id is not reused in a session)"}}` + "\n"
	}
	if want := inUse("17") + inUse("17"); out.String() != want {
		t.Errorf("answered %q\nwant %q", out.String(), want)
	}
	// The SDK answers A and D.
	out.Reset()
	for _, a := range []string{`{"jsonrpc":"2.0","id":17,"result":{}}` + "\n", `{"jsonrpc":"2.0","id":"17","result":{}}` + "\n"} {
		if _, err := w.Write([]byte(a)); err != nil {
			t.Fatal(err)
		}
	}
	if got := readLines(t, j, 1); got != call("17", "E") {
		t.Errorf("passed on %q\nwant E, whose id's call was answered", got)
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":17,"result":{}}` + "\n"))
	calls.mu.Lock()
	open := len(calls.pending)
	calls.mu.Unlock()
	if open != 0 {
		t.Errorf("%d ids still in use after every call passed on was answered", open)
	}
	start := time.Now()
	if n, err := j.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("Read at the end: %d, %v", n, err)
	}
	if d := time.Since(start); d > answerGrace/2 {
		t.Errorf("the end of input waited %v", d)
	}
}

// TestJSONLinesIDFreeOnAnswer: a call's id is free once its answer is being
// written, not only once written: a client that has read the answer may
// send the id again before the write returns.
func TestJSONLinesIDFreeOnAnswer(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	calls := newInflight()
	var passed, answered string
	j := &jsonLines{r: bufio.NewReader(strings.NewReader(in)), calls: calls}
	w := &lockedWriter{calls: calls, w: writerFunc(func(p []byte) (int, error) {
		first := answered == ""
		answered += string(p)
		if !first {
			return len(p), nil
		}
		// The client, answered, sends the id again, which the SDK's
		// reader reads while the answer is still being written.
		read := make(chan string, 1)
		go func() {
			b := make([]byte, 1024)
			n, _ := j.Read(b)
			read <- string(b[:n])
		}()
		select {
		case line := <-read:
			passed += line
		case <-time.After(5 * time.Second):
			t.Error("no line read while the answer was written")
		}
		return len(p), nil
	})}
	j.out = w
	passed = readLines(t, j, 1)
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	if want := strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", 2); passed != want {
		t.Errorf("passed on %q\nwant %q", passed, want)
	}
	if answered != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
		t.Errorf("answered %q", answered)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
