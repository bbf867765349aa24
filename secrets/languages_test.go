package secrets

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// A fake credential, in the format of a generated password.
const fakePassword = "Zx9QwErTy7UiOp3AsDf"

// padding makes a text longer than shortText, so that its rules are found
// with the keyword index rather than by looking for each keyword.
var padding = strings.Repeat("Notes from the deploy. ", 50)

// scrubBothWays is Scrub's result for in, checked to be the same when the
// text is long enough to be searched with the keyword index.
func scrubBothWays(t *testing.T, in string) string {
	t.Helper()
	got, _ := Scrub(in)
	if long, _ := Scrub(padding + in); long != padding+got {
		t.Errorf("Scrub(%q) = %q, but after %d bytes of padding: %q", in, got, len(padding), strings.TrimPrefix(long, padding))
	}
	return got
}

// Prose in a script other than Latin after a credential's name is words,
// not a value, as its English is ("token: required in production"); so is
// a German word whose umlauts make it 16 bytes long.
func TestScrubKeepsProseInOtherScripts(t *testing.T) {
	for _, in := range []string{
		"token: обязателен в продакшене",
		"password: обязательно",
		"secret: меняется ежемесячно",
		"secret: Меняется ежемесячно",
		"token: απαιτείται στην παραγωγή",
		"token: Απαιτείται στην παραγωγή",
		"token: 从环境变量LORE_TOKEN读取",
		"secret=秘密はVaultに保存する",
		"token: उत्पादन में आवश्यक",
		"token: مطلوب في الإنتاج",
		"token: จำเป็นในการผลิต",
		`password: "обязательно"`,
		`password: "Обязательно"`,
		`secret: "秘密はVaultに保存する"`,
		"Token: unverschlüsselt gespeichert",
	} {
		if got := scrubBothWays(t, in); got != in {
			t.Errorf("Scrub(%q) = %q, want it unchanged", in, got)
		}
	}
}

