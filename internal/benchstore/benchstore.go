// Package benchstore generates large, realistic stores for benchmarks:
// mixed kinds, revisions, sharded as real captures would be.
package benchstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/record"
	"lore/store"
)

var (
	subjects = []string{"deploy", "migration", "invoice", "webhook", "cache", "session", "login", "parser", "scheduler",
		"export", "upload", "search", "billing", "email", "queue", "worker", "build", "lockfile", "docker", "config",
		"metrics", "logging", "router", "template", "payment", "report", "backup", "index", "timezone", "currency"}
	verbs = []string{"fails", "times out", "crashes", "leaks memory", "retries", "is slow", "breaks", "hangs",
		"returns 500", "drops events", "double-counts", "skips", "rejects", "stalls"}
	contexts = []string{"on CI", "in staging", "after the upgrade", "under load", "at midnight UTC", "on ARM runners",
		"with an empty cache", "in the nightly job", "for large tenants", "behind the proxy", "on cold start"}
	decisions = []string{"Use", "Prefer", "Adopt", "Drop", "Keep", "Move to", "Standardise on", "Avoid"}
	tools     = []string{"Postgres", "Redis", "SQLite", "Kafka", "NATS", "S3", "goreleaser", "pnpm", "uv", "chi",
		"slog", "OpenTelemetry", "Temporal", "cron", "Argo", "Helm", "Terraform", "Vite", "Vitest", "pytest"}
	errorTypes = []string{"NonZeroExit", "TypeError", "Timeout", "OOMKilled", "ImportError", "FlakyTest",
		"MigrationError", "LockfileMismatch", "AuthError", "PanicError"}
)

// Subjects are the words the generated records are about (their tags and
// subjects), for a caller that wants prompts or files about them.
func Subjects() []string { return append([]string(nil), subjects...) }

// Generate writes n records of all kinds into store dir (a .lore
// directory), perShard records to a shard, about one in ten revised. One
// seed gives one store, record IDs included.
func Generate(dir string, n, perShard int, seed uint64) error {
	_, err := generate(dir, n, perShard, seed, nil, 0)
	return err
}

// Stats counts what GenerateAnchored wrote: record lines (every version),
// those with anchors, and their anchors.
type Stats struct {
	Records, Anchored, Anchors int
}

// GenerateAnchored is Generate with anchors: about share of the records
// (new ones drawn at that rate; a revision keeps its original's anchors)
// get one or two anchors to files, each an element of files with its
// path, the object ID the caller had git compute for it and the commit
// checked out then (if set; copied as is). Where a file
// sets End (its line count), half the anchors get a line range inside
// it; the others name the whole file. A record prefers files whose path
// names one of its tags or its subject, as a record about the invoice
// export would be anchored to billing/invoice_export.go. The anchors are
// drawn from a random source of their own: the store is otherwise the
// one Generate writes with the same seed, line for line.
func GenerateAnchored(dir string, n, perShard int, seed uint64, files []record.Anchor, share float64) (Stats, error) {
	return generate(dir, n, perShard, seed, files, share)
}

func generate(dir string, n, perShard int, seed uint64, files []record.Anchor, share float64) (Stats, error) {
	var st Stats
	if _, err := store.Init(dir); err != nil {
		return st, err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	anchorTo := anchorer(files, share, seed)
	// IDs are drawn from a source of their own too, so that one seed
	// gives one store, IDs included, and the records' content is what it
	// was when IDs came from crypto/rand.
	ids := rand.New(rand.NewPCG(seed^0x2545f4914f6cdd1d, seed+0x9e3779b97f4a7c15))
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	span := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Sub(start)
	shards := map[string]*strings.Builder{}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	shard := 0
	var last []*record.Record
	for i := range n {
		if i%perShard == 0 {
			shard++
		}
		ts := start.Add(time.Duration(float64(span) * float64(i) / float64(n)))
		var r *record.Record
		if len(last) > 0 && rng.IntN(10) == 0 {
			prev := last[rng.IntN(len(last))]
			r = prev.Derive(ts, record.Origin{Author: prev.Author, Branch: "main", Commit: prev.Commit})
			r.Text = prev.Text + " (revised)"
		} else {
			r = newRecord(rng, pick, ts)
			r.ID = seededID(ids, r.Kind, ts)
			r.Anchors = anchorTo(r)
			last = append(last, r)
			if len(last) > 200 {
				last = last[1:]
			}
		}
		path := filepath.Join(dir, r.Kind.Dir(), ts.Format(store.MonthDir), fmt.Sprintf("main-%07x-bench%d%s", shard, shard%7, r.Kind.Ext()))
		line, err := r.Marshal()
		if err != nil {
			return st, err
		}
		st.Records++
		if len(r.Anchors) > 0 {
			st.Anchored++
			st.Anchors += len(r.Anchors)
		}
		b := shards[path]
		if b == nil {
			b = &strings.Builder{}
			shards[path] = b
		}
		b.Write(line)
	}
	for path, b := range shards {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return st, err
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return st, err
		}
	}
	// Like a checkout made a while ago: files seconds old are re-read by
	// the cache's racy-timestamp guard, which is not what a user sees.
	old := time.Now().Add(-time.Hour)
	return st, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
}

