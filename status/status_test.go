package status

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"lore/record"
)

// version is one version of a decision as a shard holds it.
func version(id, ts, created, text string) string {
	return `{"v":1,"id":"` + id + `","kind":"decision","ts":"` + ts + `","created":"` + created + `","text":"` + text + `"}`
}

const (
	t1 = "2026-11-22T13:48:07Z"
	t2 = "2026-11-23T09:00:00Z"
	t3 = "2026-11-24T10:00:00Z"
)

var (
	v1      = version("dec-aaaaaaaa", t1, t1, "Team decision")
	v1Typo  = version("dec-aaaaaaaa", t1, t1, "Team decisoin")
	v2      = version("dec-aaaaaaaa", t2, t1, "Team decision, revised")
	tomb    = `{"v":1,"id":"dec-aaaaaaaa","kind":"decision","ts":"` + t3 + `","created":"` + t1 + `","status":"purged"}`
	other   = version("dec-bbbbbbbb", t1, t1, "Another decision")
	pattern = "\n[[pattern]]\nv = 1\nid = \"pat-cccccccc\"\nkind = \"pattern\"\nts = 2026-11-22T13:48:07Z\ncreated = 2026-11-22T13:48:07Z\ntext = \"A pattern\"\nconfidence = 0.7\n"
)

// deleted is git diff -U0's output for a shard deleted whole (git rm, rm,
// or a revert of the commit that added it): its name is on the "--- a/"
// line, the "+++" line says /dev/null.
func deleted(path string, lines ...string) string {
	return "diff --git a/" + path + " b/" + path + "\ndeleted file mode 100644\nindex 14cd2ae..0000000\n--- a/" + path + "\n+++ /dev/null\n" +
		hunk(count(lines), 0) + prefixed("-", lines)
}

// created is git diff -U0's output for a new shard.
func created(path string, lines ...string) string {
	return "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\nindex 0000000..14cd2ae\n--- /dev/null\n+++ b/" + path + "\n" +
		hunk(0, count(lines)) + prefixed("+", lines)
}

// changed is git diff -U0's output for a shard whose lines minus became
// plus.
func changed(path string, minus, plus []string) string {
	return "diff --git a/" + path + " b/" + path + "\nindex 14cd2ae..2bd30aa 100644\n--- a/" + path + "\n+++ b/" + path + "\n" +
		hunk(count(minus), count(plus)) + prefixed("-", minus) + prefixed("+", plus)
}

func hunk(minus, plus int) string {
	n := func(count int) string {
		if count == 1 {
			return "1"
		}
		return strconv.Itoa(min(count, 1)) + "," + strconv.Itoa(count)
	}
	return "@@ -" + n(minus) + " +" + n(plus) + " @@\n"
}

// count is how many lines of a file lines are (a pattern is several).
func count(lines []string) int {
	return strings.Count(prefixed("", lines), "\n")
}

func prefixed(p string, lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		for _, part := range strings.Split(strings.TrimSuffix(l, "\n"), "\n") {
			b.WriteString(p + part + "\n")
		}
	}
	return b.String()
}

const (
	shardA = ".lore/journal/2026-11/main-a.jsonl"
	shardB = ".lore/journal/2026-11/main-b.jsonl"
	shardP = ".lore/patterns/2026-11/main-a.toml"
)

// diffCounts counts the versions the diffs remove and nothing puts back:
// a shard deleted whole or a line taken out, and not a version edited, a
// revision, a shard moved or a purge (every version removed, a newer one,
// the tombstone, added).
func TestDiffCountsRemoved(t *testing.T) {
	for _, c := range []struct {
		name      string
		untracked []string // lines of untracked shards
		diffs     []string
		want      Counts
	}{
		{"a pushed capture reverted: its shard deleted", nil,
			[]string{deleted(shardA, v1)},
			Counts{record.Decision: {Removed: 1}}},
		{"a pattern shard deleted", nil,
			[]string{deleted(shardP, pattern)},
			Counts{record.Pattern: {Removed: 1}}},
		{"a line edited out", nil,
			[]string{changed(shardA, []string{other}, nil)},
			Counts{record.Decision: {Removed: 1}}},
		{"a shard of two records deleted", nil,
			[]string{deleted(shardA, v1, other)},
			Counts{record.Decision: {Removed: 2}}},
		{"a revision appended", nil,
			[]string{changed(shardA, nil, []string{v2})},
			Counts{record.Decision: {Revised: 1}}},
		{"a version replaced by hand with a newer one of its record", nil,
			[]string{changed(shardA, []string{v1}, []string{v2})},
			Counts{record.Decision: {Revised: 1}}},
		{"a revision reverted: the newer version goes", nil,
			[]string{changed(shardA, []string{v2}, nil)},
			Counts{record.Decision: {Removed: 1}}},
		{"a version edited by hand", nil,
			[]string{changed(shardA, []string{v1}, []string{v1Typo})},
			Counts{record.Decision: {Edited: 1}}},
		{"a shard moved (git mv without rename detection)", nil,
			[]string{deleted(shardA, v1) + created(shardB, v1)},
			Counts{}},
		{"a shard moved where git does not track it yet", []string{v1},
			[]string{deleted(shardA, v1)},
			Counts{record.Decision: {New: 1}}},
		{"a purge: every version removed, the tombstone appended", []string{tomb},
			[]string{deleted(shardA, v1) + changed(shardB, []string{v2}, nil)},
			Counts{record.Decision: {Revised: 1}}},
		{"removed, then put back", nil,
			[]string{deleted(shardA, v1), created(shardA, v1)},
			Counts{}},
		{"added, then removed", nil,
			[]string{created(shardA, v1), deleted(shardA, v1)},
			Counts{}},
		{"two copies added, both removed", nil,
			[]string{created(shardA, v1, v1), deleted(shardA, v1, v1)},
			Counts{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var untracked []*record.Record
			if len(c.untracked) > 0 {
				untracked = shardRecords("u.jsonl", []byte(strings.Join(c.untracked, "\n")+"\n"))
				if len(untracked) != len(c.untracked) {
					t.Fatalf("untracked records parse as %d, want %d", len(untracked), len(c.untracked))
				}
			}
			got := diffCounts(untracked, c.diffs...)
			if !equal(got, c.want) {
				t.Errorf("counted %s, want %s", show(got), show(c.want))
			}
		})
	}
}

