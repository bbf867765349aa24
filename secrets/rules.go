package secrets

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ruleSpec is one detection rule as gitleaks writes it: a regex, the
// submatch holding the secret (0: the first non-empty one, or the whole
// match), a minimum Shannon entropy of the secret (0: none), keywords of
// which one must appear in the text (case-insensitively) before the regex
// runs, and allowlists. lore's own rules add valid, a check of the value.
type ruleSpec struct {
	id          string
	regex       string
	secretGroup int
	entropy     float64
	keywords    []string
	allow       []allowSpec
	valid       func(secret string) bool
	// overlap: matches may overlap, the scan resuming just after each
	// match's start rather than at its end, for a rule whose match can end
	// where the next begins ("secret: aws_secret_access_key = value").
	overlap bool
}

// allowSpec is a gitleaks allowlist: a finding is allowed when one of its
// regexes matches the target (the secret, the whole match, or the line)
// or the secret contains a stopword; with and, every listed check must.
type allowSpec struct {
	target    string // "", "match" or "line"
	and       bool
	regexes   []string
	stopwords []string
}

// loreRules are what a memory needs on top of gitleaks' rules, which look
// for credentials by provider: a credential assigned to any name that says
// it is one (DB_PASSWORD=, "token": "…", api-key:) or named in words ("the
// token is …", "use password …"), a password given to a command line or in
// a .netrc entry, an Authorization header, and a password in any URL
// scheme. Their values must look like a credential, so prose ("password:
// must be at least 12 characters", "the password reset flow") and
// configuration (token_ttl = 3600) stay as written; and a private key
// block cut short.
var loreRules = []ruleSpec{
	{
		// gitleaks' private-key wants the END line; a key pasted into a
		// note is often cut short.
		id:       "private-key-block",
		regex:    `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:\s{0,2}[A-Za-z-]+:[^\n]*)*(?:\s{0,2}[A-Za-z0-9+/=]{16,})*(?:\s{0,2}-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----)?`,
		keywords: []string{"-----begin"},
	},
	{
		// In English; languages.go has the names in other languages.
		id:       "credential-assignment",
		regex:    `(?i)(?:password|passwd|pwd|passphrase|secret|token|api[_.-]?key|access[_.-]?key|private[_.-]?key|auth[_.-]?key|credentials?)` + assigned,
		keywords: []string{"pass", "pwd", "secret", "token", "key", "credential"},
		valid:    looksLikeCredential,
		overlap:  true,
	},
	{
		// A password given to a command line (sshpass -p X, mysql -pX,
		// redis-cli -a X, docker login -p X) or said in prose ("the
		// password is X", "password: admin / X").
		id: "password-argument",
		regex: `(?i)(?:\bsshpass\s+-p\s*|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p|\bredis-cli\b[^\n|;&]*?\s-a\s+|\blogin\b[^\n|;&]*?\s(?:-p\s+|--password[=\s]\s*)|\bpassword\s+(?:is|was)\s+|\bpassword\s*:\s*[^\s/]+\s*/\s*)` +
			`(?:"([^"\n]+)"|'([^'\n]+)'|(` + value + `))`,
		keywords: []string{"sshpass", "mysql", "mariadb", "redis-cli", "login", "password"},
		valid:    looksLikeCredential,
	},
	{
		// A .netrc entry (curl, git, ftp and pip read them): machine HOST,
		// then login USER or account X, then password VALUE, on one line or
		// several. The place says what the value is, so it only has to look
		// like a credential, as an assigned one does. netrc's words are
		// lower case, and a regex that starts with a literal skips to it
		// (a text that names a password but no machine costs a search).
		id:       "netrc-password",
		regex:    `machine\s+\S+(?:\s+(?:login|account)\s+\S+)*\s+password\s+` + wordValue,
		keywords: []string{"machine"},
		valid:    looksLikeCredential,
	},
	{
		// The default entry, for any other machine: default login USER
		// password VALUE.
		id:       "netrc-password",
		regex:    `default(?:\s+(?:login|account)\s+\S+)+\s+password\s+` + wordValue,
		keywords: []string{"default"},
		valid:    looksLikeCredential,
	},
	{
		// A password named in a sentence without "is" or "=": "use password
		// Hn6Jm8Kl0Pq2 for the admin", "log in with password Summer2024".
		// Prose puts ordinary words there ("the password reset flow", "the
		// password field", "password sha256-hashed"), so see
		// passwordInWords for what counts.
		id:       "password-in-words",
		regex:    `(?i)\bpassword[ \t]+` + wordValue,
		keywords: []string{"password"},
		valid:    passwordInWords,
	},
	{
		// passwd and pwd are also commands, and "passwd deploy_01" names a
		// user: a value after them counts when it also has an upper-case
		// letter or a symbol, as a username or a path does not.
		id:       "password-in-words",
		regex:    `(?i)\b(?:passwd|pwd)[ \t]+` + wordValue,
		keywords: []string{"passwd", "pwd"},
		valid: func(v string) bool {
			return passwordInWords(v) && (count(v, unicode.IsUpper) > 0 || count(v, func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-.", r)
			}) > 0)
		},
	},
	{
		// A credential other than a password said in words: "the token is
		// X", "the aws_secret_access_key was X". Prose says such things of
		// a credential too ("the token is JWT-based", "the api key is
		// environment-specific", "the private key is ed25519"), so the
		// value must be 12 characters or more with at least two letters
		// and two digits, as generated keys and tokens are.
		id: "credential-in-words",
		regex: `(?i)\b(?:pass(?:phrase|wd)|secret|token|api[ _.-]?key|access[ _.-]?key|secret[ _.-]?key|private[ _.-]?key|auth[ _.-]?key|credentials?|[a-z0-9]+(?:_[a-z0-9]+)*_(?:password|passwd|secret|token|key))\s+(?:is|was)\s+` +
			`(?:"([^"\n]+)"|'([^'\n]+)'|(` + value + `))`,
		keywords: []string{"pass", "secret", "token", "key", "credential"},
		valid: func(v string) bool {
			return utf8.RuneCountInString(v) >= 12 && looksLikeCredential(v) && count(v, unicode.IsDigit) >= 2 && count(v, unicode.IsLetter) >= 2
		},
	},
	{
		id:       "authorization-header",
		regex:    `(?i)\b(?:authorization|proxy-authorization)\s*[:=]\s*["']?(?:basic|bearer|token|digest|apikey)\s+([A-Za-z0-9._~+/=:-]{8,})`,
		keywords: []string{"authorization"},
		valid:    looksLikeCredential,
	},
	{
		id:       "url-password",
		regex:    `\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:([^/\s@]+)@`,
		keywords: []string{"://"},
		valid:    func(s string) bool { return !placeholder(s) },
	},
}

