package anchor

import "testing"

// A clause names files by their base names, unless a move keeps the base
// name: then by the directories from where they part ("maps.go moved to
// maps.go" told an agent nothing).
func TestShortNames(t *testing.T) {
	for _, c := range []struct{ was, now, a, b string }{
		{"internal/billing/invoice.go", "internal/billing/invoice.go", "invoice.go", "invoice.go"},
		{"internal/billing/invoice.go", "internal/billing/bill.go", "invoice.go", "bill.go"},
		{"common/maps/maps.go", "common/hmaps/maps.go", "maps/maps.go", "hmaps/maps.go"},
		{"internal/warpc/gen/main.go", "internal/warpc/genjs/main.go", "gen/main.go", "genjs/main.go"},
		{"pages/linux/st.md", "st.md", "pages/linux/st.md", "st.md"},
	} {
		if a, b := shortNames(c.was, c.now); a != c.a || b != c.b {
			t.Errorf("shortNames(%q, %q) = %q, %q; want %q, %q", c.was, c.now, a, b, c.a, c.b)
		}
	}
}
