package inject

import "testing"

// The tokenizer runs on every prompt (and every record of an index build):
// all-ASCII text, nearly all of it, must take no extra pass for the rest.
func BenchmarkTokens(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"ascii", "Why does formatBytes in utils/format.ts crash when DEPLOY_ENV is unset on the deploy pipeline?"},
		{"accents", "Le déploiement échoue: la configuration du café Müller est invalide après la mise à jour"},
		{"chinese", "请帮我检查一下支付接口为什么在高并发的时候会超时，数据库连接池是不是太小了"},
		{"japanese", "データベースの接続プールが枯渇してタイムアウトが発生しています。ＡＰＩキーも確認して"},
		{"thai", "ตั้งค่าฐานข้อมูลให้ใช้พูลการเชื่อมต่อเพื่อลดเวลาแฝง"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Keywords(c.text)
			}
		})
	}
}