// assigned is what follows a credential's name in an assignment. The name
// may run on in ASCII (DB_PASSWORD_FILE, token.value), not into the
// letters of a word in another script (密码学, cryptography, is no 密码,
// password). Full-width marks assign too (密码：, ＝), and a value may
// open with a bracket or a quote beyond ASCII (パスワード：「…」).
const assigned = `[a-z0-9_.-]*["']?[\s\x{3000}]*(?::=|=>|[:=：＝])[\s\x{3000}]*` +
	`(?:"([^"\n]+)"|'([^'\n]+)'|(?-i:[«‹‘“「『（【〔〈《])?(` + value + `))`

// wordValue is a value written after a word in prose: quoted (also in
// Markdown backticks), or up to a space, not counting the punctuation that
// ends a sentence or closes a bracket after it ("password Hn6Jm8Kl0Pq2.").
const wordValue = `(?:"([^"\n]+)"|'([^'\n]+)'|` + "`([^`\\n]+)`" + `|(?-i:([^\s"'` + "`" + `,;` + notInValue + `]*[^\s"'` + "`" + `,;.:)\]` + notInValue + `])))`

// value is a value written without quotes: up to a space, a comma or a
// semicolon, as in English, or to what ends a word in any other script
// (notInValue). Case-sensitive, as case changes nothing there: folding
// the case of notInValue's ranges in a (?i) rule costs milliseconds.
const value = `(?-i:[^\s"',;` + notInValue + `]+)`

// notInValue ends a value written without quotes: a space or punctuation
// beyond ASCII (NBSP, « », the dashes, quotes and ellipsis of General
// Punctuation, the CJK and full-width marks 、。，：；「」), and a letter of a
// script other than Latin. Credentials are typed in ASCII (or at most in
// Latin letters): the letters of another script next to one are the words
// of the sentence, which in Chinese, Japanese and Thai go on without a
// space ("密码=Zx9QwErTy7UiOp3AsDf请勿外传": the value is the key, not the
// request not to pass it on), and a value that starts with them is prose
// ("token: обязателен в продакшене"). The price: a password made of
// Cyrillic or Greek letters is not taken for one. Ranges of blocks rather
// than \p{Latin}, whose complement would be costly to compile on every
// process's first scrub; TestNotInValueIsEveryOtherScript checks them
// against the Unicode tables.
const notInValue = `\x{A0}\x{AB}\x{AD}\x{BB}` + // NBSP « SHY »
	`\x{370}-\x{1CFF}` + // Greek and Cyrillic to Vedic: the scripts of Europe, Asia and Africa but Latin
	`\x{1D26}-\x{1D2B}\x{1D5D}-\x{1D61}\x{1D66}-\x{1D6A}\x{1D78}\x{1DBF}\x{2126}\x{AB65}` + // Greek and Cyrillic among Latin's phonetic letters, Ω
	`\x{1F00}-\x{206F}` + // Greek Extended, General Punctuation
	`\x{2C00}-\x{2C5F}\x{2C80}-\x{A4CF}\x{A4D0}-\x{A6FF}\x{A800}-\x{AB2F}\x{AB70}-\x{D7FF}` + // Glagolitic; Coptic to CJK and Yi; Lisu to Hangul, less Latin Extended-C, -D and -E
	`\x{F900}-\x{FAFF}\x{FB13}-\x{FDFF}\x{FE10}-\x{FF20}\x{FF3B}-\x{FF40}\x{FF5B}-\x{FFEF}` + // CJK compatibility, presentation forms, full-width punctuation (not full-width Latin)
	`\x{10000}-\x{1077F}\x{107C0}-\x{1CFFF}\x{1E000}-\x{1EFFF}\x{20000}-\x{3FFFF}` // historic scripts and CJK extensions, less Latin Extended-F