// seededID is record.NewID with its 40 random bits drawn from rng.
func seededID(rng *rand.Rand, k record.Kind, now time.Time) string {
	var sb strings.Builder
	sb.WriteString(k.Prefix())
	bits := rng.Uint64() & (1<<40 - 1)
	for i := 7; i >= 0; i-- {
		sb.WriteByte(record.IDAlphabet[(bits>>(uint(i)*5))&31])
	}
	ms := uint64(now.UnixMilli())
	for i := 8; i >= 0; i-- {
		sb.WriteByte(record.IDAlphabet[(ms>>(uint(i)*5))&31])
	}
	return sb.String()
}

// anchorer returns what anchors a new record: nothing for most, one or
// two of files for about share of them, from a random source apart from
// the records' own (so the records do not change with the anchors).
func anchorer(files []record.Anchor, share float64, seed uint64) func(*record.Record) []record.Anchor {
	if len(files) == 0 || share <= 0 {
		return func(*record.Record) []record.Anchor { return nil }
	}
	rng := rand.New(rand.NewPCG(seed^0x5bd1e9955bd1e995, seed+0x632be59bd9b4e019))
	// The files whose path names a subject, by subject.
	about := map[string][]int{}
	for _, s := range subjects {
		for i, f := range files {
			if strings.Contains(f.Path, s) {
				about[s] = append(about[s], i)
			}
		}
	}
	pickFile := func(r *record.Record) record.Anchor {
		var words []string
		words = append(words, r.Tags...)
		for _, w := range strings.Fields(r.Text) {
			if _, ok := about[strings.ToLower(w)]; ok {
				words = append(words, strings.ToLower(w))
			}
		}
		f := files[rng.IntN(len(files))]
		if rng.IntN(5) > 0 { // four in five are about the record's subject
			if idx := about[words[rng.IntN(len(words))]]; len(idx) > 0 {
				f = files[idx[rng.IntN(len(idx))]]
			}
		}
		a := record.Anchor{Path: f.Path, Blob: f.Blob, Commit: f.Commit}
		if f.End > 0 && rng.IntN(2) == 0 {
			a.Start = 1 + rng.IntN(f.End)
			a.End = min(f.End, a.Start+rng.IntN(30))
		}
		return a
	}
	return func(r *record.Record) []record.Anchor {
		if rng.Float64() >= share {
			return nil
		}
		out := []record.Anchor{pickFile(r)}
		if rng.IntN(2) == 0 {
			if b := pickFile(r); b.Path != out[0].Path {
				out = append(out, b)
			}
		}
		return out
	}
}

func newRecord(rng *rand.Rand, pick func([]string) string, ts time.Time) *record.Record {
	kinds := []record.Kind{record.Decision, record.Decision, record.Pattern, record.Failure, record.Failure, record.Handoff, record.Observation}
	k := kinds[rng.IntN(len(kinds))]
	r := &record.Record{V: 1, ID: record.NewID(k, ts), Kind: k, Time: ts, Created: ts,
		Author: "Bench <bench@example.com>", Branch: "main", Commit: fmt.Sprintf("%040x", rng.Uint64()),
		Tags: []string{pick(subjects), pick(subjects)}}
	subject := pick(subjects)
	switch k {
	case record.Decision:
		r.Text = fmt.Sprintf("%s %s for the %s", pick(decisions), pick(tools), subject)
		r.Rationale = fmt.Sprintf("the %s %s %s", pick(subjects), pick(verbs), pick(contexts))
	case record.Pattern:
		c := 0.5 + rng.Float64()/2
		r.Text = fmt.Sprintf("%s %s with %s", strings.ToUpper(subject[:1])+subject[1:], pick(verbs), pick(tools))
		r.Context, r.Solution, r.Confidence = pick(contexts), fmt.Sprintf("use %s for the %s", pick(tools), pick(subjects)), &c
	case record.Failure:
		r.ErrorType = pick(errorTypes)
		r.Text = fmt.Sprintf("%s %s %s", subject, pick(verbs), pick(contexts))
		r.Tool = "Bash"
	case record.Handoff:
		r.Text = fmt.Sprintf("Worked on the %s: %s no longer %s", subject, pick(subjects), pick(verbs))
		r.Next = []string{fmt.Sprintf("check the %s %s", pick(subjects), pick(contexts))}
	default:
		r.Text = fmt.Sprintf("the %s %s %s", subject, pick(verbs), pick(contexts))
	}
	return r
}
