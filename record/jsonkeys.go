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
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var ok bool
				if i, ok = skipString(b, i); !ok {
					return i, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i, true
}

// skipString returns the index just past the string starting at b[i] ('"').
func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}
