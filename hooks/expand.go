package hooks

import (
	"regexp"
	"strings"
	"sync"
)

// VarSyntax is how a host writes the variables it replaces in the strings
// of its settings file, commands included, before it runs them.
type VarSyntax int

const (
	NoVars VarSyntax = iota
	// DollarVars: $NAME and ${NAME} (Gemini CLI 0.61.0 resolves them in
	// every string of settings.json, resolveEnvVarsInObject, and leaves an
	// unset one as written).
	DollarVars
	// BraceVars: ${…} only. Claude Code 2.1.330 expands the command of
	// an MCP entry when it holds "${" (checked in its binary: the server
	// config's command goes through its env expansion); Cursor's and VS
	// Code's mcp.json (${env:VAR}, ${userHome}, ${workspaceFolder}) are
	// taken from their documentation: neither runs here.
	BraceVars
)

// Expanded reports whether a host replacing variables of syntax v would
// read s as something else: a binary path holding "$HOME" is another path
// to Gemini CLI, whatever the shell quoting around it.
func (v VarSyntax) Expanded(s string) bool {
	switch v {
	case DollarVars:
		return dollarRef().MatchString(s)
	case BraceVars:
		return strings.Contains(s, "${")
	}
	return false
}

// String is how the host writes a variable, for messages.
func (v VarSyntax) String() string {
	switch v {
	case DollarVars:
		return "$NAME and ${NAME}"
	case BraceVars:
		return "${…}"
	}
	return "nothing"
}

var dollarRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$[A-Za-z0-9_{]`) })
