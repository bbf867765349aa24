package secrets

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"lore/record"
)

// Secrets never reach .lore/, because .lore/ is committed and pushed. Every
// text field is scrubbed before it is written: credentials become
// [REDACTED:<kind>], and <private>…</private> spans are dropped whole.

// Finding is one secret removed from a record.
type Finding struct {
	Kind  string // such as "github-token"
	Field string // the record field it was in
}

type secretRule struct {
	kind string
	re   *regexp.Regexp
	// group is the submatch holding the secret (0: the whole match), so
	// that a key name or URL around it stays readable.
	group int
}

// secretRules are checked in order; earlier, more specific rules win.
// They compile on first use: only write paths scrub, and the hook must
// not pay for them at start.
var secretRules = sync.OnceValue(func() []secretRule {
	return []secretRule{
		{"private-key", regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END ([A-Z0-9 ]+ )?PRIVATE KEY( BLOCK)?-----|$)`), 0},
		{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`), 0},
		{"aws-secret-access-key", regexp.MustCompile(`(?i)aws.{0,24}?(?:secret|sk).{0,24}?[=:]\s*["']?([A-Za-z0-9/+=]{40})\b`), 1},
		{"gcp-private-key-id", regexp.MustCompile(`"private_key_id"\s*:\s*"([0-9a-f]{40})"`), 1},
		{"github-token", regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b`), 0},
		{"github-token", regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{60,255}\b`), 0},
		{"gitlab-token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`), 0},
		{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), 0},
		{"slack-webhook", regexp.MustCompile(`https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+`), 0},
		{"stripe-key", regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b`), 0},
		{"anthropic-key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`), 0},
		{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), 0},
		{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}`), 0},
		{"url-password", regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@`), 1},
		{"assignment", regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|token|auth[_-]?token|access[_-]?token|api[_-]?key|access[_-]?key|private[_-]?key)\s*[=:]\s*("[^"\n]+"|'[^'\n]+'|[^\s"',;]+)`), 1},
	}
})

var privateSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<private>.*?(</private>|$)`) })

// Scrub returns text with <private> spans dropped and secrets redacted,
// and the kinds of what it removed.
func Scrub(text string) (string, []string) {
	var kinds []string
	if privateSpan().MatchString(text) {
		text = privateSpan().ReplaceAllString(text, "")
		kinds = append(kinds, "private")
	}
	for _, rule := range secretRules() {
		text = replaceGroup(rule, text, func(secret string) (string, bool) {
			if rule.kind == "assignment" && !looksSecret(secret) {
				return secret, false
			}
			kind := rule.kind
			if kind == "assignment" {
				kind = "secret"
			}
			kinds = append(kinds, kind)
			return "[REDACTED:" + kind + "]", true
		})
	}
	return text, kinds
}

// looksSecret rejects assignment values that are not secrets: references
// to variables, placeholders, values already redacted, and tiny values.
func looksSecret(v string) bool {
	v = strings.Trim(v, `"'`)
	switch {
	case len(v) < 4,
		strings.HasPrefix(v, "$"), strings.HasPrefix(v, "%"), strings.HasPrefix(v, "{{"),
		strings.HasPrefix(v, "<"), // a placeholder such as <your password>
		strings.HasPrefix(v, "[REDACTED"),
		strings.Trim(v, "*xX.") == "",
		strings.EqualFold(v, "null"), strings.EqualFold(v, "none"), strings.EqualFold(v, "true"), strings.EqualFold(v, "false"):
		return false
	}
	return true
}

// replaceGroup replaces the rule's group in every match with what repl
// returns.
func replaceGroup(rule secretRule, text string, repl func(string) (string, bool)) string {
	matches := rule.re.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		start, end := m[2*rule.group], m[2*rule.group+1]
		if start < 0 {
			continue
		}
		secret := text[start:end]
		out, ok := repl(secret)
		if !ok {
			continue
		}
		b.WriteString(text[last:start])
		b.WriteString(out)
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// ScrubRecord scrubs every text field of r in place.
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
	for i := range r.Next {
		scrub("next", &r.Next[i])
	}
	for i := range r.Blocked {
		scrub("blocked", &r.Blocked[i])
	}
	for i := range r.Tags {
		scrub("tags", &r.Tags[i])
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Field+found[i].Kind < found[j].Field+found[j].Kind })
	return found
}
