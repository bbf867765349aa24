package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// SessionKey names an agent session's files under .local/ (what it was
// shown, how it started, its receipt): a hash, as session IDs come from
// the host and may hold anything.
func SessionKey(session string) string {
	sum := sha256.Sum256([]byte(session))
	return hex.EncodeToString(sum[:12])
}

// PruneOldest keeps the keep most recently modified files in dir and
// removes the rest: for the per-session files under .local/, which must
// stay bounded. Errors are ignored; a file left behind is removed next time.
func PruneOldest(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			files = append(files, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
	for _, f := range files[min(keep, len(files)):] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
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
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return true
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
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
