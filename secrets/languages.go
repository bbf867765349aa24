package secrets

// languageRules find a credential assigned to a name in a language other
// than English (Passwort=, пароль:, 密码：), as credential-assignment does
// in English: what a note calls a password, a secret, a token or a
// credential in German, Dutch, French, Spanish, Portuguese, Italian,
// Polish, Russian, Ukrainian, Turkish, Vietnamese, Chinese, Japanese and
// Korean, in any case. A rule per group of languages, each unlocked by its
// own keywords (each name holds one, as strings.ToLower writes it): a rule
// is as slow to compile and to run as it has names, and a text in one
// language pays for that language's names only.
//
// A bare "key" is a dictionary's or a table's as often as a credential's,
// in English (sort key:) as in German (Schlüssel:), Italian (parola
// chiave: a key word) or Chinese (键：), so a key counts only where the
// name says which (API, secret, private or access key). A word that is
// also ordinary English is left out (French "mdp" is a Markov decision
// process in English). Turkish "parola" is also Italian for a word, but a
// note does not assign a value to a word.
var languageRules = []ruleSpec{
	{
		id: "credential-assignment", // German, Dutch
		regex: `(?i)(?:passw(?:ort|örter|oerter)|kennw(?:ort|örter|oerter)|geheim|zugangsdaten|(?:api|zugangs|privater?)[ _.-]?schl(?:ü|ue)ssel` +
			`|wachtwoord|(?:api|toegangs|geheime|priv[eé])[ _.-]?sleutel|inloggegevens)` + assigned,
		keywords: []string{"passwort", "passwört", "passwoert", "kennw", "geheim", "zugangs", "schlüssel", "schluessel", "wachtwoord", "sleutel", "inloggegevens"},
		valid:    looksLikeCredential,
		overlap:  true,
	},
	{
		// French, Spanish, Portuguese, Italian: "clé", "clave", "chave" and
		// "chiave" are any key, so only a credential's.
		id: "credential-assignment",
		regex: `(?i)(?:mots?[ _]de[ _]passe|jetons?|identifiants|cl(?:é|ef)s?[ _.-](?:d['’]?[ _]?)?(?:api|secr[èe]te|priv[ée]e|acc[èe]s)` +
			`|contrase(?:ñ|n)as?|credenciales|claves?[ _.-](?:de[ _.-])?(?:api|acceso|secreta|privada)` +
			`|senhas?|segredos?|credenciais|chaves?[ _.-](?:de[ _.-])?(?:api|acesso|secreta|privada)` +
			`|parola[ _.-]d['’]ordine|segret[oi]|credenziali|chiav[ei][ _.-](?:di[ _.-])?(?:api|accesso|segreta|privata))` + assigned,
		keywords: []string{"de passe", "de_passe", "jeton", "identifiants", "clé", "clef", "contrase", "credenciales", "clave",
			"senha", "segredo", "credenciais", "chave", "parola", "segret", "credenziali", "chiav"},
		valid:   looksLikeCredential,
		overlap: true,
	},
	{
		id: "credential-assignment", // Polish, Turkish, Vietnamese
		regex: `(?i)(?:has(?:ł|l)(?:o|a|em)|sekret|klucz[ _.-](?:api|prywatny|dost(?:ę|e)pu)|(?:tajny|prywatny)[ _.-]klucz|po(?:ś|s)wiadczenia` +
			`|[şs][iİı]fre(?:si)?|parola(?:s[ıi])?|gizli[ _.-]anahtar|(?:api|eri[şs]im|özel)[ _.-]?anahtar(?:[ıi])?|belirte[çc]|kimlik[ _.-]bilgileri` +
			`|m(?:ậ|a)t[ _]?kh(?:ẩ|a)u|bí[ _]?mật|kh(?:óa|oá)[ _](?:api|bí[ _]mật|riêng)|mã[ _]thông[ _]báo)` + assigned,
		keywords: []string{"hasło", "hasła", "hasłem", "haslo", "hasla", "haslem", "sekret", "klucz", "poświadczenia", "poswiadczenia",
			"şifre", "sifre", "parola", "anahtar", "belirte", "kimlik", "mật", "mat khau", "mat_khau", "matkhau", "khóa", "khoá", "mã thông báo", "mã_thông_báo"},
		valid:   looksLikeCredential,
		overlap: true,
	},
	{
		id: "credential-assignment", // Russian, Ukrainian
		regex: `(?i)(?:парол(?:ь|я|ем|и)|секрет|токен|ключ[ _.-](?:api|доступа|доступу)|(?:api|секретн[ыи]й|закрытый|закритий|приватн[ыи]й)[ _.-]?ключ` +
			`|уч[её]тные[ _.-]данные|облікові[ _.-]дані)` + assigned,
		keywords: []string{"парол", "секрет", "токен", "ключ", "учетн", "учётн", "облікові"},
		valid:    looksLikeCredential,
		overlap:  true,
	},
	{
		// Chinese (simplified, then traditional), Japanese, Korean. 암호
		// is also a cipher, but 암호화 (encryption) runs on past it.
		id: "credential-assignment",
		regex: `(?i)(?:密码|口令|密钥|秘钥|私钥|令牌|凭证|凭据|秘密|密碼|密鑰|金鑰|私鑰|權杖|憑證|憑據` +
			`|パスワード|パスフレーズ|暗証番号|秘密鍵|シークレット|トークン|認証情報|(?:api|アクセス)[ _.-]?キー` +
			`|비밀번호|패스워드|암호|비밀(?:[ _]?키)?|토큰|(?:api|액세스|개인)[ _.-]?키|자격[ _]?증명)` + assigned,
		keywords: []string{"密码", "口令", "密钥", "秘钥", "私钥", "令牌", "凭证", "凭据", "秘密", "密碼", "密鑰", "金鑰", "私鑰", "權杖", "憑證", "憑據",
			"パスワード", "パスフレーズ", "暗証番号", "シークレット", "トークン", "認証情報", "キー", "비밀", "패스워드", "암호", "토큰", "키", "자격"},
		valid:   looksLikeCredential,
		overlap: true,
	},
}
