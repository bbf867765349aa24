package record

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// Patterns live in TOML, one [[pattern]] table per version, because people
// edit and review them by hand. A file is split at its table headers and
// each table decoded on its own, so one bad table is skipped with its line
// number and every other pattern is still served.

const tomlHeader = "[[pattern]]"

type patternFile struct {
	Pattern []Record `toml:"pattern"`
}

// MarshalTable encodes r as one [[pattern]] table, preceded by a blank line.
func (r *Record) MarshalTable() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('\n')
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if len(r.Extra) == 0 {
		if err := enc.Encode(patternFile{Pattern: []Record{*r}}); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	// Unknown fields: round-trip through a map so nested values keep their
	// TOML shape. Keys come out sorted, which is still valid and readable.
	var plain bytes.Buffer
	if err := toml.NewEncoder(&plain).Encode(patternFile{Pattern: []Record{*r}}); err != nil {
		return nil, err
	}
	var m map[string][]map[string]any
	if _, err := toml.Decode(plain.String(), &m); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if _, known := m["pattern"][0][k]; !known {
			m["pattern"][0][k] = v
		}
	}
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TableChunk is one [[pattern]] table's text and the line it starts on.
type TableChunk struct {
	Line int
	Text string
}

// SplitTables cuts a patterns file at its [[pattern]] headers. Text before
// the first header that is not blank or a comment is returned as stray.
func SplitTables(data []byte) (chunks []TableChunk, stray []int) {
	lines := strings.SplitAfter(string(data), "\n")
	cur := -1
	var sb strings.Builder
	flush := func() {
		if cur >= 0 {
			chunks = append(chunks, TableChunk{Line: cur, Text: sb.String()})
		}
		sb.Reset()
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == tomlHeader {
			flush()
			cur = i + 1
		}
		if cur < 0 {
			if t != "" && !strings.HasPrefix(t, "#") {
				stray = append(stray, i+1)
			}
			continue
		}
		sb.WriteString(l)
	}
	flush()
	return chunks, stray
}

// UnmarshalTable decodes one [[pattern]] table. Errors carry the line
// within the file (chunk.Line based).
func UnmarshalTable(c TableChunk) (*Record, error) {
	var r Record
	if decodeTableFast(c.Text, &r) {
		if err := r.Validate(); err != nil {
			return nil, &LineError{Line: c.Line, Err: err}
		}
		return &r, nil
	}
	return unmarshalTableLib(c)
}

// unmarshalTableLib decodes any table with the TOML library.
func unmarshalTableLib(c TableChunk) (*Record, error) {
	var f patternFile
	md, err := toml.Decode(c.Text, &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &LineError{Line: c.Line + pe.Position.Line - 1, Err: errors.New(pe.Message)}
		}
		return nil, &LineError{Line: c.Line, Err: err}
	}
	if len(f.Pattern) != 1 {
		return nil, &LineError{Line: c.Line, Err: fmt.Errorf("want one [[pattern]] table, found %d", len(f.Pattern))}
	}
	r := f.Pattern[0]
	if und := md.Undecoded(); len(und) > 0 {
		var m map[string][]map[string]any
		if _, err := toml.Decode(c.Text, &m); err == nil && len(m["pattern"]) == 1 {
			for _, k := range und {
				if len(k) >= 2 && k[0] == "pattern" {
					if r.Extra == nil {
						r.Extra = map[string]any{}
					}
					r.Extra[k[1]] = m["pattern"][0][k[1]]
				}
			}
		}
	}
	if err := r.Validate(); err != nil {
		return nil, &LineError{Line: c.Line, Err: err}
	}
	return &r, nil
}

// LineError is an error at a line of a file.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }
