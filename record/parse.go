package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadVersion names what reading a shard yields. Bump it whenever a change
// to the readers makes an unchanged shard read as other records (r2: a
// TOML table in merge conflict is read as both sides, where it was
// dropped; r3: a record after a torn fragment on its line is read, a
// header inside a multi-line string is no table, and a table above a
// torn header is read): the index trusts a shard that has not changed
// since it was indexed, so one stamped with another ReadVersion is rebuilt.
const ReadVersion = "r3"

// Warning is a problem found while reading that does not stop the read:
// the line is skipped and every other record is still served.
type Warning struct {
	Pos  Pos
	Kind WarningKind
	Msg  string
}

// WarningKind classifies warnings so doctor can decide what is safe to fix.
type WarningKind int

const (
	WarnMalformed  WarningKind = iota // a line or table that does not parse
	WarnTorn                          // a last line cut off mid-write
	WarnConflict                      // a git conflict marker
	WarnUnreadable                    // a shard that cannot be read (its permissions, an I/O error)
	WarnSpread                        // one record a formatter spread over several lines (Pos: its first)
	WarnLFSPointer                    // a Git LFS pointer where the shard's text should be (Pos: the file)
	WarnTornBefore                    // a torn fragment with a whole record after it on its line (the record is read)
)

func (w Warning) String() string { return fmt.Sprintf("%s: %s", w.Pos, w.Msg) }

// ParseShard reads a shard of either format, by its extension: TOML for
// patterns, JSONL for the rest. name is used in positions.
func ParseShard(name string, data []byte) ([]*Record, []Warning, error) {
	// A byte-order mark some Windows editors put first is no record and
	// no text: the first line is read after it.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if IsLFSPointer(data) {
		return nil, []Warning{{Pos{name, 0}, WarnLFSPointer, LFSPointerMsg}}, nil
	}
	if strings.HasSuffix(name, ".toml") {
		return ParseTOML(name, data)
	}
	return ParseJSONL(name, data)
}

// ParseJSONL reads one JSONL shard. name is used in positions.
func ParseJSONL(name string, data []byte) ([]*Record, []Warning, error) {
	var recs []*Record
	var warns []Warning
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		line := data
		complete := false
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data, complete = data[:i], data[i+1:], true
		} else {
			data = nil
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		pos := Pos{name, lineNo}
		if IsConflictMarker(line) {
			warns = append(warns, Warning{pos, WarnConflict, "git conflict marker; records on both sides are kept, remove the marker lines"})
			continue
		}
		r, err := UnmarshalLine(line)
		if err != nil {
			var nf *ErrNewerFormat
			if errors.As(err, &nf) {
				return nil, nil, fmt.Errorf("%s: record %w", pos, &ErrNewerFormat{nf.Version, pos})
			}
			if complete {
				if n, size, _ := Spread(line, data); n > 0 {
					warns = append(warns, Warning{pos, WarnSpread, SpreadMsg(lineNo, lineNo+n)})
					lineNo += n
					data = data[size:]
					continue
				}
			}
			if _, r := TornBefore(line); r != nil {
				r.Source = pos
				recs = append(recs, r)
				warns = append(warns, Warning{pos, WarnTornBefore, TornBeforeMsg(r.ID)})
				continue
			}
			if !complete && CutShort(line) {
				warns = append(warns, Warning{pos, WarnTorn, "torn last line (cut off mid-write) skipped; run 'lore doctor --fix'"})
			} else {
				warns = append(warns, Warning{pos, WarnMalformed, "malformed record skipped: " + err.Error()})
			}
			continue
		}
		r.Source = pos
		recs = append(recs, r)
	}
	return recs, warns, nil
}

// ParseTOML reads one patterns shard. A shard a merge left with git's
// conflict markers is read once for each side (parseConflicted); any other
// is read as it is.
func ParseTOML(name string, data []byte) ([]*Record, []Warning, error) {
	if mayHaveMarkers(data) {
		if ours, theirs, marks := conflictSides(name, data); marks != nil {
			return parseConflicted(name, ours, theirs, marks)
		}
	}
	return parseTOMLText(name, data, nil)
}

