package receipts

import "strings"

// ranShow reports a shell command that runs lore show on id or a prefix of
// it: lore (by name or by path, behind variable assignments or a wrapper
// such as env), its global flags, show, then the command's flags (--json,
// --dir DIR) around exactly one ID, as lore itself parses them. Only a
// word in a command's place runs lore: echo lore show ID does not, nor
// does lore show --help. A script handed to sh -c or bash -lc is read too.
func ranShow(commands []string, id string) bool {
	for _, c := range commands {
		if showsIn(c, id, 0) {
			return true
		}
	}
	return false
}

// names reports arg, the ID given to lore show, as naming id: a prefix of
// it with at least 4 characters after the kind prefix.
func names(arg, id string) bool {
	dash := strings.IndexByte(arg, '-')
	return dash > 0 && len(arg) >= dash+5 && strings.HasPrefix(id, arg)
}

// maxShellDepth bounds how deep sh -c scripts inside sh -c scripts are read.
const maxShellDepth = 3

func showsIn(script, id string, depth int) bool {
	for _, words := range simpleCommands(script) {
		words = skipPrefix(words)
		if len(words) == 0 {
			continue
		}
		switch base(words[0]) {
		case "lore", "lore.exe":
			if arg, ok := showArg(words[1:]); ok && names(arg, id) {
				return true
			}
		case "sh", "bash", "zsh", "dash", "ksh":
			if s, ok := shellScript(words[1:]); ok && depth < maxShellDepth && showsIn(s, id, depth+1) {
				return true
			}
		}
	}
	return false
}

// base is the last element of a command word: lore for /usr/local/bin/lore.
func base(word string) string {
	return word[strings.LastIndexByte(word, '/')+1:]
}

// skipPrefix drops what comes before a simple command's command word:
// variable assignments, reserved words that open a compound command, and
// wrappers that run the rest as a command.
func skipPrefix(words []string) []string {
	for len(words) > 0 {
		switch w := words[0]; {
		case isAssignment(w):
		case w == "!" || w == "{" || w == "if" || w == "then" || w == "elif" || w == "else" || w == "do" || w == "while" || w == "until":
		case w == "env" || w == "command" || w == "exec" || w == "time" || w == "nohup":
		default:
			return words
		}
		words = words[1:]
	}
	return words
}

// isAssignment reports NAME=value.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, c := range w[:eq] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shellScript is the script of sh -c SCRIPT (or -lc, -ec, …).
func shellScript(args []string) (string, bool) {
	c := false
	for _, a := range args {
		switch {
		case a == "--" || a == "-":
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			c = c || strings.ContainsRune(a, 'c')
		case strings.HasPrefix(a, "--"):
		default:
			return a, c
		}
	}
	return "", false
}

// showArg reads lore's arguments (after the binary) as lore parses them:
// global flags (--dir DIR; --help and --version answer instead of running a
// command), the command show, then show's flags anywhere around its one
// ID. It returns that ID, if they run lore show.
func showArg(args []string) (string, bool) {
	i := 0
global:
	for ; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			i++
			break global
		case a == "--dir":
			i++ // its value
		case helpOrVersion(a, true):
			return "", false
		case len(a) > 1 && a[0] == '-': // --dir=DIR, or a flag lore may add
		default:
			break global
		}
	}
	if i >= len(args) || args[i] != "show" {
		return "", false
	}
	var ids []string
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		switch a := rest[j]; {
		case a == "--":
			ids = append(ids, rest[j+1:]...)
			j = len(rest)
		case a == "--dir":
			j++ // its value
		case helpOrVersion(a, false):
			return "", false
		case len(a) > 1 && a[0] == '-': // --json, --json=true, --dir=DIR
		default:
			ids = append(ids, a)
		}
	}
	if len(ids) != 1 {
		return "", false // lore show wants exactly one ID
	}
	return ids[0], true
}

// helpOrVersion reports a flag that makes lore print its help (or, among
// the global flags, its version) rather than run the command.
func helpOrVersion(a string, global bool) bool {
	name, _, _ := strings.Cut(a, "=")
	switch {
	case name == "--help", global && name == "--version":
		return true
	case len(a) > 1 && a[0] == '-' && a[1] != '-': // -h, -v, or a cluster of short flags
		return strings.ContainsRune(name, 'h') || global && strings.ContainsRune(name, 'v')
	}
	return false
}

// simpleCommands splits a shell command line into its simple commands, as
// lists of words with the shell's quoting removed: a new command starts at
// ; & | && || ( ) $( ` and a line break; redirections (2>&1, >out, <in),
// here-documents and comments are dropped. It is a reader of what agents run, not a
// shell: no expansion happens, and a quoted "$(…)" stays one word.
func simpleCommands(s string) [][]string {
	var (
		cmds     [][]string
		words    []string
		w        strings.Builder
		inWord   bool     // a word is open (even "", which is one)
		redirect bool     // the next word is a redirection's target
		heredoc  bool     // and that target is a here-document's delimiter
		pending  []string // delimiters of here-documents whose lines come next
	)
	endWord := func() {
		if inWord {
			if redirect {
				if heredoc {
					pending = append(pending, w.String())
				}
				redirect, heredoc = false, false
			} else {
				words = append(words, w.String())
			}
		}
		w.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words, redirect, heredoc = nil, false, false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' { // a line continuation joins the lines
					w.WriteByte(s[i])
					inWord = true
				}
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				end = len(s) - i - 1 // unterminated: the rest
			}
			w.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				w.WriteByte(s[i])
			}
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
		case c == '#' && !inWord:
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case c == '<' || c == '>' || c == '&' && i+1 < len(s) && s[i+1] == '>':
			if inWord && isDigits(w.String()) {
				w.Reset() // 2>…: the descriptor's number, not a word
				inWord = false
			}
			endWord()
			op := i
			for i+1 < len(s) && strings.IndexByte("<>&|", s[i+1]) >= 0 {
				i++ // >>, >&, &>, >|, <<, <&
			}
			heredoc = s[op:i+1] == "<<"
			if heredoc && i+1 < len(s) && s[i+1] == '-' {
				i++ // <<-
			}
			redirect = true
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			endCommand()
			i++
		case c == '\n':
			endCommand()
			// The lines of here-documents opened on this line are text.
			for _, delim := range pending {
				for i < len(s) {
					end := strings.IndexByte(s[i+1:], '\n')
					if end < 0 {
						end = len(s) - i - 1
					}
					line := s[i+1 : i+1+end]
					i += end + 1
					if strings.TrimLeft(line, "\t") == delim {
						break
					}
				}
			}
			pending = nil
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`':
			endCommand()
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	endCommand()
	return cmds
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
