package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/record"
)

// v is a version for analyse: name, validations, what it says (text and
// status), and the versions its writer saw (by name).
type v struct {
	name, text, status string
	valid              int
	saw                []string
	anchor             string // a path, when anchored
}

func history(vs []v) ([]*record.Record, func(w, x *record.Record) bool) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var h []*record.Record
	byName := map[*record.Record]v{}
	names := map[string]*record.Record{}
	for i, x := range vs {
		r := &record.Record{V: 1, ID: "pat-aaaaaaaa000000000", Kind: record.Pattern, Time: t0.Add(time.Duration(i) * time.Second),
			Created: t0, Text: x.text, Status: x.status, Validations: x.valid, Author: x.name, Source: record.Pos{File: x.name, Line: 1}}
		if x.anchor != "" {
			r.Anchors = []record.Anchor{{Path: x.anchor}}
		}
		h = append(h, r)
		byName[r] = x
		names[x.name] = r
	}
	return h, func(w, x *record.Record) bool { return slices.Contains(byName[x].saw, byName[w].name) }
}

func TestAnalyseCountsValidationsMadeApart(t *testing.T) {
	for _, c := range []struct {
		name       string
		vs         []v
		made, lost int
		unseen     []int
		joins      []int
	}{
		{"day 9: each validated once apart", []v{{name: "ada", text: "p"}, {name: "bob", text: "p", valid: 1, saw: []string{"ada"}}, {name: "carol", text: "p", valid: 1, saw: []string{"ada"}}},
			2, 1, []int{1}, nil},
		{"one after the other", []v{{name: "ada", text: "p"}, {name: "bob", text: "p", valid: 1, saw: []string{"ada"}}, {name: "carol", text: "p", valid: 2, saw: []string{"ada", "bob"}}},
			2, 0, nil, nil},
		{"re-anchored after a validation: no validation of its own", []v{{name: "ada", text: "p"}, {name: "bob", text: "p", valid: 1, saw: []string{"ada"}}, {name: "carol", text: "p", valid: 1, anchor: "x.go", saw: []string{"ada", "bob"}}},
			1, 0, nil, nil},
		{"four lines, one shared start", []v{{name: "ada", text: "p"},
			{name: "bob1", text: "p", valid: 1, saw: []string{"ada"}},
			{name: "dave", text: "p", valid: 2, saw: []string{"ada", "bob1"}},
			{name: "bob2", text: "p", valid: 2, saw: []string{"ada", "bob1"}},
			{name: "carol", text: "p", valid: 1, saw: []string{"ada"}}},
			4, 3, []int{1, 2, 3}, nil},
		{"deprecated after the merge, still one short", []v{{name: "ada", text: "p"}, {name: "bob", text: "p", valid: 1, saw: []string{"ada"}}, {name: "carol", text: "p", valid: 1, saw: []string{"ada"}},
			{name: "erin", text: "p", status: record.StatusDeprecated, valid: 1, saw: []string{"ada", "bob", "carol"}}},
			2, 1, nil, nil},
		{"doctor --fix's version counts both", []v{{name: "ada", text: "p"}, {name: "bob", text: "p", valid: 1, saw: []string{"ada"}}, {name: "carol", text: "p", valid: 1, saw: []string{"ada"}},
			{name: "fix", text: "p", valid: 2, saw: []string{"ada", "bob", "carol"}}},
			2, 0, nil, []int{3}},
	} {
		h, saw := history(c.vs)
		a := analyse(h, saw)
		a.findOverridden()
		var unseen, joins []int
		for i := range h {
			if a.unseen[i] {
				unseen = append(unseen, i)
			}
			if a.joins[i] {
				joins = append(joins, i)
			}
		}
		if a.made != c.made || a.lost() != c.lost || !slices.Equal(unseen, c.unseen) || !slices.Equal(joins, c.joins) {
			t.Errorf("%s: made %d lost %d unseen %v joins %v, want %d %d %v %v", c.name, a.made, a.lost(), unseen, joins, c.made, c.lost, c.unseen, c.joins)
		}
		if slices.Contains(a.overridden, true) {
			t.Errorf("%s: overridden %v: validations alone override nothing", c.name, a.overridden)
		}
	}
}

