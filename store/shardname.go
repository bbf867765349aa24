package store

import (
	"crypto/rand"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"lore/record"
)

// A checkout appends each kind's records to a shard of its own, named for
// its branch and HEAD, and remembers in .local the shards it wrote to.

// shardPath names the file this writer appends kind k's records to. The
// name carries the branch, HEAD and a random part, and a new one is made
// whenever HEAD moves, so in the normal flow each shard is added by exactly
// one commit and never changed after: merges, rebases, cherry-picks and
// pulls only ever add files, and cannot conflict even when a forge ignores
// .gitattributes. The current name is remembered in .local; if that file
// has gone (a checkout removed it), a fresh name is made rather than the
// old one re-created with other content. Called with the store locked.
func (s *Store) shardPath(k record.Kind, o record.Origin, now time.Time) (string, error) {
	head := "unborn"
	if len(o.Commit) >= 7 {
		head = o.Commit[:7]
	}
	branch := slug(o.Branch)
	switch {
	case o.Branch == "":
		branch = "detached"
	case branch == "":
		// A name with no ASCII letter or digit (功能/用户登录) gets one of
		// its own, not "detached", which it is not; file names stay
		// ASCII, which git prints unquoted.
		branch = fmt.Sprintf("branch-%08x", crc32.ChecksumIEEE([]byte(o.Branch)))
	}
	prefix := fmt.Sprintf("%s/%s/%s-%s-", k.Dir(), now.Format(MonthDir), branch, head)
	cur := CurrentShard(s, k)
	if cur != "" && strings.HasPrefix(cur, prefix) {
		if _, err := os.Stat(filepath.Join(s.Dir, cur)); err == nil {
			return filepath.Join(s.Dir, cur), nil
		}
	}
	rel := prefix + randomName(8) + k.Ext()
	if cur != "" {
		rememberEarlier(s, cur)
	}
	if err := WriteAtomic(shardState(s, k), []byte(rel+"\n")); err != nil {
		return "", err
	}
	return filepath.Join(s.Dir, rel), nil
}

// maxEarlierShards bounds the shards a checkout remembers having written
// to before its current ones: a shard HEAD moved away from before it was
// committed is one the resume view still counts as not committed.
const maxEarlierShards = 32

// earlierShards is where a checkout lists the shards it wrote before its
// current ones, newest last.
func earlierShards(s *Store) string { return filepath.Join(s.Dir, LocalDir, "shards-earlier") }

// rememberEarlier adds rel to the earlier shards. Called with the store
// locked; a list that cannot be written only costs the resume view its
// count of that shard.
func rememberEarlier(s *Store, rel string) {
	b, _ := os.ReadFile(earlierShards(s))
	list := slices.DeleteFunc(strings.Fields(string(b)), func(e string) bool { return e == rel })
	list = append(list, rel)
	list = list[max(0, len(list)-maxEarlierShards):]
	_ = WriteAtomic(earlierShards(s), []byte(strings.Join(list, "\n")+"\n"))
}

func shardState(s *Store, k record.Kind) string {
	return filepath.Join(s.Dir, LocalDir, "shard-"+string(k))
}

// CurrentShard names (relative to the store) the shard this checkout
// appends kind k's records to, or "" if it has none yet.
func CurrentShard(s *Store, k record.Kind) string {
	b, err := os.ReadFile(shardState(s, k))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// WrittenShards names (relative to the store at dir) the shards this
// checkout has written to: the ones it appends to, one per kind that has
// one, and up to maxEarlierShards it appended to before HEAD last moved,
// which a commit of the code alone leaves behind uncommitted.
func WrittenShards(dir string) []string {
	s := &Store{Dir: dir}
	var out []string
	for _, k := range record.AllKinds() {
		if rel := CurrentShard(s, k); rel != "" {
			out = append(out, rel)
		}
	}
	b, _ := os.ReadFile(earlierShards(s))
	for _, rel := range strings.Fields(string(b)) {
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// randomName is n characters of the ID alphabet.
func randomName(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("lore: crypto/rand failed: %v", err))
	}
	for i := range b {
		b[i] = record.IDAlphabet[b[i]&31]
	}
	return string(b)
}

// slug is s as a file name part: lower-case ASCII letters and digits,
// runs of anything else one dash, at most 32 bytes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if ok {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 32 {
			break
		}
	}
	return strings.TrimRight(b.String(), "-")
}
