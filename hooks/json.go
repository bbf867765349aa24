package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// object is a JSON object that keeps its keys in order, so a settings
// file we edit keeps its shape: only lore's own entries change.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

func (o *object) get(k string) (json.RawMessage, bool) { v, ok := o.vals[k]; return v, ok }

func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *object) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return errNotObject
	}
	o.keys, o.vals = nil, map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.set(t.(string), v)
	}
	_, err = dec.Token()
	return err
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var errNotObject = errors.New("not a JSON object")

// bom is the UTF-8 byte-order mark some Windows editors start a file with.
const bom = "\xef\xbb\xbf"

// parseSettings reads a settings file's content as a JSON object; a syntax
// error names its line.
func parseSettings(data []byte) (*object, error) { return parseJSON(data, false) }

// parseJSON is parseSettings; for a file whose comments are blanked
// (parseFile), a trailing comma is an error like any other.
func parseJSON(data []byte, commentsBlanked bool) (*object, error) {
	data = bytes.TrimPrefix(data, []byte(bom))
	o := newObject()
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	if err := json.Unmarshal(data, o); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			if json.Valid(stripJSONC(data)) {
				if commentsBlanked { // the comments are kept: only commas remain
					return nil, fmt.Errorf("line %d: a trailing comma, which lore does not rewrite (it would be lost)", line)
				}
				return nil, fmt.Errorf("line %d: JSON with comments or trailing commas, which lore does not rewrite (they would be lost)", line)
			}
			return nil, fmt.Errorf("line %d: not valid JSON: %v", line, err)
		}
		if errors.Is(err, errNotObject) {
			return nil, errors.New("not a JSON object")
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	return o, nil
}

// render is the file's new content: two-space indented, newline-terminated.
func render(o *object) ([]byte, error) {
	raw := mustJSON(o)
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// inStyleOf gives out, rendered with LF line endings, the byte-order mark
// and the CRLF line endings of orig, the file it replaces: a Windows user's
// settings keep what their editor wrote, and a diff shows only lore's lines.
// (JSON strings hold no raw newline, so every LF in out ends a line.)
func inStyleOf(orig, out []byte) []byte {
	if usesCRLF(orig) {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	if bytes.HasPrefix(orig, []byte(bom)) {
		out = append([]byte(bom), out...)
	}
	return out
}

// usesCRLF reports whether most of data's lines end in CRLF.
func usesCRLF(data []byte) bool {
	crlf := bytes.Count(data, []byte("\r\n"))
	return crlf > 0 && crlf >= bytes.Count(data, []byte("\n"))-crlf
}

// kindOf names a JSON value's type, for messages.
func kindOf(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "empty"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "an array"
	case s[0] == '"':
		return "a string"
	case s == "null":
		return "null"
	case s == "true" || s == "false":
		return "a boolean"
	}
	return "a number"
}

// stripJSONC is data without the // and /* */ comments and the trailing
// commas that VS Code's and Gemini CLI's settings allow, to tell such a
// file from a broken one.
func stripJSONC(data []byte) []byte {
	// First the comments, then each comma that only white space parts from
	// a closing bracket; strings are copied as they are.
	var nc []byte
	eachOutsideStrings(data, func(i int, in bool) int {
		switch {
		case in:
		case data[i] == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			return i
		case data[i] == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return len(data)
			}
			return i + 2 + end + 2
		}
		nc = append(nc, data[i])
		return i + 1
	})
	var out []byte
	eachOutsideStrings(nc, func(i int, in bool) int {
		if !in && nc[i] == ',' {
			rest := bytes.TrimLeft(nc[i+1:], " \t\r\n")
			before := bytes.TrimRight(out, " \t\r\n")
			afterValue := len(before) > 0 && !bytes.ContainsAny(before[len(before)-1:], "[{,:")
			if afterValue && len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				return i + 1
			}
		}
		out = append(out, nc[i])
		return i + 1
	})
	return out
}

// eachOutsideStrings calls step with each position of data to visit and
// whether it is inside a JSON string; step returns the next position.
func eachOutsideStrings(data []byte, step func(i int, inString bool) int) {
	in := false
	for i := 0; i < len(data); {
		c := data[i]
		next := step(i, in)
		switch {
		case next != i+1:
		case in && c == '\\' && i+1 < len(data):
			next = step(i+1, in) // the escaped byte, whatever it is
		case c == '"':
			in = !in
		}
		i = next
	}
}
