package record

import (
	"slices"
	"strings"
	"testing"
)

// Two branches that each append a table to one patterns file conflict as
// git lines up the lines the tables share: the markers fall inside one
// table. ResolveAdditions keeps both tables whole.
func TestResolveAdditionsKeepsBothTables(t *testing.T) {
	base := goodTable("a", "base") + "\n"
	shared := "[[pattern]]\nv = 1\n"
	side := func(c, text string) string { return strings.TrimPrefix(goodTable(c, text), shared) }
	for name, c := range map[string]struct {
		data string
		want []string // texts read from the resolved file; nil: not resolved
	}{
		"two appends": {base + shared + "<<<<<<< HEAD\n" + side("b", "ours") + "=======\n" + side("c", "theirs") + ">>>>>>> a\n",
			[]string{"base", "ours", "theirs"}},
		"diff3, CRLF": {strings.ReplaceAll(base+shared+"<<<<<<< HEAD\n"+side("b", "ours")+"||||||| base\n=======\n"+side("c", "theirs")+"\n"+goodTable("d", "more")+">>>>>>> a\n", "\n", "\r\n"),
			[]string{"base", "ours", "theirs", "more"}},
		"one side adds nothing new": {base + "<<<<<<< HEAD\n" + goodTable("b", "ours") + "=======\n" + goodTable("b", "ours") + goodTable("c", "theirs") + ">>>>>>> a\n",
			[]string{"base", "ours", "theirs"}},
		"one table edited on both sides": {goodTable("a", "base") + "<<<<<<< HEAD\nsolution = \"x\"\n=======\nsolution = \"y\"\n>>>>>>> a\n", nil},
		"a table changed on one side":    {"<<<<<<< HEAD\n" + goodTable("a", "base") + "=======\n" + goodTable("a", "changed") + ">>>>>>> a\n", nil},
		"a side that does not read":      {base + shared + "<<<<<<< HEAD\n" + side("b", "ours") + "=======\n" + side("c", "theirs") + "validations = \"many\"\n>>>>>>> a\n", nil},
		"no conflict":                    {base, nil},
	} {
		t.Run(name, func(t *testing.T) {
			out, ok := ResolveAdditions("f.toml", []byte(c.data))
			if ok != (c.want != nil) {
				t.Fatalf("resolved %v, want %v:\n%s", ok, c.want != nil, out)
			}
			if !ok {
				return
			}
			if mayHaveMarkers(out) {
				t.Errorf("markers left:\n%s", out)
			}
			recs, warns, err := ParseTOML("f.toml", out)
			if err != nil || len(warns) > 0 {
				t.Fatalf("%v %v in\n%s", err, warns, out)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Text)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("read %q, want %q from\n%s", got, c.want, out)
			}
		})
	}
}
