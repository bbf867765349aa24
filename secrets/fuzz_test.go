package secrets

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FuzzScrub: any text, never a panic; scrubbing twice changes nothing more
// (no secret survives, no marker is taken for one); what lies outside the
// redactions is kept; a text with no finding comes back unchanged.
func FuzzScrub(f *testing.F) {
	for _, s := range []string{
		"push with ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui now",
		"DB_PASSWORD=Tr0ub4dor and redis://:Kq8zP2mX@cache:6379/0",
		"Authorization: Bearer abc123def456ghi789",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEow",
		"<private>x</private> token_ttl = 3600",
		"password: must be at least 12 characters",
		"Billing uses sk_live_51HxQz2KfAkE9xYzWvUtSrQpOn8mLk. (AIzacOQTBP6tUWfm0kOqpQyP1OlFdyKhlIB3opX),",
		"machine api.example.com\n  login bot\n  password Pz4Xc6Vb8Nm1; use password Hn6Jm8Kl0Pq2.",
		"ПАРОЛЬ: Zx9QwErTy7UiOp3AsDf; token: обязателен. 密码：「Zx9QwErTy7UiOp3AsDf」请勿外传，secret=秘密はVaultに",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		// The two ways to find the rules to run agree (a keyword that only
		// Unicode lower-casing spells, such as the Kelvin sign's k, may
		// add a candidate to the scan: the rule's regex decides).
		scanned, indexed := rules().scanned(in), rules().indexed(in)
		if isASCII(in) && !slices.Equal(scanned, indexed) || slices.ContainsFunc(indexed, func(r int) bool { return !slices.Contains(scanned, r) }) {
			t.Fatalf("candidates of %q: scanned %v, indexed %v", in, scanned, indexed)
		}
		out, kinds := Scrub(in)
		again, more := Scrub(out)
		if again != out || len(more) > 0 {
			t.Fatalf("Scrub not idempotent: %q -> %q -> %q (%v)", in, out, again, more)
		}
		if len(kinds) == 0 && out != in {
			t.Fatalf("changed without a finding: %q -> %q", in, out)
		}
		if len(kinds) > 0 && !strings.Contains(strings.ToLower(in), "<private>") {
			// Every redaction marker stands where the input had text, so
			// the input's first bytes before the first marker are kept.
			head, _, _ := strings.Cut(out, "[REDACTED:")
			if !strings.HasPrefix(in, head) {
				t.Fatalf("text before the first redaction changed: %q -> %q", in, out)
			}
		}
	})
}