// passwordInWords says whether v, written after "password", is one: 8
// characters or more with letters and digits, as a password given in words
// is (never an English word, which has no digits: "the password reset
// flow", "password field"), and not what prose also writes there: a path
// or a URL, a version, a short commit hash, the name of a hash or an
// encoding ("password sha256-hashed", "password base64-encoded").
// "password123 is a bad example" names no value and stays; "use password
// password123" gives one, weak as it is, and it goes.
func passwordInWords(v string) bool {
	return utf8.RuneCountInString(v) >= 8 && count(v, unicode.IsLetter) > 0 && count(v, unicode.IsDigit) > 0 &&
		looksLikeCredential(v) && !strings.ContainsAny(v[:1], "/~.$%") && !strings.Contains(v, "://") && !notAPassword().MatchString(v)
}

// looksLikeCredential rejects values that are not secrets: placeholders
// and references, numbers, constant names, single ordinary words, words of
// a script other than Latin. Lengths are in characters, not bytes (a
// German "unverschlüsselt" is no longer than an English word).
func looksLikeCredential(v string) bool {
	// A quoted value may hold another script's letters, which no value
	// written without quotes does (notInValue): it is a credential when
	// what they leave is one ("Zx9QwErTy7UiOp3AsDf请勿外传", not
	// "Обязательно" or "秘密はVaultに保存する").
	if strings.IndexFunc(v, otherScript) >= 0 {
		return slices.ContainsFunc(strings.FieldsFunc(v, otherScript), looksLikeCredential)
	}
	n := utf8.RuneCountInString(v)
	if placeholder(v) || n < 6 || constantName().MatchString(v) || codeReference().MatchString(v) || credentialName().MatchString(v) ||
		strings.Contains(v, "[REDACTED:") { // what another rule already redacted (PASSWORD://:[REDACTED:url-password]@)
		return false
	}
	var lower, upper, digit, other bool
	for _, r := range v {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		default:
			other = true
		}
	}
	if !lower && !upper {
		return false // digits and punctuation: a number, a duration, a version
	}
	if n >= 16 {
		return true
	}
	// A short value counts when it mixes classes, as passwords do; a
	// single word ("required", "enabled") does not.
	classes := 0
	for _, c := range []bool{lower, upper, digit, other} {
		if c {
			classes++
		}
	}
	return classes >= 2
}

// otherScript says whether r is a letter of a script other than Latin.
func otherScript(r rune) bool {
	return r >= utf8.RuneSelf && unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r)
}

// count is how many of s's runes f holds for.
func count(s string, f func(rune) bool) int {
	n := 0
	for _, r := range s {
		if f(r) {
			n++
		}
	}
	return n
}

// The patterns compile on first use: only write paths scrub, and the hook
// must not pay for them at start.
var (
	placeholderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|\{\{.*\}\}|<[^>]*>|\[REDACTED[^\]]*\]|[*xX.•]+|null|none|nil|true|false|undefined|changeme|example|placeholder|your[_-].*|process\.env\..*|os\.environ.*|env\(.*\)|getenv\(.*\))$`)
	})
	constantName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`) })
	// A lower-case name that says it holds a credential is the name a
	// value is assigned to ("secret: aws_secret_access_key = …").
	credentialName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)*[_.-](?:password|passwd|secret|token|key|credentials?)(?:[_.-][a-z0-9]+)*$|^(?:password|passwd|secret|token|api[_.-]?key|credentials?)(?:[_.-][a-z0-9]+)+$`)
	})
	// What prose writes after "password" that has letters and digits but
	// is no password: the name of a hash, a cipher or an encoding, a
	// version, a short commit hash.
	notAPassword = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?i:sha-?\d|md[245]|argon2|pbkdf2|base(?:16|32|36|58|62|64)|utf-?(?:8|16|32)|ed25519|x25519|x509|rsa-?\d|aes-?\d|hmac|crc-?\d|blake[23]|rot13|oauth2|https?\d|tls-?\d|ssl\d)|^v?\d+(?:\.\d+)+|^[0-9a-f]{7,12}$`)
	})
	// A call or a dotted name is code that reads the value, not the value:
	// document.querySelector('#password'), config.db.password.
	codeReference = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(.*|\.[A-Za-z_$][\w$]*)$`)
	})
)

func placeholder(v string) bool { return placeholderRE().MatchString(v) }
