package secrets

import (
	"strings"
	"testing"
)

// prosePunctuation is what prose puts right after a credential: a sentence
// or clause ending, a closing bracket or quote, Markdown emphasis.
var prosePunctuation = []string{".", ",", ")", "]", ":", ";", "!", "?", "...", ").", "].", ".)", "**", "}", ">", "|", "…", "”", "’", "»", "—"}

// TestProsePunctuationEndsASecret: a credential followed by punctuation is
// redacted as it is when followed by a space, for every gitleaks rule whose
// corpus secret is found when a space follows it. Only the secret goes: the
// punctuation and the words after it stay.
func TestProsePunctuationEndsASecret(t *testing.T) {
	seen := map[string]bool{}
	tested := 0
	for _, c := range readCorpus(t) {
		if c.Kind != "tp" || seen[c.Rule] {
			continue
		}
		seen[c.Rule] = true
		secret, prefix := firstSecret(c.Rule, c.Text)
		if secret == "" {
			continue
		}
		const after = " and more words"
		if got, _ := Scrub(prefix + after); strings.Contains(got, secret) {
			continue // the rule needs what came after the secret (a closing quote, a suffix)
		}
		tested++
		for _, p := range prosePunctuation {
			for _, in := range []string{prefix + p + after, prefix + p, prefix + p + "\nnext line"} {
				got, kinds := Scrub(in)
				if strings.Contains(got, secret) || len(kinds) == 0 {
					t.Errorf("%s: %q followed by %q stays: %q", c.Rule, secret, p, got)
					continue
				}
				// What follows the punctuation is prose and stays (the
				// punctuation itself may go with a rule whose secret can
				// hold it, such as generic-api-key's [\w.=-]).
				if rest := in[len(prefix)+len(p):]; !strings.HasSuffix(got, rest) {
					t.Errorf("%s: %q -> %q: the text after the secret went", c.Rule, in, got)
				}
			}
		}
	}
	t.Logf("%d gitleaks rules tested with %d punctuation marks", tested, len(prosePunctuation))
	if tested < 190 {
		t.Errorf("only %d rules tested, want at least 190", tested)
	}
}

// firstSecret is the first secret rule id finds in text, and text up to
// its end.
func firstSecret(id, text string) (secret, prefix string) {
	for i := range rules().rules {
		r := &rules().rules[i]
		if r.id != id {
			continue
		}
		for _, m := range r.compiled().re.FindAllStringSubmatchIndex(text, -1) {
			if start, end := secretSpan(m, r.secretGroup); start >= 0 && end > start {
				return text[start:end], text[:end]
			}
		}
	}
	return "", ""
}