// parseTOMLText reads TOML text without conflict markers. lineOf, when not
// nil, is the line of the file each line of data is (data is one side of a
// conflict): every position is given as that line.
func parseTOMLText(name string, data []byte, lineOf []int) ([]*Record, []Warning, error) {
	at := func(l int) Pos {
		switch {
		case lineOf == nil || l < 1:
		case l <= len(lineOf):
			l = lineOf[l-1]
		default: // past the last line, as an error at the end may be
			l = lineOf[len(lineOf)-1] + l - len(lineOf)
		}
		return Pos{name, l}
	}
	var recs []*Record
	var warns []Warning
	chunks, stray := SplitTables(data)
	for _, l := range stray {
		warns = append(warns, Warning{at(l), WarnMalformed, "text outside a [[pattern]] table skipped"})
	}
	for k := 0; k < len(chunks); k++ {
		c := chunks[k]
		r, err := UnmarshalTable(c)
		if err != nil {
			// An unclosed string or array may have hidden the headers
			// after it: read the tables it swallowed one by one.
			if parts := splitAtHeaders(c); len(parts) > 1 {
				chunks = append(append(chunks[:k:k], parts...), chunks[k+1:]...)
				k--
				continue
			}
			if HeaderOnly(c.Text) {
				warns = append(warns, Warning{at(c.Line), WarnTorn, "[[pattern]] header with no table after it (an append cut off mid-write) skipped; run 'lore doctor --fix'"})
				continue
			}
			var nf *ErrNewerFormat
			if errors.As(err, &nf) {
				pos := at(c.Line)
				return nil, nil, fmt.Errorf("%s: record %w", pos, &ErrNewerFormat{nf.Version, pos})
			}
			line := c.Line
			var le *LineError
			if errors.As(err, &le) {
				line, err = le.Line, le.Err
			}
			kind := WarnMalformed
			if !strings.HasSuffix(c.Text, "\n") {
				kind = WarnTorn
			}
			warns = append(warns, Warning{at(line), kind, "malformed [[pattern]] table skipped: " + err.Error()})
			continue
		}
		r.Source = at(c.Line)
		recs = append(recs, r)
	}
	return recs, warns, nil
}

// HeaderOnly reports whether a table's text is its header, whole or cut
// off ([[pat), and nothing else but blank lines and comments: it holds no
// record, only the start of an append cut off in or right after its header.
func HeaderOnly(text string) bool {
	lines := strings.Split(text, "\n")
	if t := strings.TrimSpace(lines[0]); !IsPatternHeader(t) && !IsTornHeader(t) {
		return false
	}
	for _, l := range lines[1:] {
		if t := strings.TrimSpace(l); t != "" && t[0] != '#' {
			return false
		}
	}
	return true
}

// maxTornTries bounds the places TornBefore tries a record from: a line
// of nothing but "{" costs that many reads, not one per byte.
const maxTornTries = 64

// TornBefore finds, in a JSONL line that does not read, a record written
// after a torn line without a newline between (by another writer: lore's
// append starts a new line after one): the line is a JSON object cut
// short (CutShort), then, from at on, one whole record.
// It returns the record, or nil when the line is not that. The record is
// looked for where an object opens with a key, from the right: {" never
// stands inside a JSON string (its quote would be escaped), so the only
// places inside the record are its own nested objects, which do not end
// the line.
func TornBefore(line []byte) (at int, r *Record) {
	end := len(line)
	for range maxTornTries {
		at = bytes.LastIndex(line[:end], []byte(`{"`))
		if at <= 0 {
			return 0, nil
		}
		if r, err := UnmarshalLine(line[at:]); err == nil && CutShort(line[:at]) {
			return at, r
		}
		end = at
	}
	return 0, nil
}

// TornBeforeMsg is a reader's warning for a line TornBefore splits.
func TornBeforeMsg(id string) string {
	return "torn line (cut off mid-write) with a record (" + ShortID(id) + ") written after it on the same line: the record is read, the fragment skipped; run 'lore doctor --fix'"
}

