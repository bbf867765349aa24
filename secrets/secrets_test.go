package secrets

import (
	"strings"
	"testing"
)

// Real-looking samples of each secret kind (none is a live credential).
func TestScrubRedactsSecrets(t *testing.T) {
	for _, c := range []struct{ in, kind, keep string }{
		{"key AKIAIOSFODNN7EXAMPLE in the env", "aws-access-key-id", "key "},
		{"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret-access-key", "aws_secret_access_key = "},
		{`{"type": "service_account", "private_key_id": "3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c"}`, "gcp-private-key-id", `"private_key_id": "`},
		{"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----", "private-key", ""},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "private-key", ""},
		{"push with ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 now", "github-token", "push with "},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456", "github-token", ""},
		{"CI uses glpat-xxXXxxXXxxXXxxXXxx12", "gitlab-token", "CI uses "},
		{"bot token xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack-token", "bot token "},
		{"hook https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx", "slack-webhook", "hook "},
		{"stripe sk_live_51H8xYzAbCdEfGhIjKlMnOpQr", "stripe-key", "stripe "},
		{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "openai-key", "OPENAI_API_KEY="},
		{"use sk-ant-api03-abcdefghijklmnopqrstuvwxyz-0123456789", "anthropic-key", "use "},
		{"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt", "Bearer "},
		{"DATABASE_URL=postgres://app:s3cr3tPassw0rd@db.internal:5432/app", "url-password", "postgres://app:"},
		{"set password=hunter22 in staging", "secret", "set password="},
		{`token: "a8f5f167f44f4964e6c998dee827110c"`, "secret", "token: "},
		{"client_secret='abc123xyz789'", "secret", "client_secret="},
	} {
		got, kinds := Scrub(c.in)
		if len(kinds) == 0 || kinds[0] != c.kind {
			t.Errorf("Scrub(%q): kinds %v, want %s (got %q)", c.in, kinds, c.kind, got)
			continue
		}
		if !strings.Contains(got, "[REDACTED:"+c.kind+"]") || !strings.Contains(got, c.keep) {
			t.Errorf("Scrub(%q) = %q", c.in, got)
		}
	}
}

// Near-misses: things that look a little like secrets and must stay.
func TestScrubLeavesNearMisses(t *testing.T) {
	for _, in := range []string{
		"fixed in commit 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c",
		"request id 123e4567-e89b-12d3-a456-426614174000",
		`fixture_base64 = "SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdCBmaXh0dXJlLg=="`,
		"the password reset flow sends an email",
		"token=$GITHUB_TOKEN from the CI secret store",
		"password: <your password here>",
		"api_key=${API_KEY}",
		"token = ***",
		"see https://example.com/docs?page=2 for tokens",
		"use sk-learn for the classifier",
		"AKIA is the prefix of AWS access key IDs",
		"run ssh-keygen to make a private key; never commit it",
		"git@github.com:org/repo.git",
	} {
		if got, kinds := Scrub(in); got != in || len(kinds) > 0 {
			t.Errorf("Scrub(%q) = %q %v, want it unchanged", in, got, kinds)
		}
	}
}

func TestScrubDropsPrivateSpans(t *testing.T) {
	got, kinds := Scrub("deploy with <private>the staging root password is x</private>the usual script")
	if got != "deploy with the usual script" || len(kinds) != 1 || kinds[0] != "private" {
		t.Errorf("got %q %v", got, kinds)
	}
	got, _ = Scrub("keep this <PRIVATE>unclosed secret to the end")
	if got != "keep this " {
		t.Errorf("unclosed span: %q", got)
	}
}
