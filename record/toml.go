package record

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"lore/internal/tomlerr"
)

// Patterns live in TOML, one [[pattern]] table per version, because people
// edit and review them by hand. A file is split at its table headers and
// each table decoded on its own, so one bad table is skipped with its line
// number and every other pattern is still served.

// tomlHeader is the header lore writes; people may write others (IsPatternHeader).
const tomlHeader = "[[pattern]]"

type patternFile struct {
	Pattern []Record `toml:"pattern"`
}

// MarshalTable encodes r as one [[pattern]] table, preceded by a blank line.
// Bytes that are not UTF-8 are written as U+FFFD, as encoding/json
// writes them in JSONL: TOML text must be UTF-8, and a table holding such
// a byte would never be read back.
func (r *Record) MarshalTable() ([]byte, error) {
	if !r.ValidUTF8() {
		c := *r
		toValidUTF8(reflect.ValueOf(&c).Elem())
		r = &c
	}
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

// ValidUTF8 reports whether every text r holds is UTF-8, as it nearly
// always is: the copy toValidUTF8 needs is made only when it is not.
func (r *Record) ValidUTF8() bool {
	ok := true
	eachString(reflect.ValueOf(r).Elem(), false, func(v reflect.Value) { ok = ok && utf8.ValidString(v.String()) })
	return ok
}

// toValidUTF8 replaces the bytes that are not UTF-8 in every string v
// holds (fields, lists, anchors) with U+FFFD. Slices are copied first:
// the record v was copied from shares them.
func toValidUTF8(v reflect.Value) {
	eachString(v, true, func(s reflect.Value) { s.SetString(strings.ToValidUTF8(s.String(), "\uFFFD")) })
}

// eachString calls f with every string in v, copying each slice first when
// f is to change them.
func eachString(v reflect.Value, copySlices bool, f func(reflect.Value)) {
	switch v.Kind() {
	case reflect.String:
		f(v)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				eachString(v.Field(i), copySlices, f)
			}
		}
	case reflect.Slice:
		if copySlices && v.Len() > 0 {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			v.Set(c)
		}
		for i := range v.Len() {
			eachString(v.Index(i), copySlices, f)
		}
	}
}

// TableChunk is one [[pattern]] table's text and the line it starts on.
type TableChunk struct {
	Line int
	Text string
}

// SplitTables cuts a patterns file at its [[pattern]] headers: lines that
// open the table as TOML allows ([[ pattern ]], [["pattern"]], a comment
// after it), where a table may open (not inside a multi-line string or an
// array, whose lines can look like a header). Text before the first header
// that is not blank or a comment is returned as stray. A line that is the
// start of lore's header and no more ([[pat: an append cut off in its
// header) starts a table of its own, which does not read: as part of the
// table above, it would cost that table, and its brackets, read as arrays
// left open, every table after it.
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
	var st tomlState
	for i, l := range lines {
		t := strings.TrimSpace(l)
		torn := st.atTop() && IsTornHeader(t)
		if torn || st.atTop() && IsPatternHeader(t) {
			flush()
			cur = 1 + i
		}
		if !torn {
			st.feed(l)
		}
		if cur < 0 {
			if t != "" && !strings.HasPrefix(t, "#") {
				stray = append(stray, 1+i)
			}
			continue
		}
		sb.WriteString(l)
	}
	flush()
	return chunks, stray
}

