package gitrepo

import "strings"

// wildmatch matches text against a glob pattern as git's wildmatch does
// with WM_PATHNAME (the includeIf conditions' matching): "*" and "?" stop
// at "/", "**" between slashes (or at either end) spans directories, "\"
// quotes the next character; fold is WM_CASEFOLD (ASCII). ok is false for
// a pattern with a bracket expression ("[a-z]"), which this port leaves
// out: the caller asks git instead.
func wildmatch(pattern, text string, fold bool) (match, ok bool) {
	if strings.IndexByte(pattern, '[') >= 0 {
		return false, false
	}
	return dowild(pattern, text, fold) == wmMatch, true
}

// dowild's answers, as in git's wildmatch.c: the aborts cut the
// backtracking short.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// dowild is git's function of that name (wildmatch.c), line by line, less
// the bracket expressions; a string's end reads as C's NUL.
func dowild(p, text string, fold bool) int {
	at := func(s string, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	lower := func(c byte, on bool) byte {
		if on {
			return cfgLower(c)
		}
		return c
	}
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc, tc := p[pi], at(text, ti)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		tc, pc = lower(tc, fold), lower(pc, fold)
		switch pc {
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
			continue
		case '*':
		default:
			if pc == '\\' {
				// Literal match with the next character (not folded, as
				// in git); a pattern ending in "\" matches nothing.
				pi++
				pc = at(p, pi)
			}
			if tc != pc {
				return wmNoMatch
			}
			continue
		}
		matchSlash := false
		if pi++; at(p, pi) == '*' {
			prev := pi - 2
			for pi++; at(p, pi) == '*'; pi++ {
			}
			if (prev < 0 || p[prev] == '/') &&
				(at(p, pi) == 0 || at(p, pi) == '/' || at(p, pi) == '\\' && at(p, pi+1) == '/') {
				// "foo/**/bar" matches "foo/bar" as well as "foo/a/bar".
				if at(p, pi) == '/' && dowild(p[pi+1:], text[ti:], fold) == wmMatch {
					return wmMatch
				}
				matchSlash = true
			}
		}
		switch {
		case pi >= len(p):
			// A trailing "**" matches everything, a trailing "*" only
			// what holds no more slashes.
			if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
				return wmNoMatch
			}
			return wmMatch
		case !matchSlash && p[pi] == '/':
			// One asterisk then a slash matches the next directory.
			slash := strings.IndexByte(text[ti:], '/')
			if slash < 0 {
				return wmNoMatch
			}
			ti += slash
			continue // the loop's step consumes the slash
		}
		for tc != 0 {
			if c := p[pi]; c != '*' && c != '?' && c != '[' && c != '\\' {
				// Skip to the literal that follows the asterisk (not past
				// a slash unless it is "**").
				pc = lower(c, fold)
				for {
					if tc = at(text, ti); tc == 0 || !matchSlash && tc == '/' {
						break
					}
					if tc = lower(tc, fold); tc == pc {
						break
					}
					ti++
				}
				if tc != pc {
					return wmNoMatch
				}
			}
			if m := dowild(p[pi:], text[ti:], fold); m != wmNoMatch {
				if !matchSlash || m != wmAbortToStarStar {
					return m
				}
			} else if !matchSlash && tc == '/' {
				return wmAbortToStarStar
			}
			ti++
			tc = at(text, ti)
		}
		return wmAbortAll
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}
