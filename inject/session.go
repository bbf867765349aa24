package inject

import (
	"bufio"
	"bytes"
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
// bring a version revised since (a teammate's, pulled mid-session). It
// lives in .lore/.local/sessions/ (gitignored), one small file per
// session, appended with single writes so
// concurrent hooks never corrupt it; only the maxSessions most recently
// active sessions' files are kept (store.PruneOldest).
type Seen struct {
	path string
	ids  map[string]int64 // ID → the version shown (its time, UnixNano); 0: any
	// When the session's context began (Reset), and how long its
	// transcript was then: what the session itself recorded since is in
	// its transcript after that offset (Own).
	since      time.Time
	offset     int64
	transcript func() []byte
	found      []*record.Record // the session's own, found in its transcript (Found)
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
			at, offset, _ := strings.Cut(t, " ")
			if ns, err := strconv.ParseInt(at, 10, 64); err == nil {
				s.since = time.Unix(0, ns)
				s.offset, _ = strconv.ParseInt(offset, 10, 64)
			}
		} else if id, version, _ := strings.Cut(line, " "); id != "" {
			// A line without a version (lore before 2026-11-24) stands
			// for any.
			s.ids[id], _ = strconv.ParseInt(version, 10, 64)
		}
	}
	return s
}

// sinceMark starts the line that says when the session's context began,
// and the length of its transcript then (Reset): no record ID starts with
// it.
const sinceMark = "@since "

// maxOwnTranscript bounds what is read of a transcript to find the records
// a session recorded: its newest part, past the context's start.
const maxOwnTranscript = 16 << 20

// Own counts as seen, besides, a record recorded or revised since the
// session's context began (Reset) whose ID the session's transcript names
// after that point: the agent that captured it read its ID back (lore
// prints it), and showing it again on the next prompt is noise. Another
// session's record, or one typed in a terminal, is not in this transcript
// and is shown. The transcript is read only once a record that new is a
// candidate, and only its part since the context began; a host that sends
// no transcript path gets no such records.
func (s *Seen) Own(transcriptPath string) {
	if transcriptPath == "" {
		return
	}
	s.transcript = sync.OnceValue(func() []byte { return readTail(transcriptPath, s.offset, maxOwnTranscript) })
}

// readTail is path's bytes from offset on,
// at most the last limit of them; nothing when it cannot be read or is
// shorter than offset (another file).
func readTail(path string, offset, limit int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < offset {
		return nil
	}
	from := max(offset, fi.Size()-limit)
	b := make([]byte, fi.Size()-from)
	n, _ := f.ReadAt(b, from)
	return b[:n]
}

// Has reports whether the session has r as it is now: shown whole earlier,
// or recorded in it since its context began (Own).
func (s *Seen) Has(r *record.Record) bool {
	if v, ok := s.ids[r.ID]; ok && (v == 0 || v == r.Time.UnixNano()) {
		return true
	}
	if s.transcript == nil || s.since.IsZero() || r.Time.Before(s.since) {
		return false
	}
	if !bytes.Contains(s.transcript(), []byte(r.Short())) {
		return false
	}
	s.found = append(s.found, r)
	return true
}

// Found are the records Has found to be the session's own: noted as seen
// (Add), a later prompt does not read the transcript for them again.
func (s *Seen) Found() []*record.Record { return s.found }

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
// begins again at now, with the transcript at transcriptPath as long as it
// is now.
func (s *Seen) Reset(now time.Time, transcriptPath string) {
	s.ids, s.since, s.offset = map[string]int64{}, now, 0
	if fi, err := os.Stat(transcriptPath); transcriptPath != "" && err == nil {
		s.offset = fi.Size()
	}
	if s.path == "" {
		return
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, store.DirMode); err != nil {
		return
	}
	_, statErr := os.Stat(s.path)
	_ = store.WriteAtomic(s.path, []byte(sinceMark+strconv.FormatInt(now.UnixNano(), 10)+" "+strconv.FormatInt(s.offset, 10)+"\n"))
	if os.IsNotExist(statErr) {
		store.PruneOldest(dir, maxSessions)
	}
}