// splitAtHeaders cuts a table that does not decode where another table
// may start after all: an unclosed array, or a multi-line string that runs
// to the end of the table, then costs the table it is in, not every table
// after it. A multi-line string that closes is text, whatever its lines
// look like, so a header inside it is not cut at: a pattern written out
// in a string, headers and all, is never read as a record of its own
// (at the price of a string left open and closed by a later table's, as
// TOML reads it, hiding that table too). A line that is the start of a
// header, an append cut off mid-write ([[pat), is cut at too, so the
// table above it is still read.
func splitAtHeaders(c TableChunk) []TableChunk {
	lines := strings.SplitAfter(c.Text, "\n")
	var starts, open []int // cuts; header lines inside the string now open
	var st tomlState
	for i, l := range lines {
		if t := strings.TrimSpace(l); i > 0 && (IsPatternHeader(t) || IsTornHeader(t)) {
			if st.str == "" {
				starts = append(starts, i)
			} else {
				open = append(open, i)
			}
		}
		closes := st.closes
		if st.feed(l); st.closes != closes {
			open = open[:0] // inside a string that closed: text
		}
	}
	starts = append(starts, open...) // inside a string that never closes
	slices.Sort(starts)
	chunks := make([]TableChunk, 0, len(starts)+1)
	from := 0
	for _, to := range append(starts, len(lines)) {
		chunks = append(chunks, TableChunk{Line: c.Line + from, Text: strings.Join(lines[from:to], "")})
		from = to
	}
	return chunks
}

// IsTornHeader reports whether line t, without its surrounding blanks, is
// the start of lore's [[pattern]] header and no more: what an append cut
// off inside its header leaves.
func IsTornHeader(t string) bool {
	return t != "" && len(t) < len(tomlHeader) && strings.HasPrefix(tomlHeader, t)
}

// IsPatternHeader reports whether line t, without its surrounding blanks,
// opens a [[pattern]] table: the key bare or quoted, blanks inside the
// brackets, a comment after them. The key's case is not looked at, as the TOML
// library matches keys to fields whatever their case: [[Pattern]] decodes
// as a pattern, so it must start a table of its own.
func IsPatternHeader(t string) bool {
	rest, ok := strings.CutPrefix(t, "[[")
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	for _, q := range []string{"", `"`, "'"} {
		key := q + "pattern" + q
		if len(rest) < len(key) || !strings.EqualFold(rest[:len(key)], key) {
			continue
		}
		if r, ok := strings.CutPrefix(strings.TrimLeft(rest[len(key):], " \t"), "]]"); ok {
			r = strings.TrimLeft(r, " \t")
			return r == "" || r[0] == '#'
		}
	}
	return false
}

// tomlState follows TOML text line by line, far enough to tell whether a
// line starts where a table header may stand: outside every multi-line
// string and array.
type tomlState struct {
	str    string // the delimiter of the multi-line string open, if any
	depth  int    // arrays open
	closes int    // multi-line strings closed so far
}

func (s *tomlState) atTop() bool { return s.str == "" && s.depth == 0 }

// feed follows one line.
func (s *tomlState) feed(l string) {
	for i := 0; i < len(l); i++ {
		c := l[i]
		if s.str != "" {
			switch {
			case c == '\\' && s.str == `"""`:
				i++ // an escaped character, a quote among them
			case strings.HasPrefix(l[i:], s.str):
				i += 2
				s.str = ""
				s.closes++
			}
			continue
		}
		switch c {
		case '#':
			return // a comment, to the end of the line
		case '"', '\'':
			if d := l[i:min(i+3, len(l))]; d == `"""` || d == "'''" {
				s.str = d
				i += 2
				continue
			}
			// A one-line string, to its closing quote.
			for i++; i < len(l) && l[i] != c && l[i] != '\n'; i++ {
				if c == '"' && l[i] == '\\' {
					i++
				}
			}
		case '[':
			s.depth++
		case ']':
			s.depth = max(s.depth-1, 0)
		}
	}
}

// UnmarshalTable decodes one [[pattern]] table. Errors carry the line
// within the file (chunk.Line based).
func UnmarshalTable(c TableChunk) (*Record, error) {
	var r Record
	if decodeTableFast(c.Text, &r) {
		if err := r.validateStored(); err != nil {
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
		line, key, msg := tomlerr.Where(c.Text, err)
		if errors.As(err, new(*time.ParseError)) || strings.HasPrefix(msg, "parsing time ") {
			msg = "is not " + timeWords // not Go's "as 2006-01-02T15:04:05Z07:00"
		}
		if key != "" {
			msg = strings.TrimPrefix(key, "pattern.") + ": " + msg
		}
		return nil, &LineError{Line: c.Line + max(line, 1) - 1, Err: errors.New(msg)}
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
	if err := r.validateStored(); err != nil {
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
