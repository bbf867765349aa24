// Package receipts owns what lore remembers, on this machine only, of the
// records it injected into agent sessions and of which ones the agents
// used. Each session has one small JSONL file under .lore/.local/receipts/
// (gitignored: receipts never leave the machine and never enter git);
// lore stats reads them all.
//
// The files stay bounded: a session's file takes no more appends past
// maxFileBytes, and only the newest maxFiles session files are kept.
package receipts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"lore/record"
	"lore/secrets"
	"lore/store"
)

// Events in a receipt.
const (
	Start  = "start"  // the session-start view was injected
	Prompt = "prompt" // a prompt got a block, or nothing (Prompt set)
	Used   = "used"   // records the agent used, decided at Stop or SessionEnd
	Asked  = "asked"  // lore asked the agent for a handoff
)

// Event is one line of a session's receipt.
type Event struct {
	Time    time.Time `json:"t"`
	Session string    `json:"session"`
	Event   string    `json:"event"`
	Full    []string  `json:"full,omitempty"`    // records shown whole
	Summary []string  `json:"summary,omitempty"` // records shown as a one-line summary
	Chars   int       `json:"chars,omitempty"`   // size of the block
	// Prompt is the start of a prompt that got nothing, for lore stats.
	Prompt string `json:"prompt,omitempty"`
	// Marks are, for each record shown, hashes of its distinctive phrases
	// (see Shingles), so that Stop can tell a restatement without reading
	// the store.
	Marks map[string][]uint32 `json:"marks,omitempty"`
	// Uses says, for each record used, how the agent used it: "named" (its
	// ID in the agent's text), "shown" (it ran lore show on it) or
	// "restated" (its distinctive phrases in the agent's text).
	Uses map[string]string `json:"uses,omitempty"`
}

// Bounds on the receipts a machine keeps.
const (
	maxFileBytes = 512 << 10
	maxFiles     = 500
	promptChars  = 120
)

// Dir is where a store's receipts live.
func Dir(storeDir string) string { return filepath.Join(storeDir, ".local", "receipts") }

// Log is one session's receipt.
type Log struct {
	path    string
	session string
}

// Open returns the receipt of session in the store at storeDir. An empty
// session ID gives a log that records nothing.
func Open(storeDir, session string) *Log {
	if session == "" {
		return &Log{}
	}
	return &Log{path: filepath.Join(Dir(storeDir), store.SessionKey(session)+".jsonl"), session: session}
}

// Append adds ev as one line, written with a single write so concurrent
// hooks never interleave. Errors are ignored: a lost receipt costs a
// statistic, never the user's prompt.
func (l *Log) Append(ev Event) {
	if l.path == "" {
		return
	}
	ev.Session = l.session
	ev.Prompt = clipPrompt(ev.Prompt)
	line, err := json.Marshal(ev)
	if err != nil {
		return
	}
	info, statErr := os.Stat(l.path)
	if statErr == nil && info.Size()+int64(len(line)) > maxFileBytes {
		return
	}
	if os.IsNotExist(statErr) {
		if err := os.MkdirAll(filepath.Dir(l.path), store.DirMode); err != nil {
			return
		}
		defer store.PruneOldest(filepath.Dir(l.path), maxFiles)
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, store.FileMode)
	if err != nil {
		return
	}
	_, _ = f.Write(append(line, '\n'))
	f.Close()
}

// clipPrompt is the start of a prompt as a receipt keeps it: scrubbed of
// secrets, as everything lore writes under .lore/ is (a pasted token is
// the kind of prompt that gets nothing, and so is kept), then cut. The
// scrub reads a little past the cut, so a credential that starts before it
// is found whole.
func clipPrompt(p string) string {
	p, _ = secrets.Scrub(record.Prefix(p, 8*promptChars))
	return record.Prefix(p, promptChars)
}

// Path is the receipt's file ("" for a log that records nothing).
func (l *Log) Path() string { return l.path }

// Events reads the session's receipt; unreadable lines are skipped.
func (l *Log) Events() []Event {
	if l.path == "" {
		return nil
	}
	evs, _ := readFile(l.path)
	return evs
}

// Shown is, over a session's events, every record injected with its marks,
// and the records already found used.
func Shown(evs []Event) (marks map[string][]uint32, used map[string]bool) {
	marks, used = map[string][]uint32{}, map[string]bool{}
	for _, ev := range evs {
		for _, id := range append(append([]string{}, ev.Full...), ev.Summary...) {
			if _, ok := marks[id]; !ok {
				marks[id] = nil
			}
		}
		for id, m := range ev.Marks {
			marks[id] = m
		}
		for id := range ev.Uses {
			used[id] = true
		}
	}
	return marks, used
}

// A Warning is a receipt line lore stats could not read.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg) }

// ReadAll reads every session's receipt in the store, oldest event first,
// with a warning for each line it could not read.
func ReadAll(storeDir string) ([]Event, []Warning) {
	files, _ := filepath.Glob(filepath.Join(Dir(storeDir), "*.jsonl"))
	var all []Event
	var warns []Warning
	for _, f := range files {
		evs, ws := readFile(f)
		all, warns = append(all, evs...), append(warns, ws...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	return all, warns
}

func readFile(path string) ([]Event, []Warning) {
	f, err := os.Open(path)
	if err != nil {
		return nil, []Warning{{path, 0, err.Error()}}
	}
	defer f.Close()
	var evs []Event
	var warns []Warning
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxFileBytes)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Event == "" {
			warns = append(warns, Warning{path, n, "not a receipt line"})
			continue
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		warns = append(warns, Warning{path, 0, err.Error()})
	}
	return evs, warns
}
