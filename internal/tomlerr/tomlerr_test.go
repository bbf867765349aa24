package tomlerr

import (
	"testing"

	"github.com/BurntSushi/toml"
)

func TestWhere(t *testing.T) {
	var into struct {
		Budget int `toml:"budget"`
	}
	for _, c := range []struct {
		text      string
		line      int
		key, msg  string
		byMessage bool
	}{
		// found at line 2's newline, which the library counts as line 3
		{text: "model = \"o3\"\n[a\nb = 1\n", line: 2, msg: "expected '.' or ']' to end table name, but got '\\n' instead"},
		{text: "a = 1\nb = \nc = 2\n", line: 2, key: "b", msg: "expected value but found '\\n' instead"},
		{text: "a = 1\na = 2\n", line: 2, key: "a", msg: "Key 'a' has already been defined."},
		{text: "x = 1\n\nbudget = \"many\"\n", line: 3, key: "budget", msg: "is a string, where an integer is expected"},
	} {
		_, err := toml.Decode(c.text, &into)
		if err == nil {
			t.Fatalf("%q decoded", c.text)
		}
		line, key, msg := Where(c.text, err)
		if line != c.line || key != c.key || msg != c.msg {
			t.Errorf("%q: line %d, key %q, %q; want %d, %q, %q", c.text, line, key, msg, c.line, c.key, c.msg)
		}
	}
}
