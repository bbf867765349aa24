package inject

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"lore/gitrepo"
	"lore/kinds"
	"lore/receipts"
	"lore/record"
	"lore/store"
)

// SessionStart is what lore remembers of a session's start, to tell at its
// Stop whether the session changed the repository: HEAD and a fingerprint
// of the working tree's changes. It lives beside the session's Seen file.
type SessionStart struct {
	Time  time.Time `json:"time"`
	Head  string    `json:"head"`
	Tree  string    `json:"tree"`
	Asked bool      `json:"asked"` // lore already asked this session for a handoff
}

func startPath(storeDir, session string) string {
	return filepath.Join(storeDir, ".local", "sessions", store.SessionKey(session)+".start")
}

// RememberStart notes the repository's state as a session starts. A
// compaction or a resumed session keeps the original start: the session
// goes on.
func RememberStart(storeDir, session string, git *GitSource, now time.Time, fresh bool) {
	if session == "" {
		return
	}
	path := startPath(storeDir, session)
	if _, err := os.Stat(path); err == nil && !fresh {
		return
	}
	head, tree := repoState(git)
	saveStart(path, SessionStart{Time: now, Head: head, Tree: tree})
}

func saveStart(path string, st SessionStart) {
	b, err := json.Marshal(st)
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(path), store.DirMode)
	_ = store.WriteAtomic(path, b)
}

// repoState is HEAD and a fingerprint of the working tree's changes: the
// paths git reports as changed or untracked, with their size and mtime (so
// further edits to a file that was already modified count too). The store
// itself is left out (StartGit): recording memory is not changing the code.
func repoState(git *GitSource) (head, tree string) {
	st, err := git.Status()
	if err != nil {
		return "", ""
	}
	h := sha256.New()
	for _, c := range st.Changes {
		fmt.Fprintf(h, "%s\n", c)
		if info, err := os.Lstat(filepath.Join(git.Dir, c[3:])); err == nil {
			fmt.Fprintf(h, "%d %d\n", info.Size(), info.ModTime().UnixNano())
		}
	}
	return st.Head, hex.EncodeToString(h.Sum(nil)[:12])
}

// committedSince reports whether HEAD's history since the session's start
// holds a commit of the session's author written since (its author date:
// a rebase re-commits older work with a new committer date), other than
// merges and commits that only record memory: a pull, a rebase onto
// teammates' work, or a teammate's branch checked out moves HEAD without
// the session changing anything. With no identity to commit as, the
// session made no commit. When git cannot tell, it is taken to have.
func committedSince(ctx context.Context, git *GitSource, st SessionStart, head, author string) bool {
	_, email, _ := strings.Cut(author, " <")
	email = strings.TrimSuffix(email, ">")
	if head == "" {
		return true
	}
	if email == "" {
		return false
	}
	span := head
	if st.Head != "" {
		span = st.Head + ".." + head
	}
	args := []string{"log", "--format=%at", "--no-merges", "--fixed-strings", "--author=<" + email + ">", span, "--", "."}
	if rel, err := filepath.Rel(git.Dir, git.Store); err == nil && filepath.IsLocal(rel) {
		args = append(args, ":(exclude)"+filepath.ToSlash(rel))
	}
	out, err := gitrepo.Run(ctx, git.Getenv, git.Dir, args...)
	if err != nil {
		return true
	}
	for _, at := range strings.Fields(out) {
		if t, err := strconv.ParseInt(at, 10, 64); err == nil && t >= st.Time.Unix()-1 {
			return true
		}
	}
	return false
}

// AskHandoff is the reason lore gives an agent's first Stop when the
// session changed the repository and recorded no handoff.
const AskHandoff = `Before you stop: this session changed the repository and recorded no handoff in lore. ` +
	`Record one for the next session: lore handoff "WHAT YOU DID" --next "THE NEXT STEP" [--blocked "WHAT BLOCKS"]. ` +
	`If you made a decision worth keeping, also: lore remember "DECISION" --rationale "WHY". ` +
	`lore keeps them in .lore/, shared through git: commit it with your work. Then finish.`

