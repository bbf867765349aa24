package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/record"
)

func TestAppendScrubsEveryField(t *testing.T) {
	s := newTestStore(t)
	r, _ := s.New(record.Handoff, "rotated ghp_R7xk2Lq9ZpT4mWv8Nc3Hy6Jd1Fs5Gb0Ea2Ui", []string{"ops"})
	r.Next = []string{"use password=hunter22 once"}
	r.Blocked = []string{"<private>ask Bob for the key</private>waiting on Bob"}
	if err := s.Append(r); err != nil {
		t.Fatal(err)
	}
	files, _ := s.Files(record.Handoff)
	data := readAll(t, files)
	for _, leak := range []string{"ghp_aBcD", "hunter22", "ask Bob"} {
		if strings.Contains(data, leak) {
			t.Errorf("%q reached the store: %s", leak, data)
		}
	}
	if len(s.Redacted) != 3 {
		t.Errorf("findings: %v", s.Redacted)
	}
	r2, _ := s.New(record.Observation, "<private>only private</private>", nil)
	if err := s.Append(r2); err != ErrAllPrivate {
		t.Errorf("an all-private record: %v, want ErrEmptyText", err)
	}
}

func newTestStore(t *testing.T) *Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.SetOrigin(record.Origin{Author: "T", Branch: "main", Commit: strings.Repeat("a", 40)})
	return s
}

func readAll(t *testing.T, files []string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// A version over MaxRecordBytes is refused whole: nothing is written.
func TestAppendRefusesAnOversizedRecord(t *testing.T) {
	s := newTestStore(t)
	r, _ := s.New(record.Handoff, "a pasted log", nil)
	r.Next = []string{strings.Repeat("x", MaxRecordBytes)}
	var tooLarge *TooLargeError
	if err := s.Append(r); !errors.As(err, &tooLarge) || tooLarge.Size <= MaxRecordBytes {
		t.Fatalf("Append of a %d-byte next step: %v", MaxRecordBytes, err)
	}
	if files, _ := s.Files(record.Handoff); len(files) != 0 {
		t.Errorf("an oversized record left shards: %v", files)
	}
	r.Next = []string{strings.Repeat("x", MaxRecordBytes/2)}
	if err := s.Append(r); err != nil {
		t.Errorf("a record of half the limit: %v", err)
	}
}

// A transaction that fails takes back what it appended, newest first: a
// shard that held records goes back to its size, one it created goes. A
// full disk that refused inbox promote's second write left the first, and
// the retry made the record twice.
func TestFailedTransactionTakesBackItsAppends(t *testing.T) {
	s := newTestStore(t)
	add(t, s, record.Decision, "a decision already there", nil)
	before := readShards(t, s)
	filesBefore, _ := s.Files()
	refused := errors.New("the second write failed")
	err := s.Transact(func(tx *Tx) error {
		d, _ := s.New(record.Decision, "made in the transaction", nil)
		if err := tx.Append(d); err != nil {
			return err
		}
		o, _ := s.New(record.Observation, "in a shard the transaction creates", nil)
		if err := tx.Append(o); err != nil {
			return err
		}
		return refused
	})
	if err != refused {
		t.Fatalf("Transact: %v", err)
	}
	filesAfter, _ := s.Files()
	if got := readShards(t, s); got != before || !slices.Equal(filesAfter, filesBefore) {
		t.Errorf("after a failed transaction the shards are\n%v\n%s\nnot\n%v\n%s", filesAfter, got, filesBefore, before)
	}
	// One that succeeds keeps both.
	if err := s.Transact(func(tx *Tx) error {
		d, _ := s.New(record.Decision, "kept", nil)
		return tx.Append(d)
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readShards(t, s), "kept") {
		t.Error("a transaction that succeeded lost its append")
	}
}

// A shard is named for its branch; a branch named without ASCII letters
// or digits is not called detached.
func TestShardNamesItsBranch(t *testing.T) {
	s := newTestStore(t)
	for _, c := range []struct{ branch, prefix string }{
		{"feature/login", "feature-login-abc1234-"},
		{"", "detached-abc1234-"},
		{"功能/用户登录", "branch-"},
	} {
		p, err := s.shardPath(record.Decision, record.Origin{Branch: c.branch, Commit: "abc1234def"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if name := filepath.Base(p); !strings.HasPrefix(name, c.prefix) || strings.HasPrefix(name, "branch--") {
			t.Errorf("branch %q: shard %s, want %s…", c.branch, name, c.prefix)
		}
	}
}

func TestNormalizeTagsSplitsAtEveryComma(t *testing.T) {
	got := NormalizeTags([]string{"数据库，性能、缓存", "DB, db ,,api"})
	if want := []string{"数据库", "性能", "缓存", "db", "api"}; !slices.Equal(got, want) {
		t.Errorf("NormalizeTags = %q, want %q", got, want)
	}
}