// Credentials as an agent writes them into a sentence, followed by each
// punctuation mark: exactly the credential becomes [REDACTED:<rule>].
// Fake values in the providers' formats.
func TestProsePunctuationFamilies(t *testing.T) {
	for _, c := range []struct{ before, secret, id, after string }{
		{"Billing uses ", "sk_live_51HxQz2KfAkE9xYzWvUtSrQpOn8mLk", "stripe-access-token", " for now"},
		{"The test JWT (", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiYWRtaW4iOnRydWV9.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk4", "jwt", " expires"},
		{"Claude calls use ", "sk-ant-api03--uwlWXxdjm2IogKR7PfhIg8Ez9oP0ZV1YgHNMqhQY-CIb27Mxy85v0eqHp2ERuLGQZx3NAcZCf-jCmhQdY7Ez_zFZQHNIAA", "anthropic-api-key", " in CI"},
		{"Maps key is ", "AIzacOQTBP6tUWfm0kOqpQyP1OlFdyKhlIB3opX", "gcp-api-key", " per project"},
		{"Mail goes out with ", "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", "sendgrid-api-token", " since May"},
		{"Model downloads need ", "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", "huggingface-access-token", " to work"},
		{"The eval harness reads ", "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", "openai-api-key", " today"},
		{"publish with ", "npm_izu0rya7m08ba832r20a5nwzp2adr8h4hvlb", "npm-access-token", " from the vault"},
		{"terraform ran with ", "dop_v1_6061914380c282d6f22923dad98e28e941b3ec75079db839ba921f3b18412d71", "digitalocean-pat", " last week"},
		{"gem push used ", "rubygems_671985824d953870315ecf86323af9f487c28e83a5cd9061", "rubygems-api-token", " once"},
		{"vault login ", "hvs.7B1QG41v9CfNDxlexuamy4D9Ae2zN5NsQN7WfH7BPOeD90hq81vPl6Vs4Bc5V-sWEq582E7pQ2zH2IgRCfFvTY71Yeojjdk", "vault-service-token", " worked"},
		{"the collection runs with ", "PMAK-ca138704b95ab5984bf24848-94a20ce027aa84b1a1cf05f3518b25a532", "postman-api-token", " nightly"},
		// The name-then-value rules: a provider's name, then the value.
		{"heroku: ", "4b151adf-6e53-84b5-7a70-435731015916", "heroku-api-key", " (the old one)"},
		{"datadog: ", "9jkqy4oetjl66yfz87yr3dnmrkltxcnk1et2snc0", "datadog-access-token", " in staging"},
		{"the azure app secret ", "dWS8Q~V2yEDZ0~VpfL~rb8k.JLOW~raADtHti~5B", "azure-ad-client-secret", " expires"},
	} {
		for _, p := range prosePunctuation {
			in := c.before + c.secret + p + c.after
			want := c.before + "[REDACTED:" + c.id + "]" + p + c.after
			if got, _ := Scrub(in); got != want {
				t.Errorf("Scrub(%q)\n got %q\nwant %q", in, got, want)
			}
			in = c.before + c.secret + p // at the end of the text
			want = c.before + "[REDACTED:" + c.id + "]" + p
			if got, _ := Scrub(in); got != want {
				t.Errorf("Scrub(%q)\n got %q\nwant %q", in, got, want)
			}
		}
	}
}

// Punctuation ends a secret only where prose goes on after it (a space, a
// quote, the end): a value that runs on past a dot or a colon (a file
// name, a host, host:port, a method call) is not cut there, so ordinary
// names, versions, URLs and hashes stay as written.
func TestProsePunctuationLeavesProse(t *testing.T) {
	for _, in := range []string{
		"Fixed in 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c. See the changelog.",
		"Reverts a1b2c3d4 (flaky test), then 9e1d0d5: retry the upload.",
		"The session UUID (123e4567-e89b-12d3-a456-426614174000) is only used in examples.",
		"Checksum mismatch: expected e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.",
		"Release v1.4.2 fixes the retry loop; v2.0.0-rc.1 drops Go 1.20.",
		"Bump golang.org/x/crypto from v0.35.0 to v0.36.0.",
		"See https://github.com/example/project/issues/4521, then https://example.com/docs?page=2.",
		"Call tokenStore.refreshToken(), then apiKey.Validate().",
		"The handler (validateAPIKeyFormat) returns early: see internal/auth/token_test.go:42.",
		"Use the access token, not the refresh token.",
		"the API key is environment-specific.",
		"the token is JWT-based (signed with RS256).",
		"Set GITHUB_TOKEN, NPM_TOKEN and SECRET_KEY_BASE in CI.",
		"Is the secret rotated? Yes: every 90 days.",
		"The keys [access_key_id, secret_access_key] come from the role.",
		"token_ttl = 3600, max_tokens = 4096.",
		// A name-then-value rule's value that runs on past a dot is a file
		// or a host name, not a credential cut short.
		"asana export: 1202456789012345.csv was attached.",
		"the heroku app: 4b151adf-6e53-84b5-7a70-435731015916.herokuapp.com serves it.",
		"datadog host: 9jkqy4oetjl66yfz87yr3dnmrkltxcnk1et2snc0.datadoghq.com, per region.",
	} {
		if got, kinds := Scrub(in); got != in || len(kinds) > 0 {
			t.Errorf("Scrub(%q) = %q %v, want it unchanged", in, got, kinds)
		}
	}
}

// A record text that holds credentials in prose: a provider's token before
// a full stop and in brackets, a .netrc entry, a password named in words.
const benchSecretText = "Billing uses sk_live_51HxQz2KfAkE9xYzWvUtSrQpOn8mLk. The test JWT (eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiYWRtaW4iOnRydWV9.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk4) " +
	"expires. Our CI .netrc: machine api.example.com login bot password Pz4Xc6Vb8Nm1; use password Hn6Jm8Kl0Pq2 for the admin, and rotate the API key."

func BenchmarkScrubSecrets(b *testing.B) {
	Scrub(benchSecretText)
	for b.Loop() {
		Scrub(benchSecretText)
	}
}
