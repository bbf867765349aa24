package secrets

import (
	"strings"
	"testing"
)

// Real-format samples (none is a live credential): a few of gitleaks'
// rules, and every rule of lore's own. gitleaks_test.go runs the whole
// gitleaks corpus.
func TestScrubRedactsSecrets(t *testing.T) {
	for _, c := range []struct{ in, kind, keep string }{
		{"key AKIAZ3MSJV4WWNKWW5FG in the env", "aws-access-token", "key "},
		{"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7aQ2n8W1vXq9Lr0kP3sT5uY7zB4cD6eF8gH0iJ2kL\n-----END PRIVATE KEY-----", "private-key", ""},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "private-key-block", ""},
		{"push with ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui now", "github-pat", "push with "},
		{"CI uses glpat-9zXkQ2mLp4Rt7Wv1Yb3N", "gitlab-pat", "CI uses "},
		{"bot token xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack-bot-token", "bot token "},
		{"DATABASE_URL=postgres://app:s3cr3tPassw0rd@db.internal:5432/app", "url-password", "postgres://app:"},
		{"cache at redis://:Kq8zP2mX@cache:6379/0", "url-password", "redis://:"},
		{"set password=hunter22 in staging", "credential-assignment", "set password="},
		{"export DB_PASSWORD=Tr0ub4dor in the shell", "credential-assignment", "export DB_PASSWORD="},
		{`{"token": "a8f5f167f44f4964e6c998dee827110c"}`, "", `{"token": "`},
		{"Authorization: Basic dXNlcjpwYXNzd29yZA== was sent", "authorization-header", "Authorization: Basic "},
		{"curl -H 'Authorization: Bearer abc123def456ghi789' https://api", "", "Bearer "},
	} {
		got, kinds := Scrub(c.in)
		if len(kinds) == 0 || c.kind != "" && kinds[0] != c.kind {
			t.Errorf("Scrub(%q): kinds %v, want %s (got %q)", c.in, kinds, c.kind, got)
			continue
		}
		if !strings.Contains(got, "[REDACTED:"+kinds[0]+"]") || !strings.Contains(got, c.keep) {
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
		"secret: aws_secret_access_key is read from the environment",
		"the password is required for login",
		"mysql -p prompts for the password",
		"docker login -p is deprecated, use --password-stdin",
		// Prose about a credential, not one: the value is not a generated key.
		"the token is JWT-based and signed with RS256",
		"the api key is environment-specific",
		"the private key is ed25519",
		"the secret is sha256 of the body",
		"the token is base64url encoded",
		"the secret is OAuth2-compatible",
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

// The cases a memory meets beyond provider formats: env files, settings,
// headers, URLs and key blocks, each inside a sentence. The secret must go;
// the words around it stay.
func TestScrubMemoryCases(t *testing.T) {
	for _, c := range []struct{ in, secret string }{
		{"the fix was DB_PASSWORD=Xk3!v9Lp2q in .env.local", "Xk3!v9Lp2q"},
		{"CI needed GITHUB_TOKEN=ghs_4bXz9QmT2kLp7RvW1yN8cD5fH3jG6sA0eU2i", "ghs_4bXz9QmT2kLp7RvW1yN8cD5fH3jG6sA0eU2i"},
		{"rails wants SECRET_KEY_BASE=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{`the response had {"token": "tk_8Hq2LmZ9xV4cR7pN1wY6"} in it`, "tk_8Hq2LmZ9xV4cR7pN1wY6"},
		{"config.yaml: api_key: 7b1e4c9a2f6d8e0b3a5c7d9e1f2a4b6c", "7b1e4c9a2f6d8e0b3a5c7d9e1f2a4b6c"},
		{"redis://:Kq8zP2mXw4@cache.internal:6379/0 is the broker", "Kq8zP2mXw4"},
		{"amqp://guest:S3cretRabbit!@mq:5672 worked", "S3cretRabbit!"},
		{"mongodb+srv://admin:Mng0Pass2024@cluster0.example.net/db", "Mng0Pass2024"},
		{"ftp://deploy:Ftp-9xKq@files.example.com/upload", "Ftp-9xKq"},
		{"sent Authorization: Basic ZGVwbG95OnMzY3IzdFBhc3M= to the API", "ZGVwbG95OnMzY3IzdFBhc3M="},
		{"header Authorization: Bearer 4f8a2c9e1b7d3f6a0c5e8b2d9f1a7c3e", "4f8a2c9e1b7d3f6a0c5e8b2d9f1a7c3e"},
		{"X-Api-Key: q8Wm2Zr5Tn7Kp1Vx3Yb9 in the request", "q8Wm2Zr5Tn7Kp1Vx3Yb9"},
		{"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Lk2Mn4P", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Lk2Mn4P"},
		{"STRIPE_SECRET=sk_live_51Mz8QkLp2Xv9Tr4Wn7Yb3Ca6", "sk_live_51Mz8QkLp2Xv9Tr4Wn7Yb3Ca6"},
		{"password: \"c0rrect-h0rse-battery\" in the fixture", "c0rrect-h0rse-battery"},
		{"MYSQL_ROOT_PASSWORD: Rt9#mK2vQ in docker-compose", "Rt9#mK2vQ"},
		{"set npm_config_//registry.npmjs.org/:_authToken=npm_Q8kz2LmP9xV4cR7tN1wY6bH3jG5sA0eU2iFd", "npm_Q8kz2LmP9xV4cR7tN1wY6bH3jG5sA0eU2iFd"},
		{"PGPASSWORD=pg-Secr3t-2024 psql -h db", "pg-Secr3t-2024"},
		{"client_secret = 'Zx9!Qw2#Er4$Ty6'", "Zx9!Qw2#Er4$Ty6"},
		{"ssh key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n(cut)", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"},
		// A name that says "credential" after a word that does too: the
		// value, not the name, is the secret.
		{"Credentials: aws_secret_access_key = Rt/1fjORS+6ilI8ihN5KXSc7Tvo+hBKqFYY+kv5Z", "Rt/1fjORS+6ilI8ihN5KXSc7Tvo+hBKqFYY+kv5Z"},
		{"Fixed the credentials: DB_PASSWORD = Xk9mQ2vLp8wZ", "Xk9mQ2vLp8wZ"},
		{"login failed, secret: STRIPE_SECRET = Hq7vTz2LmP9xWq", "Hq7vTz2LmP9xWq"},
		{"token: api_token = Gh7kLm2Qp9Xz rotated", "Gh7kLm2Qp9Xz"},
		// Passwords given to command lines, or said in words.
		{"ran docker login -u ci -p Dk8vQz2Lm4Xp registry.example.com", "Dk8vQz2Lm4Xp"},
		{"docker login --password=Dk8vQz2Lm4Xp ghcr.io", "Dk8vQz2Lm4Xp"},
		{"redis-cli -h cache -a Rd5xLm9Qz2Kp ping", "Rd5xLm9Qz2Kp"},
		{"sshpass -p Ss7hKq2Lm9Zx ssh deploy@host", "Ss7hKq2Lm9Zx"},
		{"mysql -u root -pMy5qLz8Kx2Vp app < dump.sql", "My5qLz8Kx2Vp"},
		{"the staging password is Pw4!zLq9Xm, ask before using", "Pw4!zLq9Xm"},
		{"login with password: admin / Ad9mZq2Lx7 on the box", "Ad9mZq2Lx7"},
		// Other credentials said in words (a new user's test stored all four).
		{"the token is Zq8vN2pLx7Rt4mKwB3yHc9Ds for the bot", "Zq8vN2pLx7Rt4mKwB3yHc9Ds"},
		{"the api key is Zq8vN2pLx7Rt4mKwB3yHc9Ds", "Zq8vN2pLx7Rt4mKwB3yHc9Ds"},
		{"the passphrase is Zq8vN2pLx7Rt4mKw", "Zq8vN2pLx7Rt4mKw"},
		{"the aws_secret_access_key is 575yx8xm5MslfY5ubiheyEd7P4zDL+ak6J0kGODK", "575yx8xm5MslfY5ubiheyEd7P4zDL+ak6J0kGODK"},
		{"the JWT was eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IiLCJyb2xlIjoiYWRtaW4ifQ.Xq2LmZ9xV4cR7pN1wY6bH3jG5sA0eU2iFdKoTp8", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IiLCJyb2xlIjoiYWRtaW4ifQ.Xq2LmZ9xV4cR7pN1wY6bH3jG5sA0eU2iFdKoTp8"},
	} {
		got, kinds := Scrub(c.in)
		if len(kinds) == 0 || strings.Contains(got, c.secret) {
			t.Errorf("Scrub(%q) = %q (%v): the secret %q stays", c.in, got, kinds, c.secret)
		}
		before, after, _ := strings.Cut(c.in, c.secret)
		if !strings.HasPrefix(got, before) || !strings.HasSuffix(got, after) {
			t.Errorf("Scrub(%q) = %q: more than the secret went", c.in, got)
		}
	}
}