func TestAnalyseFindsWhatTheVersionInForceOverrides(t *testing.T) {
	for _, c := range []struct {
		name       string
		vs         []v
		overridden []int
	}{
		{"day 9: revised apart", []v{{name: "ada", text: "t"}, {name: "bob", text: "bob's", saw: []string{"ada"}}, {name: "carol", text: "carol's", saw: []string{"ada"}}},
			[]int{1}},
		{"one after the other", []v{{name: "ada", text: "t"}, {name: "bob", text: "bob's", saw: []string{"ada"}}, {name: "carol", text: "carol's", saw: []string{"ada", "bob"}}},
			nil},
		{"the newest of a line is named, for the whole line", []v{{name: "ada", text: "t"},
			{name: "bob1", text: "bob's", saw: []string{"ada"}},
			{name: "bob2", text: "bob's", anchor: "x.go", saw: []string{"ada", "bob1"}},
			{name: "carol", text: "carol's", saw: []string{"ada"}}},
			[]int{2}},
		{"a line that only re-anchored loses no words", []v{{name: "ada", text: "t"}, {name: "bob", text: "t", anchor: "x.go", saw: []string{"ada"}}, {name: "carol", text: "carol's", saw: []string{"ada"}}},
			nil},
		{"both said the same", []v{{name: "ada", text: "t"}, {name: "bob", text: "t", status: record.StatusDeprecated, saw: []string{"ada"}}, {name: "carol", text: "t", status: record.StatusDeprecated, saw: []string{"ada"}}},
			nil},
		{"deprecated apart from a validation", []v{{name: "ada", text: "t"}, {name: "bob", text: "t", status: record.StatusDeprecated, saw: []string{"ada"}}, {name: "carol", text: "t", valid: 1, saw: []string{"ada"}}},
			[]int{1}},
		{"settled by a version made after both", []v{{name: "ada", text: "t"}, {name: "bob", text: "bob's", saw: []string{"ada"}}, {name: "carol", text: "carol's", saw: []string{"ada"}},
			{name: "ada2", text: "both", saw: []string{"ada", "bob", "carol"}}},
			nil},
	} {
		h, saw := history(c.vs)
		a := analyse(h, saw)
		a.findOverridden()
		var got []int
		for i := range h {
			if a.overridden[i] {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, c.overridden) {
			t.Errorf("%s: overridden %v, want %v", c.name, got, c.overridden)
		}
	}
}

// The stamps answer what they can; the rest is a lookup in git.
func TestSawOracleRule(t *testing.T) {
	s := newTestStore(t)
	o := s.newSawOracle()
	c1, c2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	ver := func(author, branch, commit, file string) *record.Record {
		return &record.Record{Author: author, Branch: branch, Commit: commit, Source: record.Pos{File: file, Line: 1}}
	}
	for _, c := range []struct {
		name       string
		w, v       *record.Record
		saw, known bool
		key        treeKey
	}{
		{"one shard", ver("A", "x", c1, ".lore/journal/a.jsonl"), ver("B", "y", c2, ".lore/journal/a.jsonl"), true, true, treeKey{}},
		{"one person, one branch", ver("A", "x", c1, ".lore/journal/a.jsonl"), ver("A", "x", c2, ".lore/journal/b.jsonl"), true, true, treeKey{}},
		{"one person, one HEAD, a branch made before committing", ver("A", "x", c1, ".lore/journal/a.jsonl"), ver("A", "y", c1, ".lore/journal/b.jsonl"), true, true, treeKey{}},
		{"two people at one HEAD", ver("A", "x", c1, ".lore/journal/a.jsonl"), ver("B", "y", c1, ".lore/journal/b.jsonl"), false, true, treeKey{}},
		{"two people at two HEADs: git", ver("A", "x", c1, ".lore/journal/a.jsonl"), ver("B", "y", c2, ".lore/journal/b.jsonl"), false, false, treeKey{c2, "journal/a.jsonl"}},
		{"an abbreviated commit: unknown", ver("A", "x", c1, ".lore/journal/a.jsonl"), ver("B", "y", "2222222", ".lore/journal/b.jsonl"), false, false, treeKey{}},
		{"no commit (unborn): unknown", ver("A", "x", "", ".lore/journal/a.jsonl"), ver("B", "y", "", ".lore/journal/b.jsonl"), false, false, treeKey{}},
	} {
		saw, known, key := o.rule(c.w, c.v)
		if saw != c.saw || known != c.known || key != c.key {
			t.Errorf("%s: saw %v known %v key %+v, want %v %v %+v", c.name, saw, known, key, c.saw, c.known, c.key)
		}
	}
}

// Whether a commit's tree holds a shard, asked of git in one process; a
// commit not in the repository, or no repository, tells nothing.
func TestSawOracleAsksGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=T", "-c", "user.email=t@x", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	dir := filepath.Join(root, ".lore")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Getenv = os.Getenv
	os.MkdirAll(filepath.Join(dir, "journal", "2026-01"), 0o755)
	os.WriteFile(filepath.Join(dir, "journal", "2026-01", "bob.jsonl"), []byte("x\n"), 0o644)
	git("add", "-A")
	git("commit", "-qm", "bob")
	withBob := git("rev-parse", "HEAD")
	git("checkout", "-q", "--orphan", "other")
	git("rm", "-rqf", ".")
	git("commit", "-q", "--allow-empty", "-m", "other")
	without := git("rev-parse", "HEAD")
	git("checkout", "-q", "-f", withBob)
	bob := &record.Record{Author: "Bob", Commit: strings.Repeat("0", 40), Source: record.Pos{File: ".lore/journal/2026-01/bob.jsonl"}}
	carol := func(commit string) *record.Record {
		return &record.Record{Author: "Carol", Commit: commit, Source: record.Pos{File: ".lore/journal/2026-01/carol.jsonl"}}
	}
	o := s.newSawOracle()
	for _, c := range []string{withBob, without, strings.Repeat("f", 40)} {
		o.need(bob, carol(c))
	}
	o.ask(context.Background())
	for _, c := range []struct {
		commit     string
		saw, known bool
	}{{withBob, true, true}, {without, false, true}, {strings.Repeat("f", 40), false, false}} {
		if saw, known := o.saw(bob, carol(c.commit)); saw != c.saw || known != c.known {
			t.Errorf("commit %.7s: saw %v known %v, want %v %v", c.commit, saw, known, c.saw, c.known)
		}
	}
	// Outside a repository nothing is known.
	outside := newTestStore(t)
	outside.Getenv = func(k string) string {
		if k == "GIT_CEILING_DIRECTORIES" {
			return filepath.Dir(outside.Dir)
		}
		return os.Getenv(k)
	}
	o = outside.newSawOracle()
	o.need(bob, carol(withBob))
	o.ask(context.Background())
	if saw, known := o.saw(bob, carol(withBob)); saw || known {
		t.Errorf("outside a repository: saw %v known %v, want nothing known", saw, known)
	}
}

