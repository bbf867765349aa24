package gitrepo

import "bytes"

// parseConfig reads a file in git's config format the way git's own
// parser does (config.c: git_parse_source, get_value, parse_value), and
// calls fn with each variable in file order: its full name as git spells
// it (the section and the key lower-cased, a quoted subsection as
// written) and its value; set is false for a bare key ("[core] bare"),
// which git reads as true. ok is false where git stops at a bad line:
// what came before it was passed on, as git does.
//
// go-git's decoder groups options by section, which loses their order
// (a [user] section after an [include] overrides what the include says;
// one before it does not).
func parseConfig(data []byte, fn func(name, value string, set bool)) (ok bool) {
	s := &cfgScanner{data: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))}
	var base []byte // "section." or "section.subsection."
	comment := false
	for {
		c := s.next()
		switch {
		case c == '\n':
			if s.eof {
				return true
			}
			comment = false
			continue
		case comment || cfgSpace(c):
			continue
		case c == '#' || c == ';':
			comment = true
			continue
		case c == '[':
			b, ok := s.section()
			if !ok || len(b) == 0 {
				return false
			}
			base = append(b, '.')
			continue
		case !cfgAlpha(c):
			return false
		}
		name := append(base[:len(base):len(base)], cfgLower(c))
		for {
			c = s.next()
			if s.eof || !cfgKeyChar(c) {
				break
			}
			name = append(name, cfgLower(c))
		}
		for c == ' ' || c == '\t' {
			c = s.next()
		}
		if c == '\n' {
			fn(string(name), "", false)
			continue
		}
		if c != '=' {
			return false
		}
		v, ok := s.value()
		if !ok {
			return false
		}
		fn(string(name), v, true)
	}
}

// cfgScanner reads a config file a byte at a time as git's get_next_char
// does: CR LF is a newline, and the end of the file reads as one.
type cfgScanner struct {
	data []byte
	i    int
	eof  bool
}

func (s *cfgScanner) next() byte {
	if s.i >= len(s.data) {
		s.eof = true
		return '\n'
	}
	c := s.data[s.i]
	s.i++
	if c == '\r' && s.i < len(s.data) && s.data[s.i] == '\n' {
		s.i++
		return '\n'
	}
	return c
}

// section reads a section header after its "[": "user" or
// `includeIf "gitdir:~/work/"` (git's get_base_var and
// get_extended_base_var).
func (s *cfgScanner) section() ([]byte, bool) {
	var name []byte
	for {
		c := s.next()
		switch {
		case s.eof:
			return nil, false
		case c == ']':
			return name, true
		case cfgSpace(c):
			for {
				if c == '\n' {
					return nil, false
				}
				if c = s.next(); !cfgSpace(c) {
					break
				}
			}
			if c != '"' {
				return nil, false
			}
			name = append(name, '.')
			for {
				c = s.next()
				if c == '\n' {
					return nil, false
				}
				if c == '"' {
					break
				}
				if c == '\\' {
					if c = s.next(); c == '\n' {
						return nil, false
					}
				}
				name = append(name, c)
			}
			return name, s.next() == ']'
		case !cfgKeyChar(c) && c != '.':
			return nil, false
		}
		name = append(name, cfgLower(c))
	}
}

// value reads a value after its "=" (git's parse_value): quotes, escapes,
// comments, and runs of blanks outside quotes kept as as many spaces
// between words.
func (s *cfgScanner) value() (string, bool) {
	var v []byte
	quote, comment, space := false, false, 0
	for {
		c := s.next()
		switch {
		case c == '\n':
			return string(v), !quote
		case comment:
			continue
		case cfgSpace(c) && !quote:
			if len(v) > 0 {
				space++
			}
			continue
		case !quote && (c == ';' || c == '#'):
			comment = true
			continue
		}
		for ; space > 0; space-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch c = s.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
		case '"':
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

// git's own ctype (sane-ctype): ASCII only, whatever the locale.
func cfgSpace(c byte) bool   { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func cfgAlpha(c byte) bool   { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func cfgKeyChar(c byte) bool { return cfgAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func cfgLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