// A line of a record that starts like a file's header ("++ " added shows
// as "+++ ") is the record's, as the hunk's header says.
func TestDiffVersionsReadsHunks(t *testing.T) {
	p := strings.Replace(pattern, "confidence = 0.7\n", "solution = \"\"\"\n++ counters go up\n-- and never down\"\"\"\nconfidence = 0.7\n", 1)
	if recs := shardRecords("a.toml", []byte(p)); len(recs) != 1 {
		t.Fatalf("the pattern parses as %d records", len(recs))
	}
	for _, c := range []struct {
		diff string
		want Counts
	}{
		{created(shardP, p), Counts{record.Pattern: {New: 1}}},
		{deleted(shardP, p), Counts{record.Pattern: {Removed: 1}}},
	} {
		if got := diffCounts(nil, c.diff); !equal(got, c.want) {
			t.Errorf("counted %s, want %s in\n%s", show(got), show(c.want), c.diff)
		}
	}
}

func TestHunkLines(t *testing.T) {
	for _, c := range []struct {
		header      string
		minus, plus int
	}{
		{"@@ -1 +0,0 @@", 1, 0},
		{"@@ -12,0 +13,25 @@ confidence = 0.7", 0, 25},
		{"@@ -3,2 +3 @@", 2, 1},
		{"@@ -3,x +3 @@", 0, 1},
		{"@@ -3 @@", 0, 0},
		{"@@@ -1 -1 +1 @@@", 0, 0},
	} {
		if minus, plus := hunkLines(c.header); minus != c.minus || plus != c.plus {
			t.Errorf("%q: %d and %d lines, want %d and %d", c.header, minus, plus, c.minus, c.plus)
		}
	}
}

func equal(a, b Counts) bool {
	for _, k := range record.AllKinds() {
		if tallyOf(a[k]) != tallyOf(b[k]) {
			return false
		}
	}
	return true
}

// tally is a kind's counts without the records behind them: comparable.
type tally struct{ New, Revised, Edited, Removed int }

func tallyOf(kc *KindCount) tally {
	if kc == nil {
		return tally{}
	}
	return tally{kc.New, kc.Revised, kc.Edited, kc.Removed}
}

func show(c Counts) string {
	var b strings.Builder
	for _, k := range record.AllKinds() {
		if kc := c[k]; kc != nil {
			fmt.Fprintf(&b, "%s %+v; ", k, tallyOf(kc))
		}
	}
	if b.Len() == 0 {
		return "nothing"
	}
	return b.String()
}

// The records behind the counts: once each, newest first, named by the
// newest version added (a record created and revised is new, with the
// revision's headline); one whose versions are only removed is named by
// the version removed.
func TestRecordsBehindCounts(t *testing.T) {
	c := diffCounts(nil, created(shardA, v1, other), created(shardB, v2))
	kc := c[record.Decision]
	if kc == nil || len(kc.Records) != 2 {
		t.Fatalf("counted %s with records %v, want 2 records", show(c), kc)
	}
	if a := kc.Records[0]; a.ID != "dec-aaaaaaaa" || a.Change != ChangeNew || a.Title != "Team decision, revised" {
		t.Errorf("first record %+v, want dec-aaaaaaaa new, as revised", *a)
	}
	if b := kc.Records[1]; b.ID != "dec-bbbbbbbb" || b.Change != ChangeNew || b.Title != "Another decision" {
		t.Errorf("second record %+v, want dec-bbbbbbbb new", *b)
	}
	c = diffCounts(nil, deleted(shardA, other), created(shardB, v2))
	kc = c[record.Decision]
	if kc == nil || len(kc.Records) != 2 || kc.Records[0].Change != ChangeRevised || kc.Records[1].Change != ChangeRemoved || kc.Records[1].Title != "Another decision" {
		t.Errorf("a revision and a removal: %s %v", show(c), kc)
	}
	if c := diffCounts(nil, changed(shardB, []string{v2}, []string{tomb})); c[record.Decision] == nil || c[record.Decision].Records[0].Title != "(purged)" {
		t.Errorf("a purge's tombstone: %v", c[record.Decision])
	}
}
