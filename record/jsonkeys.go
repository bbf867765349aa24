package record

// hasUnknownKey reports whether the JSON object in line, which has already
// decoded, may have a top-level key that is none of Record's fields. It
// skips values without decoding them: unknown fields are rare, and decoding
// every line a second time into a map only to look for them cost as much
// as the record itself. A key it cannot judge without decoding (one with
// an escape) counts as unknown.
func hasUnknownKey(line []byte) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return true
	}
	i++
	for {
		i = skipSpace(line, i)
		if i >= len(line) {
			return true
		}
		switch line[i] {
		case '}':
			return false
		case ',':
			i++
			continue
		case '"':
		default:
			return true
		}
		j := i + 1
		for j < len(line) && line[j] != '"' && line[j] != '\\' {
			j++
		}
		if j >= len(line) || line[j] == '\\' || !knownJSONFields[string(line[i+1:j])] {
			return true
		}
		i = skipSpace(line, j+1)
		if i >= len(line) || line[i] != ':' {
			return true
		}
		var ok bool
		if i, ok = skipValue(line, i+1); !ok {
			return true
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at or
// after i.
func skipValue(b []byte, i int) (int, bool) {
	i = skipSpace(b, i)
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return i, false
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true // the end of the enclosing object
			}
			depth--
			i++
		case ',':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
		if depth == 0 && i > 0 && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i, true
		}
	}
	return i, depth == 0
}