// Doctor finds a pattern validated apart whether it can tell so from what
// it kept of each version (shards of one origin each, as checkouts write
// them) or must read the versions again (a shard a hand mixed): Bob and
// Carol validated at one HEAD, so no git is needed.
func TestDoctorValidatedApart(t *testing.T) {
	table := func(id, author, branch string, ts, valid int, conf string) string {
		return fmt.Sprintf("[[pattern]]\nv = 1\nid = %q\nts = 2026-01-01T00:00:0%dZ\ncreated = 2026-01-01T00:00:00Z\ntext = \"golden files\"\n"+
			"author = %q\nbranch = %q\ncommit = %q\nconfidence = %s\nvalidations = %d\n\n", id, ts, author, branch, strings.Repeat("b", 40), conf, valid)
	}
	const id = "pat-aaaaaaaa000000000"
	ada, bob, carol := table(id, "Ada", "main", 0, 0, "0.55"), table(id, "Bob", "bob/x", 1, 1, "0.65"), table(id, "Carol", "carol/y", 2, 1, "0.65")
	for _, c := range []struct {
		name   string
		shards map[string]string
	}{
		{"one origin a shard", map[string]string{"ada.toml": ada, "bob.toml": bob, "carol.toml": carol}},
		{"a shard of two origins", map[string]string{"ada.toml": ada, "bob.toml": bob, "carol.toml": table("pat-cccccccc000000000", "Dave", "dave", 5, 0, "0.5") + carol}},
	} {
		s := newTestStore(t)
		dir := filepath.Join(s.Dir, "patterns", "2026-01")
		os.MkdirAll(dir, 0o755)
		for name, text := range c.shards {
			os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
		probs, err := s.Doctor(false)
		if err != nil {
			t.Fatal(err)
		}
		var got []Problem
		for _, p := range probs {
			if strings.HasSuffix(p.Kind, "-apart") {
				got = append(got, p)
			}
		}
		if len(got) != 1 || got[0].Kind != "validated-apart" || !strings.HasSuffix(got[0].File, "carol.toml") ||
			!strings.Contains(got[0].Message, "(Bob on bob/x; Carol on carol/y): the version in force counts 1 validation of the 2 made, confidence 0.65 (0.75 with all)") {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
}

// A record changed only by one author on one branch is no candidate,
// whatever the commits its shards name; two authors, or two branches, are.
func TestApartCandidates(t *testing.T) {
	one := func(author, branch string, ts int) shardCheck {
		return shardCheck{versions: []seenVersion{{id: "dec-aaaaaaaa000000000", time: time.Unix(int64(ts), 0)}},
			origin: origin{author, branch, ""}, oneOrigin: true}
	}
	for _, c := range []struct {
		name    string
		results []shardCheck
		want    int
	}{
		{"one author, one branch", []shardCheck{one("A", "main", 1), one("A", "main", 2)}, 0},
		{"two authors", []shardCheck{one("A", "main", 1), one("B", "main", 2)}, 1},
		{"two branches", []shardCheck{one("A", "main", 1), one("A", "x", 2)}, 1},
		{"a shard of two origins", []shardCheck{one("A", "main", 1), {versions: []seenVersion{{id: "dec-aaaaaaaa000000000", time: time.Unix(2, 0)}}}}, 1},
		{"one shard", []shardCheck{{versions: []seenVersion{{id: "dec-aaaaaaaa000000000", time: time.Unix(1, 0)}, {id: "dec-aaaaaaaa000000000", time: time.Unix(2, 0)}}}}, 0},
	} {
		if got := len(apartCandidates(c.results, versionsByID(c.results))); got != c.want {
			t.Errorf("%s: %d candidates, want %d", c.name, got, c.want)
		}
	}
}
