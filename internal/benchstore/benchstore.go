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

// Generate writes n records of all kinds into store dir (a .lore
// directory), perShard records to a shard, about one in ten revised.
func Generate(dir string, n, perShard int, seed uint64) error {
	if _, err := store.Init(dir); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	span := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Sub(start)
	files := map[string]*strings.Builder{}
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
			last = append(last, r)
			if len(last) > 200 {
				last = last[1:]
			}
		}
		path := filepath.Join(dir, r.Kind.Dir(), ts.Format("2006-01"), fmt.Sprintf("main-%07x-bench%d%s", shard, shard%7, r.Kind.Ext()))
		line, err := r.Marshal()
		if err != nil {
			return err
		}
		b := files[path]
		if b == nil {
			b = &strings.Builder{}
			files[path] = b
		}
		b.Write(line)
	}
	for path, b := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	// Like a checkout made a while ago: files seconds old are re-read by
	// the cache's racy-timestamp guard, which is not what a user sees.
	old := time.Now().Add(-time.Hour)
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
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
