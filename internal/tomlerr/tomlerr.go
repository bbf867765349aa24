// Package tomlerr reads the TOML library's decoding errors in the terms of
// the text decoded: the line of the text, the key, and a message in TOML's
// words. The library reports syntax errors with a position whose line can
// be one past the line at fault (an error found at a line's newline), and
// type mismatches as text naming Go's types.
package tomlerr

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Where returns the line of text (1-based) that err, an error of decoding
// text, points at, or 0 if it points at none; the key it was reading, or
// ""; and its message without the position.
func Where(text string, err error) (line int, key, msg string) {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		// The byte offset is exact where the line is not.
		return 1 + strings.Count(text[:min(max(pe.Position.Start, 0), len(text))], "\n"), pe.LastKey, pe.Message
	}
	// A type mismatch: "toml: line N (last key "k"): incompatible types: …".
	if m := typeErr().FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2], types(m[3])
	}
	return 0, "", err.Error()
}

var typeErr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`) })

// types says a type mismatch in TOML's words rather than Go's:
// "incompatible types: TOML value has type int64; destination has type
// slice" becomes "is an integer, where an array is expected".
func types(msg string) string {
	m := typeWords().FindStringSubmatch(msg)
	if m == nil {
		// A table given a plain value: "type mismatch for
		// config.InjectConfig: expected table but found int64".
		if m = mismatchWords().FindStringSubmatch(msg); m == nil {
			return msg
		}
		m[1], m[2] = m[2], m[1]
	}
	word := func(goType string) string {
		switch {
		case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
			return "an integer"
		case strings.HasPrefix(goType, "float"):
			return "a float"
		case goType == "bool":
			return "a boolean"
		case goType == "string":
			return "a string"
		case goType == "slice" || strings.HasPrefix(goType, "[]"):
			return "an array"
		case goType == "map" || goType == "struct" || goType == "table" || strings.HasPrefix(goType, "map["):
			return "a table"
		}
		return goType
	}
	return fmt.Sprintf("is %s, where %s is expected", word(m[1]), word(m[2]))
}

var typeWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`TOML value has type ([\w\[\]]+); destination has type ([\w\[\]]+)`)
})

var mismatchWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`type mismatch for [\w.*\[\]]+: expected (\w+) but found ([\w\[\]]+)`)
})
