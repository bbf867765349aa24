package status

import (
	"strings"
	"testing"

	"lore/record"
)

// realDiff is git diff --no-color -U0 of the store across two commits (a
// new failure, decision and pattern; record texts shortened), then a
// revised decision appended to a shard, a change to config.toml and a
// .gitattributes added.
const realDiff = `diff --git a/.lore/failures/2026-11/main-b375941-mg40dref.jsonl b/.lore/failures/2026-11/main-b375941-mg40dref.jsonl
new file mode 100644
index 0000000..bf40a56
--- /dev/null
+++ b/.lore/failures/2026-11/main-b375941-mg40dref.jsonl
@@ -0,0 +1 @@
+{"v":1,"id":"fail-d00hh1nq1m81r77tr","kind":"failure","ts":"2026-11-22T13:48:07.384651653Z","created":"2026-11-22T13:48:07.384651653Z","text":"A damaged index segment crashed readers","author":"Seed maintainers <m@example.com>","branch":"main","commit":"b375941db609418e7ea3f6bf32efe320110fed76","error_type":"IndexOutOfRange","tool":"go test -fuzz"}
diff --git a/.lore/journal/2026-11/main-b375941-dan3rtkf.jsonl b/.lore/journal/2026-11/main-b375941-dan3rtkf.jsonl
new file mode 100644
index 0000000..14cd2ae
--- /dev/null
+++ b/.lore/journal/2026-11/main-b375941-dan3rtkf.jsonl
@@ -0,0 +1 @@
+{"v":1,"id":"dec-vsj9nvt31m81qwgt8","kind":"decision","ts":"2026-11-22T13:42:16.136242553Z","created":"2026-11-22T13:42:16.136242553Z","text":"Keep the official MCP Go SDK","author":"Seed maintainers <m@example.com>","branch":"main","commit":"b375941db609418e7ea3f6bf32efe320110fed76","rationale":"Replacing it would mean tracking the protocol by hand"}
diff --git a/.lore/patterns/2026-11/main-b375941-jdxkp7pf.toml b/.lore/patterns/2026-11/main-b375941-jdxkp7pf.toml
new file mode 100644
index 0000000..84469fe
--- /dev/null
+++ b/.lore/patterns/2026-11/main-b375941-jdxkp7pf.toml
@@ -0,0 +1,14 @@
+
+[[pattern]]
+v = 1
+id = "pat-65bhx22e1m81r77v7"
+kind = "pattern"
+ts = 2026-11-22T13:48:07.399490312Z
+created = 2026-11-22T13:48:07.399490312Z
+text = "A binary format's readers need a fuzz test even when every accessor claims to check its bounds"
+author = "Seed maintainers <m@example.com>"
+branch = "main"
+commit = "b375941db609418e7ea3f6bf32efe320110fed76"
+context = "index segments are read from .lore/.local and trusted by framing only"
+solution = "Fuzz by patching a valid encoding past its header"
+confidence = 0.7
diff --git a/.lore/journal/2026-11/main-31cd22f-k2j4h5g6.jsonl b/.lore/journal/2026-11/main-31cd22f-k2j4h5g6.jsonl
index 14cd2ae..2bd30aa 100644
--- a/.lore/journal/2026-11/main-31cd22f-k2j4h5g6.jsonl
+++ b/.lore/journal/2026-11/main-31cd22f-k2j4h5g6.jsonl
@@ -1,0 +2 @@
+{"v":1,"id":"dec-vsj9nvt31m81qwgt8","kind":"decision","ts":"2026-11-23T09:00:00Z","created":"2026-11-22T13:42:16.136242553Z","text":"Keep the official MCP Go SDK","status":"abandoned"}
\ No newline at end of file
diff --git a/.lore/config.toml b/.lore/config.toml
index fd2a01d..2132d7f 100644
--- a/.lore/config.toml
+++ b/.lore/config.toml
@@ -14 +14,2 @@ min_relevance = 1.1
-# Days after which a record's recency weight has halved.
+# Days after which a record's recency bonus has halved: a new record gets a
+# little more weight than an old one, which keeps most of it (see --explain).
diff --git a/.lore/.gitattributes b/.lore/.gitattributes
new file mode 100644
--- /dev/null
+++ b/.lore/.gitattributes
@@ -0,0 +1 @@
+*.jsonl merge=union
`

