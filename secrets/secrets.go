package secrets

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"lore/record"
)

// Secrets never reach .lore/, because .lore/ is committed and pushed. Every
// text field is scrubbed before it is written: each credential gitleaks'
// rules or lore's own (rules.go) find becomes [REDACTED:<rule>], and
// <private>…</private> spans are dropped whole. Only the secret is
// replaced, never the sentence around it.

// Finding is one secret removed from a record.
type Finding struct {
	Kind  string // the rule that found it, such as "github-pat"
	Field string // the record field it was in
}

var privateSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<private>.*?(</private>|$)`) })

// Scrub returns text with <private> spans dropped and secrets redacted,
// and the kinds of what it removed.
func Scrub(text string) (string, []string) {
	var kinds []string
	if strings.Contains(strings.ToLower(text), "<private>") {
		text = privateSpan().ReplaceAllString(text, "")
		kinds = append(kinds, "private")
	}
	spans := find(text)
	if len(spans) == 0 {
		return text, kinds
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.start])
		b.WriteString("[REDACTED:" + s.id + "]")
		last = s.end
		kinds = append(kinds, s.id)
	}
	b.WriteString(text[last:])
	return b.String(), kinds
}

// ScrubRecord scrubs every text field of r in place: the texts, every list
// (tags, next, blocked) and the values of fields this lore does not know.
// Tags must be scrubbed before they are lower-cased, or a key's case-
// sensitive pattern no longer matches.
func ScrubRecord(r *record.Record) []Finding {
	var found []Finding
	scrub := func(field string, p *string) {
		clean, kinds := Scrub(*p)
		*p = clean
		for _, k := range kinds {
			found = append(found, Finding{Kind: k, Field: field})
		}
	}
	for field, p := range map[string]*string{
		"text": &r.Text, "rationale": &r.Rationale, "alternatives": &r.Alternatives, "context": &r.Context,
		"solution": &r.Solution, "error_type": &r.ErrorType, "tool": &r.Tool,
	} {
		scrub(field, p)
	}
	for field, list := range map[string][]string{"next": r.Next, "blocked": r.Blocked, "tags": r.Tags} {
		for i := range list {
			scrub(field, &list[i])
		}
	}
	for k, v := range r.Extra {
		if s, ok := v.(string); ok {
			scrub(k, &s)
			r.Extra[k] = s
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Field+found[i].Kind < found[j].Field+found[j].Kind })
	return found
}
