package inject

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"lore/store"
)

// Seen remembers which records a session has already been shown whole, so
// a later prompt does not repeat them. It lives in .lore/.local/sessions/
// (gitignored), one small file per session, appended with single writes so
// concurrent hooks never corrupt it; only the maxSessions most recently
// active sessions' files are kept (store.PruneOldest).
type Seen struct {
	path string
	ids  map[string]bool
}

const (
	maxSessions   = 64
	maxSeenPerSes = 2000
)

// OpenSeen reads the session's seen IDs. An empty session ID disables it.
func OpenSeen(storeDir, sessionID string) *Seen {
	s := &Seen{ids: map[string]bool{}}
	if sessionID == "" {
		return s
	}
	s.path = filepath.Join(storeDir, ".local", "sessions", store.SessionKey(sessionID))
	f, err := os.Open(s.path)
	if err != nil {
		return s
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			s.ids[id] = true
		}
	}
	return s
}

// Has reports whether id was shown whole earlier in the session.
func (s *Seen) Has(id string) bool { return s.ids[id] }

// Add records ids as shown whole. Errors are ignored: forgetting what was
// shown only means showing it again.
func (s *Seen) Add(ids []string) {
	if s.path == "" || len(ids) == 0 || len(s.ids) >= maxSeenPerSes {
		return
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, store.DirMode); err != nil {
		return
	}
	fi, statErr := os.Stat(s.path)
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, store.FileMode)
	if err != nil {
		return
	}
	text := strings.Join(ids, "\n") + "\n"
	// A write cut short (a crash) leaves a line without its newline: the
	// first ID must not be joined to it.
	last := []byte{'\n'}
	if statErr == nil && fi.Size() > 0 {
		_, _ = f.ReadAt(last, fi.Size()-1)
	}
	if last[0] != '\n' {
		text = "\n" + text
	}
	_, _ = f.WriteString(text)
	f.Close()
	if os.IsNotExist(statErr) {
		store.PruneOldest(dir, maxSessions)
	}
}

// Reset forgets the session's shown records: after a compaction the agent
// no longer has them in context.
func (s *Seen) Reset() {
	if s.path != "" {
		_ = os.Remove(s.path)
	}
	s.ids = map[string]bool{}
}
