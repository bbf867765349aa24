package inject

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"lore/record"
	"lore/store"
)

// Seen remembers which records a session has already been shown whole, and
// which version of each, so a later prompt does not repeat them but does
// bring a version revised since (a teammate's, pulled mid-session). It lives in .lore/.local/sessions/
// (gitignored), one small file per session, appended with single writes so
// concurrent hooks never corrupt it; only the maxSessions most recently
// active sessions' files are kept (store.PruneOldest).
type Seen struct {
	path string
	ids  map[string]int64 // ID → the version shown (its time, UnixNano); 0: any
	// since and author say which records the session itself wrote (Own).
	since  time.Time
	author func() string
}

const (
	maxSessions   = 64
	maxSeenPerSes = 2000
)

// OpenSeen reads the session's seen IDs. An empty session ID disables it.
func OpenSeen(storeDir, sessionID string) *Seen {
	s := &Seen{ids: map[string]int64{}}
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
		line := strings.TrimSpace(sc.Text())
		if t, ok := strings.CutPrefix(line, sinceMark); ok {
			if ns, err := strconv.ParseInt(t, 10, 64); err == nil {
				s.since = time.Unix(0, ns)
			}
		} else if id, version, _ := strings.Cut(line, " "); id != "" {
			// A line without a version (lore before 2026-11-24) stands
			// for any.
			s.ids[id], _ = strconv.ParseInt(version, 10, 64)
		}
	}
	return s
}

// sinceMark starts the line that says when the session's context began
// (Reset): no record ID starts with it.
const sinceMark = "@since "

// Own counts as seen, besides, what this checkout's author recorded or
// revised since the session's context began (Reset): the agent that
// captured a record has it in its context, and showing it back on the next
// prompt is noise. author is asked only once a record that new is a
// candidate (it may read git's config). A session whose start lore did not
// see has no such records.
func (s *Seen) Own(author func() string) { s.author = sync.OnceValue(author) }

// Has reports whether the session has r as it is now: shown whole earlier,
// or recorded by the session's own author since it began (Own).
func (s *Seen) Has(r *record.Record) bool {
	if v, ok := s.ids[r.ID]; ok && (v == 0 || v == r.Time.UnixNano()) {
		return true
	}
	if s.author == nil || s.since.IsZero() || r.Time.Before(s.since) || r.Author == "" {
		return false
	}
	return r.Author == s.author()
}

// Revised reports whether the session was shown an earlier version of r.
func (s *Seen) Revised(r *record.Record) bool {
	v, ok := s.ids[r.ID]
	return ok && v != 0 && v != r.Time.UnixNano()
}

// Add records recs as shown whole, in the version shown. Errors are
// ignored: forgetting what was shown only means showing it again.
func (s *Seen) Add(recs []*record.Record) {
	if s.path == "" || len(recs) == 0 || len(s.ids) >= maxSeenPerSes {
		return
	}
	lines := make([]string, len(recs))
	for i, r := range recs {
		s.ids[r.ID] = r.Time.UnixNano()
		lines[i] = r.ID + " " + strconv.FormatInt(s.ids[r.ID], 10)
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
	text := strings.Join(lines, "\n") + "\n"
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
// no longer has them in context, nor what it recorded before. The context
// begins again at now.
func (s *Seen) Reset(now time.Time) {
	s.ids, s.since = map[string]int64{}, now
	if s.path == "" {
		return
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, store.DirMode); err != nil {
		return
	}
	_, statErr := os.Stat(s.path)
	_ = store.WriteAtomic(s.path, []byte(sinceMark+strconv.FormatInt(now.UnixNano(), 10)+"\n"))
	if os.IsNotExist(statErr) {
		store.PruneOldest(dir, maxSessions)
	}
}
