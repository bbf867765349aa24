package inject

import (
	"strings"
	"unicode"
)

// resumePhrases say that a prompt picks up earlier work: the question a
// handoff answers. Such prompts name the work in few words, often not the
// handoff's own (a typo, an abbreviation), so a handoff's relevance is
// raised for them (resumeBoost). The list was written before it was tried
// on the evaluation's dev half (decision dec-8qhd7tck), not drawn from it;
// leaving its words out of the keywords was chosen the same way
// (dec-vkgjb2ks).
var resumePhrases = []string{
	"where did we leave", "where we left", "left off", "where were we",
	"pick up", "picking up", "continue", "continuing", "carry on",
	"resume", "resuming", "next step", "what's next", "whats next",
	"what is next", "any update", "status of", "follow up", "follow-up",
	"unfinished", "in progress", "handoff", "hand off",
}

// resumesWork reports whether the prompt holds one of resumePhrases as
// whole words, and returns the prompt without them: the phrase says what
// kind of record is wanted, not what it is about ("leave" in "where did
// we leave the cache work" would match any record saying leave), so its
// words are not the prompt's keywords.
func resumesWork(prompt string) (bool, string) {
	lower := strings.ToLower(prompt)
	blank := len(lower) == len(prompt) // offsets in lower are offsets in prompt
	var out []byte                     // the prompt with the phrases blanked, once one is found
	for _, p := range resumePhrases {
		for from := 0; ; {
			i := strings.Index(lower[from:], p)
			if i < 0 {
				break
			}
			i += from
			if !letterAt(lower, i-1) && !letterAt(lower, i+len(p)) {
				if out == nil {
					out = []byte(prompt)
				}
				for j := i; blank && j < i+len(p); j++ {
					out[j] = ' '
				}
			}
			from = i + 1
		}
	}
	if out == nil {
		return false, prompt
	}
	return true, string(out)
}

// letterAt reports whether s holds a letter at byte i (false out of range).
func letterAt(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	r := rune(s[i])
	if r >= 0x80 { // inside a multi-byte letter such as é
		return true
	}
	return unicode.IsLetter(r)
}
