package hooks

import "testing"

// What each host would read as a variable in a path lore writes.
func TestExpanded(t *testing.T) {
	for _, c := range []struct {
		v    VarSyntax
		s    string
		want bool
	}{
		{DollarVars, "/home/a/bin/lore", false},
		{DollarVars, "/opt/$HOME/lore", true},
		{DollarVars, "/opt/${X}/lore", true},
		{DollarVars, "/opt/$1/lore", true},
		{DollarVars, "/opt/cost$/lore", false}, // Gemini's pattern needs a name after the $
		{DollarVars, "/opt/a$-b/lore", false},
		{BraceVars, "/opt/$HOME/lore", false},
		{BraceVars, "/opt/${env:X}/lore", true},
		{NoVars, "/opt/${X}/$Y", false},
	} {
		if got := c.v.Expanded(c.s); got != c.want {
			t.Errorf("%v.Expanded(%q) = %v, want %v", c.v, c.s, got, c.want)
		}
	}
}