// Whatever git diff prints (a store's shards hold what anyone pushed), the
// counts are never negative, hold the untracked records plus what the diff
// added, and count at most one record version per added line and one
// removed per removed line, none at all if no shard (a .jsonl or .toml
// file) is named. Untracked records only ever keep a removed version from
// counting (one put back).
func FuzzDiffCounts(f *testing.F) {
	if c := diffCounts(nil, realDiff); c[record.Decision] == nil || tallyOf(c[record.Decision]) != (tally{New: 1, Revised: 1}) ||
		c[record.Failure] == nil || tallyOf(c[record.Failure]) != (tally{New: 1}) || c[record.Pattern] == nil || tallyOf(c[record.Pattern]) != (tally{New: 1}) {
		f.Fatalf("the seed diff counts %v, want a new and a revised decision, a new failure and a new pattern", c)
	}
	f.Add(realDiff)
	f.Add(realDiff[:len(realDiff)/3])
	f.Add(strings.ReplaceAll(realDiff, "+++ b/", "+++ "))
	f.Add("+++ b/x.jsonl\n+{\"v\":1\n+++ \"b/.lore/journal/\\303\\251.jsonl\"\n+{}\n-{\"v\":1}\n+++ /dev/null\n+[[pattern]]\n")
	f.Add("+" + strings.Repeat("+", 3) + "\n+\n+++ b/a.toml\n+[[decision]]\n+[[decision]]\n+v = 1\n")
	f.Add(deleted(shardA, v1, other) + changed(shardB, []string{v2}, []string{tomb}))
	f.Add(deleted(shardP, pattern) + created(shardB, v1, v1))
	also := shardRecords("a.jsonl", []byte(line("dec-vsj9nvt31m81qwgt8", "untracked, as the seed's decision")+
		`{"v":1,"id":"ho-aaaaaaaa","kind":"handoff","ts":"2026-11-22T13:48:07Z","created":"2026-11-22T13:48:07Z","text":"a"}`+"\n"+
		`{"v":1,"id":"ho-aaaaaaaa","kind":"handoff","ts":"2026-11-23T13:48:07Z","created":"2026-11-22T13:48:07Z","text":"b"}`+"\n"))
	if len(also) != 3 {
		f.Fatalf("the untracked records parse as %d, want 3", len(also))
	}
	f.Fuzz(func(t *testing.T, out string) {
		c := diffCounts(nil, out)
		added, removed, addedLines, removedLines := 0, 0, 0, 0
		for _, l := range strings.Split(out, "\n") {
			switch {
			case !strings.Contains(out, ".jsonl") && !strings.Contains(out, ".toml"):
			case strings.HasPrefix(l, "+"):
				addedLines++
			case strings.HasPrefix(l, "-"):
				removedLines++
			}
		}
		for k, kc := range c {
			if kc == nil || kc.New < 0 || kc.Revised < 0 || kc.Edited < 0 || kc.Removed < 0 || k == "" {
				t.Fatalf("count for %q: %+v", k, kc)
			}
			added += kc.New + kc.Revised + kc.Edited
			removed += kc.Removed
			// Each record behind the counts is listed once, and only
			// those: one per version counted at most, one at least.
			versions, ids := kc.New+kc.Revised+kc.Edited+kc.Removed, map[string]bool{}
			for _, ch := range kc.Records {
				if ids[ch.ID] || ch.Rec == nil || ch.Rec.Kind != k {
					t.Fatalf("%s: record %s listed twice, or without its version", k, ch.ID)
				}
				ids[ch.ID] = true
			}
			if len(kc.Records) > versions || versions > 0 && len(kc.Records) == 0 {
				t.Fatalf("%s: %d records behind %d versions", k, len(kc.Records), versions)
			}
		}
		if added > addedLines || removed > removedLines {
			t.Fatalf("%d record versions counted added from %d lines added to shards, %d removed from %d lines removed", added, addedLines, removed, removedLines)
		}

		sum := diffCounts(also, out)
		alone := diffCounts(also)
		for _, k := range []record.Kind{record.Decision, record.Pattern, record.Failure, record.Handoff, record.Observation} {
			want := tallyOf(alone[k])
			if v := c[k]; v != nil {
				want.New, want.Revised, want.Edited = want.New+v.New, want.Revised+v.Revised, want.Edited+v.Edited
			}
			got := tallyOf(sum[k])
			if without := c[k]; without == nil && got.Removed > 0 || without != nil && got.Removed > without.Removed {
				t.Fatalf("%s: %d removed with untracked records, more than without (%+v)", k, got.Removed, without)
			}
			want.Removed = got.Removed
			if got != want {
				t.Fatalf("%s: counted %+v with untracked records, want %+v", k, got, want)
			}
		}
		if len(sum) > len(c)+len(also) {
			t.Fatalf("kinds %v from %v and %v", sum, c, also)
		}
		// A diff followed by its reverse leaves nothing to count.
		back, ok := reverse(out)
		if !ok {
			return
		}
		if back := diffCounts(nil, out, back); len(back) != 0 {
			for k, kc := range back {
				if tallyOf(kc) != (tally{}) {
					t.Fatalf("a diff and its reverse count %s %+v", k, *kc)
				}
			}
		}
	})
}