// A credential next to the words of another script: exactly the credential
// goes, up to the full-width punctuation or the letter that ends it.
func TestScrubCredentialsBesideOtherScripts(t *testing.T) {
	const ghp, akia = "ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui", "AKIAZ3MSJV4WWNKWW5FG"
	for _, c := range []struct{ before, secret, id, after string }{
		{"пароль: ", fakePassword, "credential-assignment", " (не публиковать)"},
		{"密码：", fakePassword, "credential-assignment", ""},
		{"密码：", fakePassword, "credential-assignment", "，请勿外传。"},
		{"密码=", fakePassword, "credential-assignment", "请勿外传"},
		{`密码："`, fakePassword, "credential-assignment", `"，请勿外传`},
		{"пароль: ", fakePassword, "credential-assignment", "。"},
		{"パスワード：「", fakePassword, "credential-assignment", "」です"},
		{"password: «", fakePassword, "credential-assignment", "»"},
		{`password: "`, fakePassword + "请勿外传", "credential-assignment", `"`},
		{"令牌是", ghp, "github-pat", "，请轮换"},
		{"我们用", ghp, "github-pat", "推送到仓库"},
		{"密钥", akia, "aws-access-token", "已经轮换了"},
		{"the token is ", "Zq8vN2pLx7Rt4mKwB3yHc9Ds", "credential-in-words", "。"},
		{"use password ", "Hn6Jm8Kl0Pq2", "password-in-words", "，然后登录"},
	} {
		in := c.before + c.secret + c.after
		if got, want := scrubBothWays(t, in), c.before+"[REDACTED:"+c.id+"]"+c.after; got != want {
			t.Errorf("Scrub(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

var redacted = regexp.MustCompile(`^\[REDACTED:[a-z-]+\]$`)

// A password, a secret, a token or a credential named in another
// language, in any case, assigned with = or :, ASCII or full-width.
func TestScrubCredentialNamedInOtherLanguages(t *testing.T) {
	names := []string{
		"Passwort", "Kennwort", "Passwörter", "API-Schlüssel", "privater Schlüssel", "Zugangsdaten", "Geheimnis",
		"wachtwoord", "api-sleutel", "geheime sleutel",
		"mot de passe", "mot_de_passe", "jeton", "clé API", "clé secrète", "clé d'accès",
		"contraseña", "contrasena", "clave de acceso", "secreto", "credenciales",
		"senha", "chave de API", "segredo", "credenciais",
		"segreto", "chiave API", "chiave segreta", "parola d'ordine", "credenziali",
		"hasło", "haslo", "klucz API", "tajny klucz", "sekret",
		"пароль", "пароля", "секрет", "токен", "API-ключ", "секретный ключ", "закрытый ключ", "учётные данные",
		"секретний ключ", "облікові дані",
		"şifre", "ŞİFRE", "veritabanı şifresi", "parola", "gizli anahtar", "API anahtarı",
		"mật khẩu", "mat_khau", "bí mật", "khóa API", "mã thông báo",
		"密码", "数据库密码", "口令", "密钥", "API密钥", "令牌", "凭证", "密碼", "金鑰", "權杖", "憑證",
		"パスワード", "トークン", "秘密鍵", "APIキー", "認証情報",
		"비밀번호", "암호", "비밀 키", "토큰", "API 키", "자격 증명",
	}
	for _, name := range names {
		for _, n := range []string{name, strings.ToUpper(name), strings.ToLower(name)} {
			for _, mark := range []string{"=", ": ", " : ", "：", "＝"} {
				// gitleaks' generic-api-key takes some ("clé API=…") first.
				in := n + mark + fakePassword
				got, _ := Scrub(in)
				if mark == "=" && n != name { // in upper case, the keyword index too
					got = scrubBothWays(t, in)
				}
				if !redacted.MatchString(strings.TrimPrefix(got, n+mark)) {
					t.Errorf("Scrub(%q) = %q, want %q", in, got, n+mark+"[REDACTED:credential-assignment]")
				}
			}
		}
	}
}

// Prose after those names stays, as English does; and a word that holds
// one of them but names something else (cryptography, encryption, a key
// word) is no credential's name.
func TestScrubOtherLanguagesProseStays(t *testing.T) {
	for _, in := range []string{
		"Passwort: mindestens 12 Zeichen",
		"mot de passe : obligatoire en production",
		"contraseña: obligatoria en producción",
		"senha: obrigatória",
		"hasło: wymagane w produkcji",
		"пароль: обязателен",
		"şifre: zorunlu",
		"mật khẩu: bắt buộc",
		"密码：必填。",
		"パスワード：必須です",
		"비밀번호: 필수",
		"密码学：AES256-GCM",
		"암호화: AES256-GCM",
		"palabra clave: Vault2024",
		"parola chiave: Vault2024",
		"Schlüsselwort: Vault2024",
		"ключевые слова: Vault2024",
		"MDP: CartPole-v1",
	} {
		if got := scrubBothWays(t, in); got != in {
			t.Errorf("Scrub(%q) = %q, want it unchanged", in, got)
		}
	}
}

// notInValue's ranges of blocks stop a value at every letter of a script
// other than Latin, and at none of Latin's.
func TestNotInValueIsEveryOtherScript(t *testing.T) {
	in := regexp.MustCompile(`^[^` + notInValue + `]$`)
	for name, table := range unicode.Scripts {
		latin := name == "Latin"
		if name == "Common" || name == "Inherited" {
			continue
		}
		for _, r16 := range table.R16 {
			for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
				checkStop(t, in, name, r, latin)
			}
		}
		for _, r32 := range table.R32 {
			for r := rune(r32.Lo); r <= rune(r32.Hi); r += rune(r32.Stride) {
				checkStop(t, in, name, r, latin)
			}
		}
	}
}

func checkStop(t *testing.T, in *regexp.Regexp, script string, r rune, latin bool) {
	t.Helper()
	if !unicode.IsLetter(r) {
		return
	}
	if stops := !in.MatchString(string(r)); stops == latin {
		t.Errorf("%s letter %U %c: ends a value: %v", script, r, r, stops)
	}
}
