package inject

import "testing"

func TestStripInjected(t *testing.T) {
	block := header("resume", 2) + "\n[handoff] fixed the flaky deploy test\n" + footer
	for _, c := range []struct{ in, want string }{
		{"why does deploy fail?", "why does deploy fail?"},
		// Gemini CLI, headless: the session-start answer folded in front.
		{"<hook_context>" + block + "</hook_context>\n\nwrite a haiku about autumn leaves", "write a haiku about autumn leaves"},
		{"<hook_context>a</hook_context> one <hook_context>b</hook_context> two", "one  two"},
		// A lore block pasted back by the user.
		{"see this:\n" + block + "\nwhat now?", "see this:\n\nwhat now?"},
		// An opening without its close is the user's text.
		{"the tag <hook_context> is odd", "the tag <hook_context> is odd"},
		{"--- Lore Context (quoted", "--- Lore Context (quoted"},
		{"<hook_context>" + block + "</hook_context>", ""},
	} {
		if got := StripInjected(c.in); got != c.want {
			t.Errorf("StripInjected(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
