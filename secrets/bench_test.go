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

// A note written in other scripts that names credentials and holds one:
// the keywords beyond ASCII are searched for in the lower-cased text, and
// the Russian and Chinese rules run.
const benchOtherText = "Ротация ключей: token: обязателен в продакшене, пароль хранится в Vault и меняется ежемесячно. " +
	"部署说明：令牌从环境变量LORE_TOKEN读取，密码：Zx9QwErTy7UiOp3AsDf，请勿外传。"

func BenchmarkScrubOtherScripts(b *testing.B) {
	Scrub(benchOtherText)
	for b.Loop() {
		Scrub(benchOtherText)
	}
}
