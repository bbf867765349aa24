package hooks

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// A hook command is a line the agent gives a shell (sh -c, or cmd.exe on
// Windows). lore writes its binary's path quoted so that no character of
// it means anything to that shell, and reads a command back by the shell's
// rules: the program it runs, after any VAR=value the user put before it.

// quoteProgram quotes path for the shell a hook runs in, when it needs it.
// In sh, single quotes keep every character as it is ($, `, &, ; and
// spaces among them); a single quote in the path ends the quoting, is
// written escaped (\'), and the quoting starts again. cmd.exe knows
// double quotes only.
func quoteProgram(path string) string {
	if runtime.GOOS == "windows" {
		if strings.ContainsAny(path, " \t'\"&()^;,=") {
			return `"` + strings.ReplaceAll(path, `"`, `\"`) + `"`
		}
		return path
	}
	if strings.IndexFunc(path, func(c rune) bool { return !plainShellChar(c) }) < 0 {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

func plainShellChar(c rune) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("/._-+,:@%", c)
}

// programOf reads a hook command as sh would, as far as its program: env
// is the VAR=value words before it, as written (with the blanks after
// them), prog the program unquoted, and rest what follows it, as written.
func programOf(cmd string) (env, prog, rest string) {
	s := strings.TrimLeft(cmd, " \t")
	lead := len(cmd) - len(s)
	for {
		word, n, _ := shellWord(s)
		if n == 0 {
			return cmd[:lead], "", ""
		}
		if !assignment().MatchString(word) {
			return cmd[:lead], word, s[n:]
		}
		skip := n + len(s[n:]) - len(strings.TrimLeft(s[n:], " \t"))
		lead += skip
		s = s[skip:]
	}
}

// assignment: a word that sets a variable for the program after it.
var assignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// argvOf splits a hook command into the words sh would pass its program.
func argvOf(cmd string) ([]string, error) {
	var argv []string
	for s := strings.TrimLeft(cmd, " \t"); s != ""; s = strings.TrimLeft(s, " \t") {
		word, n, closed := shellWord(s)
		switch {
		case !closed:
			return nil, fmt.Errorf("hook command %q: unclosed quote", cmd)
		case n == 0:
			return nil, fmt.Errorf("hook command %q: %q runs more than lore", cmd, s[:1])
		}
		argv = append(argv, word)
		s = s[n:]
	}
	if len(argv) == 0 {
		return nil, errors.New("hook command is empty")
	}
	return argv, nil
}

// shellWord reads the word s starts with, quotes and escapes removed, how
// many bytes of s it took (0 if s starts with no word), and whether its
// quotes are closed.
func shellWord(s string) (word string, n int, closed bool) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|':
			return b.String(), i, true
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				b.WriteString(s[i+1:])
				return b.String(), len(s), false
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return b.String(), len(s), false
			}
			i++
		case c == '\\' && i+1 < len(s) && runtime.GOOS != "windows":
			b.WriteByte(s[i+1])
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), len(s), true
}
