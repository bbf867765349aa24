package inject

import "strings"

// Hosts fold context into the prompt they hand a prompt hook: Gemini CLI in
// headless mode prepends the session-start answer as
// <hook_context>…</hook_context>, and a user may paste an earlier lore block
// back. Ranked as if the user typed it, that text finds the records it came
// from (the handoff injected twice, an unrelated prompt answered with the
// resume view), so it is removed before ranking.

// hostContext are the wrappers hosts put around hook answers they fold in.
var hostContext = [][2]string{{"<hook_context>", "</hook_context>"}}

// StripInjected removes host-folded hook context and lore's own blocks from
// prompt, leaving what the user typed.
func StripInjected(prompt string) string {
	out := prompt
	for _, w := range hostContext {
		out = cutBetween(out, w[0], w[1])
	}
	out = cutBetween(out, blockStart, footer)
	if out == prompt {
		return prompt
	}
	return strings.TrimSpace(out)
}

// blockStart opens every block lore writes (see header).
const blockStart = "--- Lore Context ("

// cutBetween removes every open…close span; an open without its close is
// left alone, so text the user typed is never cut on a guess.
func cutBetween(s, open, close string) string {
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+len(open):], close)
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+len(open)+j+len(close):]
	}
}
