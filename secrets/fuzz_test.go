package secrets

import (
	"strings"
	"testing"
)

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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
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