// CutShort reports whether line is the start of a JSON object that ends
// early: the decoder runs out of input before it finds anything wrong. Only
// such a last line without its newline is an interrupted write; a whole
// line with a mistake in it was written by someone.
func CutShort(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("{")) {
		return false
	}
	var v any
	return errors.Is(json.NewDecoder(bytes.NewReader(line)).Decode(&v), io.ErrUnexpectedEOF)
}

func IsConflictMarker(line []byte) bool {
	for _, m := range []string{"<<<<<<< ", ">>>>>>> ", "||||||| "} {
		if bytes.HasPrefix(line, []byte(m)) {
			return true
		}
	}
	t := bytes.TrimRight(line, "\r\n")
	return string(t) == "=======" || string(t) == "<<<<<<<" || string(t) == ">>>>>>>"
}

// A record a formatter spread over several lines (json.dumps(obj,
// indent=2), jq .) is looked for only that far.
const (
	maxSpreadLines = 10000
	maxSpreadBytes = 1 << 20
)

// Spread finds the record a formatter spread over several lines from
// first, a JSONL line (without its line ending) that does not read on its
// own: rest is the text after first's newline. The lines that may belong
// to it end before a line that starts a new object in column 0, a blank
// line or a conflict marker; the first JSON value from first must end a
// line among them and be one valid record. It returns how many lines of
// rest the record takes, how many bytes of rest (its last line's ending
// included), and the record on one line; 0, 0, nil when there is none.
// The value is read with one decoder pass, so a line that merely looks
// like a start costs no more than the lines after it it reads.
func Spread(first, rest []byte) (n, size int, joined []byte) {
	if !bytes.HasPrefix(bytes.TrimLeft(first, " \t"), []byte("{")) {
		return 0, 0, nil
	}
	end, lines := 0, 0
	for end < len(rest) && lines < maxSpreadLines && end < maxSpreadBytes {
		l, next := rest[end:], len(rest)
		if i := bytes.IndexByte(l, '\n'); i >= 0 {
			l, next = l[:i], end+i+1
		}
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 || bytes.HasPrefix(l, []byte("{")) || IsConflictMarker(l) {
			break
		}
		end, lines = next, lines+1
	}
	if lines == 0 {
		return 0, 0, nil
	}
	text := make([]byte, 0, len(first)+1+end)
	text = append(append(append(text, first...), '\n'), rest[:end]...)
	dec := json.NewDecoder(bytes.NewReader(text))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return 0, 0, nil
	}
	off := int(dec.InputOffset())
	if off <= len(first) {
		return 0, 0, nil // it ends on the first line: that line has more after it
	}
	tail := text[off:]
	nl := bytes.IndexByte(tail, '\n')
	if nl < 0 {
		nl = len(tail)
	}
	if len(bytes.TrimSpace(tail[:nl])) > 0 {
		return 0, 0, nil // the value does not end its line
	}
	var one bytes.Buffer
	if json.Compact(&one, raw) != nil {
		return 0, 0, nil
	}
	if _, err := UnmarshalLine(one.Bytes()); err != nil {
		return 0, 0, nil
	}
	inRest := off - len(first) - 1
	size = inRest + nl
	if nl < len(tail) {
		size++
	}
	return bytes.Count(rest[:inRest], []byte("\n")) + 1, size, one.Bytes()
}

// SpreadMsg is a reader's warning for a record on lines from to to.
func SpreadMsg(from, to int) string {
	return fmt.Sprintf("lines %d-%d hold one record spread over several lines, as a formatter leaves it: skipped; 'lore doctor --fix' joins it into one line", from, to)
}

// lfsPointer starts a Git LFS pointer file (its spec's first line).
const lfsPointer = "version https://git-lfs.github.com/spec/v1"

// LFSPointerMsg is a reader's warning for a shard that holds a Git LFS
// pointer instead of its records.
const LFSPointerMsg = "a Git LFS pointer, not records: run git lfs pull, and keep .lore out of LFS (lore doctor --fix writes the attributes)"

// IsLFSPointer reports whether a shard's content is a Git LFS pointer: a
// repository whose attributes send *.jsonl or *.toml through LFS stores
// one in place of the shard, and a checkout without the object (or a
// merge that joined two pointers line by line) leaves it in the file.
func IsLFSPointer(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, []byte(lfsPointer))
	return ok && (len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r')
}
