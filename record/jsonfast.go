package record

import (
	"cmp"
	"strconv"
	"time"
	"unicode/utf8"
)

// decodeFast decodes line into r when the line is in the plain form lore
// writes: one object whose keys are Record's JSON names spelled exactly,
// each once, whose strings hold valid UTF-8 and no escaped surrogates, and
// whose values have the fields' JSON types (no null). It returns false for
// anything else, and the caller hands the line to encoding/json, so this
// is a shortcut, not a second definition of the format: FuzzDecodeFast
// holds it to encoding/json's result. Parsing every shard after a pull or
// a clone is mostly decoding, and reflection made it several times slower.
func decodeFast(line []byte, r *Record) bool {
	d := fastDecoder{b: line}
	d.space()
	if !d.byte('{') {
		return false
	}
	var seen uint32
	d.space()
	if d.byte('}') {
		return d.end()
	}
	for {
		d.space()
		key, ok := d.str()
		if !ok {
			return false
		}
		f, known := fastFields[key]
		if !known || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		d.space()
		if !d.byte(':') {
			return false
		}
		d.space()
		if !d.field(f, r) {
			return false
		}
		d.space()
		if d.byte('}') {
			return d.end()
		}
		if !d.byte(',') {
			return false
		}
	}
}

type fastField uint8

const (
	fV fastField = iota
	fID
	fKind
	fTime
	fCreated
	fStatus
	fText
	fTags
	fAuthor
	fBranch
	fCommit
	fRationale
	fAlternatives
	fContext
	fSolution
	fAnti
	fConfidence
	fValidations
	fErrorType
	fTool
	fNext
	fBlocked
	fPromotedTo
	fFrom
)

var fastFields = map[string]fastField{
	"v": fV, "id": fID, "kind": fKind, "ts": fTime, "created": fCreated, "status": fStatus,
	"text": fText, "tags": fTags, "author": fAuthor, "branch": fBranch, "commit": fCommit,
	"rationale": fRationale, "alternatives": fAlternatives, "context": fContext,
	"solution": fSolution, "anti": fAnti, "confidence": fConfidence, "validations": fValidations,
	"error_type": fErrorType, "tool": fTool, "next": fNext, "blocked": fBlocked,
	"promoted_to": fPromotedTo, "from": fFrom,
}

// stringField is the plain string field f.
func (r *Record) stringField(f fastField) *string {
	switch f {
	case fID:
		return &r.ID
	case fStatus:
		return &r.Status
	case fText:
		return &r.Text
	case fAuthor:
		return &r.Author
	case fBranch:
		return &r.Branch
	case fCommit:
		return &r.Commit
	case fRationale:
		return &r.Rationale
	case fAlternatives:
		return &r.Alternatives
	case fContext:
		return &r.Context
	case fSolution:
		return &r.Solution
	case fErrorType:
		return &r.ErrorType
	case fTool:
		return &r.Tool
	case fPromotedTo:
		return &r.PromotedTo
	case fFrom:
		return &r.From
	}
	return nil
}

// listField is the list field f: tags, next or blocked.
func (r *Record) listField(f fastField) *[]string {
	switch f {
	case fTags:
		return &r.Tags
	case fNext:
		return &r.Next
	}
	return &r.Blocked
}

// timeField is the time field f: ts or created.
func (r *Record) timeField(f fastField) *time.Time {
	if f == fCreated {
		return &r.Created
	}
	return &r.Time
}

type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) field(f fastField, r *Record) bool {
	switch f {
	case fV, fValidations:
		n, ok := d.int()
		if f == fV {
			r.V = n
		} else {
			r.Validations = n
		}
		return ok
	case fKind:
		s, ok := d.str()
		r.Kind = Kind(s)
		return ok
	case fTime, fCreated:
		start := d.i
		if _, ok := d.str(); !ok {
			return false
		}
		// What encoding/json does too: time.Time decodes its own
		// quoted text, escapes and all.
		return r.timeField(f).UnmarshalJSON(d.b[start:d.i]) == nil
	case fTags, fNext, fBlocked:
		list, ok := d.strs()
		*r.listField(f) = list
		return ok
	case fAnti:
		switch {
		case d.word("true"):
			r.Anti = true
		case d.word("false"):
			r.Anti = false
		default:
			return false
		}
		return true
	case fConfidence:
		start := d.i
		if !d.number(true) {
			return false
		}
		v, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
		if err != nil {
			return false
		}
		r.Confidence = &v
		return true
	}
	s, ok := d.str()
	*r.stringField(f) = s
	return ok
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *fastDecoder) byte(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *fastDecoder) word(w string) bool {
	if len(d.b)-d.i >= len(w) && string(d.b[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	return false
}

// end: only whitespace may follow the object.
func (d *fastDecoder) end() bool {
	d.space()
	return d.i == len(d.b)
}

// str decodes a JSON string.
func (d *fastDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return string(s), utf8.Valid(s)
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		}
		d.i++
	}
	return "", false
}

// escaped finishes a string from start, once an escape was met.
func (d *fastDecoder) escaped(start int) (string, bool) {
	out := make([]byte, 0, 2*(d.i-start)+16)
	out = append(out, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), utf8.Valid(out)
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		e := d.b[d.i+1]
		d.i += 2
		if c, ok := shortEscape(e); ok || e == '/' {
			out = append(out, cmp.Or(c, e))
			continue
		}
		switch e {
		case 'u':
			if d.i+4 > len(d.b) {
				return "", false
			}
			v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
			if err != nil || v >= 0xD800 && v < 0xE000 {
				return "", false // surrogates: left to encoding/json
			}
			out = utf8.AppendRune(out, rune(v))
			d.i += 4
		default:
			return "", false
		}
	}
	return "", false
}

// shortEscape is the byte a one-letter escape stands for in JSON's and
// TOML's basic strings alike (JSON adds \/).
func shortEscape(e byte) (byte, bool) {
	switch e {
	case '"', '\\':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// strs decodes an array of strings; [] is an empty, non-nil slice, as
// encoding/json makes it.
func (d *fastDecoder) strs() ([]string, bool) {
	if !d.byte('[') {
		return nil, false
	}
	list := []string{}
	d.space()
	if d.byte(']') {
		return list, true
	}
	for {
		d.space()
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		list = append(list, s)
		d.space()
		if d.byte(']') {
			return list, true
		}
		if !d.byte(',') {
			return nil, false
		}
	}
}

// int decodes an integer that fits an int.
func (d *fastDecoder) int() (int, bool) {
	start := d.i
	if !d.number(false) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 0)
	return int(n), err == nil
}

// number skips a JSON number: -?(0|[1-9][0-9]*), then, if frac, an
// optional fraction and exponent.
func (d *fastDecoder) number(frac bool) bool {
	d.byte('-')
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.byte('0') {
		if d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			return false
		}
	} else if digits() == 0 {
		return false
	}
	if !frac {
		return d.i >= len(d.b) || !isNumberByte(d.b[d.i])
	}
	if d.byte('.') && digits() == 0 {
		return false
	}
	if d.byte('e') || d.byte('E') {
		if !d.byte('+') {
			d.byte('-')
		}
		if digits() == 0 {
			return false
		}
	}
	return d.i >= len(d.b) || !isNumberByte(d.b[d.i])
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}
