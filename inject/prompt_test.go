package inject

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"lore/index"
	"lore/record"
)

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

// Only a prompt's first words are ranked: a prompt past maxPromptBytes (a
// pasted log) is cut at a space, and what it asks first still finds its
// record.
func TestLongPromptIsCut(t *testing.T) {
	long := "why does deploy.sh fail " + strings.Repeat("log línea ", maxPromptBytes/8)
	got := capPrompt(long)
	if len(got) > maxPromptBytes || !utf8.ValidString(got) || strings.HasSuffix(got, "lí") || !strings.HasPrefix(got, "why does deploy.sh") {
		t.Fatalf("capPrompt: %d bytes, ends %q", len(got), got[max(0, len(got)-12):])
	}
	if capPrompt("short prompt") != "short prompt" {
		t.Error("a short prompt is changed")
	}
	ix := NewIndex(index.SnapshotOf([]*record.Record{
		{V: 1, ID: "fail-aaaaaaaa1m8276mmc", Kind: record.Failure, ErrorType: "NonZeroExit", Text: "deploy.sh fails when DEPLOY_ENV is unset", Time: time.Now(), Created: time.Now()},
	}, Tokenizer()), defaultConfig(t))
	if res := ix.Rank(long, Options{Now: time.Now()}); len(res) == 0 || res[0].Rec.Text != "deploy.sh fails when DEPLOY_ENV is unset" {
		t.Errorf("the long prompt's first words find nothing: %+v", res)
	}
}