// reverse is the diff that undoes out: its added lines removed and its
// removed lines added back, each hunk's counts swapped and a file created
// named as deleted (and the other way round). It reads out as diffVersions
// does; ok is false where out has a line whose reverse would read
// otherwise (a header inside a hunk, or a line outside every hunk that
// would become one: "+-- " to "--- ").
func reverse(out string) (_ string, ok bool) {
	ls := strings.Split(out, "\n")
	inMinus, inPlus := 0, 0
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		header := strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ")
		switch {
		case inMinus > 0 && strings.HasPrefix(l, "-"):
			inMinus--
			ls[i] = "+" + l[1:]
		case inPlus > 0 && strings.HasPrefix(l, "+"):
			inPlus--
			ls[i] = "-" + l[1:]
		case strings.HasPrefix(l, "\\"):
		case strings.HasPrefix(l, "@@ "):
			if inMinus, inPlus = hunkLines(l); inMinus+inPlus > 0 {
				f := strings.Fields(l)
				f[1], f[2] = "-"+f[2][1:], "+"+f[1][1:]
				ls[i] = strings.Join(f, " ")
			}
		case header && inMinus+inPlus > 0:
			return "", false
		case strings.HasPrefix(l, "--- "):
			if i+1 < len(ls) && strings.HasPrefix(ls[i+1], "+++ ") {
				from, to := l[4:], ls[i+1][4:]
				switch {
				case from == "/dev/null" && to != "/dev/null":
					ls[i], ls[i+1] = "--- a/"+strings.TrimPrefix(to, "b/"), "+++ /dev/null"
				case to == "/dev/null" && from != "/dev/null":
					ls[i], ls[i+1] = "--- /dev/null", "+++ b/"+strings.TrimPrefix(from, "a/")
				}
				i++
			}
		case l == "+++ /dev/null":
			return "", false // apart from its "--- ": the file is named by one reverse may have swapped
		case header, strings.HasPrefix(l, "diff "):
			inMinus, inPlus = 0, 0
		case strings.HasPrefix(l, "+-- "), strings.HasPrefix(l, "-++ "):
			return "", false
		case strings.HasPrefix(l, "+"):
			ls[i] = "-" + l[1:]
		case strings.HasPrefix(l, "-"):
			ls[i] = "+" + l[1:]
		}
	}
	return strings.Join(ls, "\n"), true
}
