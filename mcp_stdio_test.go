package main

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
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
