package secrets

import "testing"

// A typical record text that names credentials without holding one: the
// keywords unlock many rules, so this is near the worst common case.
const benchText = "Rotate the API key and the access token every 90 days; the secret is read from the vault, " +
	"never from config.toml. The password policy wants 12 characters. See the auth docs for the token_ttl and key rotation."

func BenchmarkScrub(b *testing.B) {
	Scrub(benchText) // compile the rules it unlocks once
	for b.Loop() {
		Scrub(benchText)
	}
}