// stop answers a Stop (Claude Code, Codex), AfterAgent (Gemini CLI) or
// SessionEnd: it records which injected records the agent used, then, once
// a session, asks for a handoff if the session changed the repository
// without recording one. It returns the reason to block with, or "".
func stop(ctx context.Context, hin *HookInput, s *store.Store, repoDir string) string {
	log := receipts.Open(s.Dir, hin.SessionID)
	recordUses(log, hin)
	if hin.Event == EventSessionEnd || !s.Config.Loop.AskHandoff || hin.StopHookActive || hin.SessionID == "" {
		return ""
	}
	path := startPath(s.Dir, hin.SessionID)
	data, err := os.ReadFile(path)
	if err != nil {
		return "" // no SessionStart seen (lore installed mid-session): nothing to compare with
	}
	var st SessionStart
	if json.Unmarshal(data, &st) != nil || st.Asked {
		return ""
	}
	if strings.HasSuffix(strings.TrimSpace(hin.LastMessage()), "?") {
		return "" // the agent asked the user something: the task goes on
	}
	git := StartGit(ctx, s.Getenv, repoDir, s.Dir)
	if head, tree := repoState(git); tree == st.Tree && (head == st.Head || !committedSince(ctx, git, st, head, s.Origin().Author)) {
		return "" // nothing changed, or only by others' work pulled or checked out
	}
	if handoffSince(s.Dir, st.Time) || !answersFirst(s.Dir, hin, AskHandoff) {
		return "" // a handoff was recorded, or a twin of this hook asked (counted once in lore stats)
	}
	st.Asked = true
	saveStart(path, st)
	log.Append(receipts.Event{Time: time.Now().UTC(), Event: receipts.Asked})
	return AskHandoff
}

// recordUses decides which records shown in the session the agent used,
// from its last message and the transcript, and notes the new ones.
func recordUses(log *receipts.Log, hin *HookInput) {
	evs := log.Events()
	shown, used := receipts.Shown(evs)
	for id := range used {
		delete(shown, id)
	}
	if len(shown) == 0 {
		return
	}
	act := readTranscript(log, hin)
	if msg := hin.LastMessage(); msg != "" {
		act.Texts = append(act.Texts, msg)
	}
	// Restatement needs the words stemmed, which costs: only the newest
	// restateChars of the agent's text are looked at.
	var words [][]string
	budget := restateChars
	for i := len(act.Texts) - 1; i >= 0 && budget > 0; i-- {
		t := act.Texts[i]
		if len(t) > budget {
			t = t[len(t)-budget:]
		}
		budget -= len(t)
		words = append(words, stems(t))
	}
	uses := receipts.Uses(shown, act, receipts.TextShingles(words))
	if len(uses) > 0 {
		log.Append(receipts.Event{Time: time.Now().UTC(), Event: receipts.Used, Uses: uses})
	}
}

// restateChars bounds the agent's text searched for restated records.
const restateChars = 64 << 10

// readTranscript reads the transcript on from where the session's previous
// Stop left off (remembered beside the receipt), so a long session costs
// each Stop only its latest turn.
func readTranscript(log *receipts.Log, hin *HookInput) receipts.Activity {
	if hin.TranscriptPath == "" {
		return receipts.Activity{}
	}
	mark := log.Path() + ".read"
	from, _ := strconv.ParseInt(strings.TrimSpace(readSmall(mark)), 10, 64)
	act, to := receipts.ReadTranscript(hin.TranscriptPath, from)
	if to != from {
		_ = store.WriteAtomic(mark, []byte(strconv.FormatInt(to, 10)))
	}
	return act
}

func readSmall(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// Marks are the distinctive phrases of records shown, for receipts.
func Marks(recs []*record.Record) map[string][]uint32 {
	out := map[string][]uint32{}
	for _, r := range recs {
		var fields [][]string
		for _, f := range append([]string{r.Text}, bodyFields(r)...) {
			if f != "" {
				fields = append(fields, stems(f))
			}
		}
		out[r.ID] = receipts.Shingles(fields)
	}
	return out
}

func stems(text string) []string {
	var out []string
	for _, t := range Tokens(text) {
		out = append(out, t.Stem)
	}
	return out
}

// handoffSince reports a handoff recorded at or after t, reading only the
// handoff shards written since.
func handoffSince(storeDir string, t time.Time) bool {
	months, _ := filepath.Glob(filepath.Join(storeDir, record.Handoff.Dir(), "*"))
	for _, m := range months {
		files, _ := filepath.Glob(filepath.Join(m, "*"+record.Handoff.Ext()))
		for _, f := range files {
			info, err := os.Stat(f)
			if err != nil || info.ModTime().Before(t.Add(-time.Second)) {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			recs, _, _ := kinds.ParseShard(f, data)
			for _, r := range recs {
				if r.Kind == record.Handoff && !r.Created.Before(t) {
					return true
				}
			}
		}
	}
	return false
}
