package secrets

import "testing"

// A password in a .netrc entry or named in a sentence: exactly the value
// becomes [REDACTED:<rule>], the words around it stay.
func TestScrubPasswordInWordsAndNetrc(t *testing.T) {
	for _, c := range []struct{ before, secret, id, after string }{
		// .netrc, as pasted into a note: over lines, on one line, with
		// account, the default entry; a value shorter or plainer than
		// "password <value>" in a sentence needs is a password there too.
		{"our CI .netrc:\nmachine api.example.com\n  login bot\n  password ", "Pz4Xc6Vb8Nm1", "netrc-password", ""},
		{"machine github.com login ci-bot password ", "s3cr3tPW", "netrc-password", "\n"},
		{"machine ftp.example.com login deploy account ops password ", "Hunter!9", "netrc-password", " # rotate"},
		{"default login anonymous password ", "Guest-2024!", "netrc-password", ""},
		{"machine db.internal login app password ", "S3cret!", "netrc-password", ""},
		{"machine pypi.example.com\n\tlogin __token__\n\tpassword ", "correcthorsebatterystaple", "netrc-password", ""},
		{"in ~/.netrc: machine git.example.com login me password ", "Pz4Xc6Vb8Nm1", "netrc-password", ". Rotate it."},
		// "password <value>" in a sentence.
		{"use password ", "Hn6Jm8Kl0Pq2", "password-in-words", " for the admin"},
		{"log in with password ", "Summer2024", "password-in-words", " until Friday"},
		{"the admin password `", "Xk9mQ2vLp8wZ", "password-in-words", "` works"},
		{"the admin password \"", "Xk9mQ2vLp8wZ", "password-in-words", "\" works"},
		{"use password ", "Hn6Jm8Kl0Pq2", "password-in-words", "."},
		{"(staging PASSWORD ", "Hn6Jm8Kl0Pq2", "password-in-words", "), then deploy"},
		{"the password ", "password123", "password-in-words", " is a bad one, change it"},
		{"the password ", "hunter2024", "password-in-words", " still works on staging"},
		{"set passwd ", "Tr0ub4dor&3", "password-in-words", " on the box"},
		{"vpn pwd ", "Xk9!mQ2vLp", "password-in-words", " for now"},
	} {
		in := c.before + c.secret + c.after
		want := c.before + "[REDACTED:" + c.id + "]" + c.after
		if got, _ := Scrub(in); got != want {
			t.Errorf("Scrub(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// What prose says about passwords, and commands named passwd and pwd:
// nothing here is a password, and all of it stays.
func TestScrubPasswordProseStays(t *testing.T) {
	for _, in := range []string{
		"the password reset flow sends an email",
		"the password field is hidden until focus",
		"the password is stored hashed",
		"password123 is a bad example",
		"Passwords are hashed with bcrypt before they reach the database.",
		"the password policy wants 12 characters",
		"password: must be at least 12 characters",
		"store the password sha256-hashed with a salt",
		"the password base64-encoded in the header was the bug",
		"password argon2id hashes take 64 MiB",
		"password HMAC-SHA256 signatures are checked",
		"the password v10.20.3-beta migration is done",
		"reverted the password 3f2a1b4c change",
		"the password 12345678 is in every breach list",
		"reset the password 2024-01-15 after the audit",
		"the password 2FA2024 rollout", // 7 characters
		"run passwd deploy_01 to set it",
		"sudo passwd ubuntu2024",
		"pwd /home/build2024/src",
		"pwd printed ./build2024",
		"the .netrc has machine, login and password fields",
		"machine api.example.com login bot password $NETRC_PASSWORD",
		"machine api.example.com login bot password <password>",
		"machine learning password strength models",
		"default password policy",
	} {
		if got, kinds := Scrub(in); got != in || len(kinds) > 0 {
			t.Errorf("Scrub(%q) = %q %v, want it unchanged", in, got, kinds)
		}
	}
}
