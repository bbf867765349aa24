package record

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// decodeTableFast decodes one [[pattern]] table when it is in the plain
// form lore writes: the header, then one `key = value` line per field
// (blank lines and whole-line comments aside), each key one of Record's
// names spelled exactly and given once, the values basic strings without
// the newer escapes, integers, decimal floats, booleans, UTC date-times or
// one-line arrays of strings. It returns false for anything else, and the
// caller hands the table to the TOML library, so this is a shortcut, not a
// second definition of TOML: FuzzDecodeTableFast holds it to the library's
// result. Decoding a pattern through the library cost about six times a
// JSON record.
func decodeTableFast(text string, r *Record) bool {
	header := false
	var seen uint32
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if strings.IndexFunc(line, func(c rune) bool { return c < 0x20 && c != '\t' || c == 0x7f }) >= 0 {
			return false // control characters, \r among them: the library's call
		}
		t := strings.Trim(line, " \t")
		switch {
		case t == "" || t[0] == '#':
			continue
		case !header:
			if t != tomlHeader {
				return false
			}
			header = true
			continue
		}
		eq := strings.IndexByte(t, '=')
		if eq < 0 {
			return false
		}
		f, known := fastFields[strings.TrimRight(t[:eq], " \t")]
		if !known || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		if !tableField(f, strings.TrimLeft(t[eq+1:], " \t"), r) {
			return false
		}
	}
	return header
}

// tableField decodes value v of field f; v has no surrounding blanks.
func tableField(f fastField, v string, r *Record) bool {
	switch f {
	case fV, fValidations:
		if !isTOMLInt(v) {
			return false
		}
		n, err := strconv.ParseInt(v, 10, 0)
		if f == fV {
			r.V = int(n)
		} else {
			r.Validations = int(n)
		}
		return err == nil
	case fTime, fCreated:
		// An offset date-time in UTC, seconds and a fraction as RFC 3339
		// has them; local and other-offset forms go to the library.
		if !isUTCDateTime(v) {
			return false
		}
		tm, err := time.Parse(time.RFC3339Nano, v)
		*r.timeField(f) = tm
		return err == nil
	case fTags, fNext, fBlocked:
		list, ok := tomlStrings(v)
		*r.listField(f) = list
		return ok
	case fAnti:
		r.Anti = v == "true"
		return v == "true" || v == "false"
	case fConfidence:
		if !isTOMLFloat(v) {
			return false
		}
		c, err := strconv.ParseFloat(v, 64)
		r.Confidence = &c
		return err == nil
	}
	s, rest, ok := tomlString(v)
	if !ok || rest != "" {
		return false
	}
	if f == fKind {
		r.Kind = Kind(s)
	} else {
		*r.stringField(f) = s
	}
	return true
}

// tomlString decodes the basic string at the start of v and returns what
// follows it.
func tomlString(v string) (s, rest string, ok bool) {
	if v == "" || v[0] != '"' || strings.HasPrefix(v, `"""`) {
		return "", "", false
	}
	var out []byte
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			if out == nil {
				s = v[1:i]
			} else {
				s = string(out)
			}
			return s, v[i+1:], utf8.ValidString(s)
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", "", false
		case c != '\\':
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(v)), v[1:i]...)
		}
		if i+1 >= len(v) {
			return "", "", false
		}
		i++
		if c, ok := shortEscape(v[i]); ok {
			out = append(out, c)
			continue
		}
		switch v[i] {
		case 'u', 'U':
			n := 4
			if v[i] == 'U' {
				n = 8
			}
			if i+n >= len(v) {
				return "", "", false
			}
			cp, err := strconv.ParseUint(v[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(cp)) {
				return "", "", false
			}
			out = utf8.AppendRune(out, rune(cp))
			i += n
		default:
			return "", "", false // \e, \x and anything newer: the library's call
		}
	}
	return "", "", false
}

// tomlStrings decodes a one-line array of basic strings.
func tomlStrings(v string) ([]string, bool) {
	if v == "" || v[0] != '[' {
		return nil, false
	}
	list := []string{}
	v = strings.TrimLeft(v[1:], " \t")
	if v == "]" {
		return list, true
	}
	for {
		s, rest, ok := tomlString(v)
		if !ok {
			return nil, false
		}
		list = append(list, s)
		rest = strings.TrimLeft(rest, " \t")
		switch {
		case rest == "]":
			return list, true
		case rest == "" || rest[0] != ',':
			return nil, false
		}
		v = strings.TrimLeft(rest[1:], " \t")
	}
}

// isTOMLInt: a decimal integer without sign, underscores or leading zeros.
func isTOMLInt(v string) bool {
	if v == "" || v[0] == '0' && len(v) > 1 {
		return false
	}
	for i := range len(v) {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// isTOMLFloat: digits, a point and digits, as lore writes a confidence.
func isTOMLFloat(v string) bool {
	whole, frac, ok := strings.Cut(v, ".")
	return ok && isTOMLInt(whole) && frac != "" && strings.Trim(frac, "0123456789") == ""
}

// isUTCDateTime reports whether v is exactly 2006-01-02T15:04:05Z with an
// optional fraction after a dot: time.Parse is more lenient than TOML (a
// one-digit hour, a comma before the fraction), so other forms go to the
// library, which refuses what TOML does.
func isUTCDateTime(v string) bool {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(v) < len(shape)+1 || v[len(v)-1] != 'Z' {
		return false
	}
	for i := range len(shape) {
		if c := v[i]; shape[i] == 'd' && (c < '0' || c > '9') || shape[i] != 'd' && c != shape[i] {
			return false
		}
	}
	frac := v[len(shape) : len(v)-1]
	if frac == "" {
		return true
	}
	if len(frac) < 2 || frac[0] != '.' {
		return false
	}
	for _, c := range frac[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
