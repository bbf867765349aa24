package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SessionKey names an agent session's files under .local/ (what it was
// shown, how it started, its receipt): a hash, as session IDs come from
// the host and may hold anything.
func SessionKey(session string) string {
	sum := sha256.Sum256([]byte(session))
	return hex.EncodeToString(sum[:12])
}

// PruneOldest keeps the files of the keep most recently active sessions in
// dir and removes the rest: for the per-session files under .local/, which
// must stay bounded. A session's files share the name before its first dot
// (its SessionKey: the seen list, .start, .answered), and a session is as
// recent as its newest file; pruning file by file dropped a live session's
// .start, written once, while other sessions came and went. Errors are
// ignored; a file left behind is removed next time.
func PruneOldest(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	newest := map[string]int64{} // by session key
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			k := sessionOf(e.Name())
			newest[k] = max(newest[k], info.ModTime().UnixNano())
		}
	}
	if len(newest) <= keep {
		return
	}
	keys := make([]string, 0, len(newest))
	for k := range newest {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return newest[keys[i]] > newest[keys[j]] })
	drop := map[string]bool{}
	for _, k := range keys[keep:] {
		drop[k] = true
	}
	for _, e := range entries {
		if drop[sessionOf(e.Name())] {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func sessionOf(name string) string {
	k, _, _ := strings.Cut(name, ".")
	return k
}

// FirstToAnswer reports whether this process is the first to answer what
// key names, among processes answering it within window of each other: the
// one that is not gets false. It serves hooks an agent runs twice for one
// event (lore's installed at both user and project scope, or a plugin in
// both places): each run would answer alike, and the agent would read
// every block twice. path holds the last answer's time and key, under a
// lock; any error answers true, as a block shown twice costs less than one
// never shown.
func FirstToAnswer(path, key string, now time.Time, window time.Duration) bool {
	if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
		return true
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return true
	}
	defer f.Close()
	if lockFile(f) != nil {
		return true
	}
	defer func() { _ = unlockFile(f) }()
	var last int64
	var lastKey string
	if b, err := io.ReadAll(io.LimitReader(f, 256)); err == nil {
		_, _ = fmt.Sscanf(string(b), "%d %s", &last, &lastKey)
	}
	if lastKey == key && now.Sub(time.Unix(0, last)).Abs() < window {
		return false
	}
	line := fmt.Sprintf("%d %s\n", now.UnixNano(), key)
	if _, err := f.WriteAt([]byte(line), 0); err == nil {
		_ = f.Truncate(int64(len(line)))
	}
	return true
}
