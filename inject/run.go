package inject

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"lore/anchor"
	"lore/config"
	"lore/gitrepo"
	"lore/index"
	"lore/receipts"
	"lore/record"
	"lore/store"
	"lore/trust"
)

// HookDeadline bounds a hook's work: past it, the hook answers from what it
// has read so far instead of holding up the user's prompt.
const HookDeadline = 500 * time.Millisecond

// HookIndexBudget bounds the index's catching up inside a hook once an
// index exists: after a big pull or checkout, a prompt reads the changed
// directories and parses the changed shards it can in this time, newest
// first, and leaves the rest to the next prompts (or any lore command),
// rather than keep the user waiting. A variable for tests.
var HookIndexBudget = 30 * time.Millisecond

// HookBuildBudget bounds the reading of a store that has no index yet (a
// fresh clone) inside a hook: what is read is then written as the index's
// first segment, which took 0.2 s more for half of a 100k-record store, so
// the reading stops short of HookDeadline; the hook then starts lore index
// in the background for the rest.
const HookBuildBudget = 300 * time.Millisecond

// maxHookInput bounds what is read from stdin.
const maxHookInput = 8 << 20

// readHookInput reads the host's JSON object from in: up to its closing
// brace, without waiting for in to close (a host or wrapper that keeps
// stdin open would hold the prompt until it did), and within ctx's
// deadline. What follows the object is not read.
func readHookInput(ctx context.Context, in io.Reader) ([]byte, error) {
	type read struct {
		data json.RawMessage
		err  error
	}
	done := make(chan read, 1)
	go func() {
		lr := &io.LimitedReader{R: in, N: maxHookInput + 1}
		var r read
		if err := json.NewDecoder(lr).Decode(&r.data); lr.N <= 0 {
			r.err = fmt.Errorf("hook input is over %d MiB: ignored", maxHookInput>>20)
		} else if err != nil {
			r.err = fmt.Errorf("hook input is not a JSON object: %w", err)
		}
		done <- r
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, errors.New("no hook input within the deadline")
	}
}

// Budget resolves the token budget: an explicit flag, then
// LORE_CONTEXT_BUDGET, then config.toml, then the default.
func Budget(flag int, getenv func(string) string, cfg *config.Config) int {
	if flag > 0 {
		return flag
	}
	if v, err := strconv.Atoi(getenv("LORE_CONTEXT_BUDGET")); err == nil && v > 0 {
		return v
	}
	if cfg.Inject.Budget > 0 {
		return cfg.Inject.Budget
	}
	return DefaultBudget
}

// PromptContext ranks the records for prompt and renders the block, leaving
// out of the whole-item slots what seen says the session already has.
func PromptContext(ix *Index, cfg *config.Config, prompt string, budgetTokens int, now time.Time, seen *Seen) Rendered {
	r, _ := promptContext(context.Background(), ix, cfg, prompt, budgetTokens, now, seen)
	return r
}

// promptContext is PromptContext that also returns the records in the
// block; ctx bounds the check of the candidates' anchored code (the hook's
// deadline).
func promptContext(ctx context.Context, ix *Index, cfg *config.Config, prompt string, budgetTokens int, now time.Time, seen *Seen) (Rendered, []*record.Record) {
	maxFull := cfg.Inject.MaxItems
	if maxFull <= 0 {
		maxFull = 5
	}
	ranked := ix.Rank(prompt, Options{Now: now, Limit: 2 * maxFull, NoMatched: true, Context: ctx})
	fresh := 0
	entries := make([]Entry, 0, len(ranked))
	recs := map[string]*record.Record{}
	for _, sc := range ranked {
		if !sc.Inject {
			continue
		}
		recs[sc.Rec.ID] = sc.Rec
		revised := ""
		if seen != nil && seen.Revised(sc.Rec) {
			revised = "revised since shown earlier in this session"
		}
		en := scoredEntry(sc, revised)
		if seen != nil && seen.Has(sc.Rec) {
			en.SummaryOnly = true
		} else {
			fresh++
		}
		entries = append(entries, en)
	}
	if fresh == 0 { // nothing the session has not seen: stay quiet
		if len(entries) == 0 {
			return Rendered{}, nil
		}
		repeated := make([]string, len(entries))
		for i, en := range entries {
			repeated[i] = en.ID
		}
		return Rendered{Repeated: repeated}, nil
	}
	r := Render("auto-injected", entries, BudgetChars(budgetTokens), maxFull)
	var shown []*record.Record
	for _, id := range append(append([]string{}, r.Full...), r.Summary...) {
		shown = append(shown, recs[id])
	}
	return r, shown
}

// ResumeContext renders the resume view as a block; after a compaction the
// header says so, telling the agent why the context is back. With teach,
// the block ends with how to record (Teach).
func ResumeContext(v *Resume, budgetTokens int, compacted, teach bool) Rendered {
	what := "session resume"
	if compacted {
		what = "session resume after compaction"
	}
	tail := ""
	if teach {
		tail = Teach
	}
	return RenderTail(what, v.Entries(), BudgetChars(budgetTokens), 0, tail)
}

// Teach ends the session-start view: the commands an agent uses to add to
// the memory it was just shown, and when. Placeholders are capitals, not
// <angle brackets>: Gemini CLI escapes < and > in hook context as &lt; &gt;.
const Teach = `Record what you learn (lore keeps it in .lore/: commit it with your work):
  lore remember "DECISION" --rationale "WHY" | lore learn "LESSON" --solution "HOW" | lore fail ERROR_TYPE "MESSAGE"
  Before you stop: lore handoff "WHAT YOU DID" --next "THE NEXT STEP"`

// HookEnv is what the hook may use of its process.
type HookEnv struct {
	Getenv     func(string) string
	Cwd        string // used when the input has no cwd
	StoreDir   string // --dir, if given
	BudgetFlag int
	Now        time.Time
	// HostTrusted: the hook runs from the repository's own settings, where
	// the repository could run a hook of its own (see hooks.Command).
	HostTrusted bool
	// CatchUp, if set, is called with the store's directory once the hook
	// has answered, when it left shards unread for want of time.
	CatchUp func(storeDir string)
}

// projectDirVars are where hosts tell a hook the project the session runs
// for: Claude Code's CLAUDE_PROJECT_DIR, Gemini CLI's GEMINI_PROJECT_DIR
// (which also sets the former).
var projectDirVars = []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"}

// hostTrusts reports whether the host's trust covers the store at
// storeDir: the hook is in a repository's own settings (HostTrusted), and,
// where the host names the session's project, the store is that
// project's. The hook's cwd may lead elsewhere (a submodule, a directory
// the agent moved to), whose authors the user trusted nowhere.
func hostTrusts(env HookEnv, storeDir string) bool {
	if !env.HostTrusted {
		return false
	}
	for _, v := range projectDirVars {
		if p := env.Getenv(v); p != "" {
			own, err := store.FindStore(p, env.Getenv)
			return err == nil && gitrepo.SamePath(own, storeDir)
		}
	}
	return true
}

// Untrusted is the one line a session starts with in a repository whose
// memory the user has not trusted; prompts get nothing.
const Untrusted = "--- Lore Context (untrusted repository) ---\n" +
	"This repository has lore memory in .lore/ that the user has not trusted on this machine, so none of it is shown. " +
	"To use it, the user runs 'lore trust' in the repository.\n" + footer

// RunHook answers one hook invocation: it reads the host's JSON from in and
// writes the answer to out, or nothing. Every failure is returned for the
// caller to report in debug mode only; out stays empty then.
func RunHook(ctx context.Context, in io.Reader, out io.Writer, env HookEnv) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, HookDeadline)
	defer cancel()
	data, err := readHookInput(ctx, in)
	if err != nil {
		return err
	}
	hin, err := ParseHookInput(data)
	if err != nil {
		return err
	}
	if !hin.IsPrompt() && !hin.IsSessionStart() && !hin.IsStop() {
		return fmt.Errorf("event %q is not one lore answers", hin.Event)
	}
	dir, err := hookStoreDir(hin, env)
	if err != nil {
		return err
	}
	// What the store says is shown only where the user trusts it; Stop only
	// asks for a handoff in lore's own words. Nothing in a store nobody
	// trusted is read, not even its config.toml: it came with the clone.
	if !hin.IsStop() && !hostTrusts(env, dir) && !trust.Trusted(env.Getenv, dir) {
		if err := store.Check(dir); err != nil {
			return err
		}
		if !hin.IsSessionStart() {
			return errors.New("untrusted repository: nothing is injected (lore trust)")
		}
		b, err := MarshalHookOutput(hin.Event, Untrusted)
		if err != nil {
			return err
		}
		_, err = out.Write(b)
		return err
	}
	s, err := store.Open(dir)
	if err != nil {
		return err
	}
	s.Getenv = env.Getenv
	now := env.Now
	if now.IsZero() {
		now = s.Clock()
	}
	repoDir := filepath.Dir(s.Dir)
	if hin.IsStop() {
		reason := stop(ctx, hin, s, repoDir)
		if reason == "" {
			return errNothing
		}
		b, err := MarshalStopOutput(reason)
		if err != nil {
			return err
		}
		_, err = out.Write(b)
		return err
	}
	budget := Budget(env.BudgetFlag, env.Getenv, s.Config)
	if budget < MinBudget && !hin.IsSessionStart() {
		// No block fits (a session start still records where the session
		// began, for Stop): the prompt is not one the memory had nothing
		// for, and lore stats does not list it as such.
		return errBudget(budget)
	}
	var git *GitSource
	if hin.IsSessionStart() {
		git = StartGit(ctx, s.Getenv, repoDir, s.Dir) // git works while the index is read
	}
	opts := index.SnapshotOptions{Tokenizer: Tokenizer(), Prompt: true, Budget: HookIndexBudget, ColdBudget: HookBuildBudget}
	snap, err := index.Open(ctx, s, opts)
	if err != nil {
		return err
	}
	if snap.Behind && env.CatchUp != nil {
		defer env.CatchUp(s.Dir) // after the answer is written
	}
	// The open trusts patterns' directories by their mtime (opts.Prompt).
	// Should a record about to be shown sit in a file edited in place since
	// the index read it, the store is read as commands read it, and the
	// records chosen again.
	openAll := func() (*index.Snapshot, error) {
		opts.Prompt = false
		return index.Open(ctx, s, opts)
	}
	seen := OpenSeen(s.Dir, hin.SessionID)
	log := receipts.Open(s.Dir, hin.SessionID)
	var r Rendered
	ev := receipts.Event{Time: now.UTC()}
	if hin.IsSessionStart() {
		seen.Reset(now, hin.TranscriptPath) // a new, cleared or compacted context holds none of it
		author := s.Origin().Author
		v := BuildResume(ctx, snap, ResumeOptions{Git: git, Author: author})
		if !snap.Unchanged(idsOf(v.Records())) {
			if snap, err = openAll(); err != nil {
				return err
			}
			gitView := v.Git
			v = BuildResume(ctx, snap, ResumeOptions{Author: author})
			v.Git = gitView
		}
		v.CheckAnchors(ctx, anchor.ForStore(s.Dir, s.Getenv))
		r = ResumeContext(v, budget, hin.Source == "compact", s.Config.Loop.Teach)
		seen.Add(whole(r, v.Records())) // a prompt about the handoff need not repeat it
		RememberStart(s.Dir, hin.SessionID, git, now, hin.Source == "startup" || hin.Source == "clear")
		ev.Event, ev.Marks = receipts.Start, Marks(v.Records())
	} else {
		if hin.Prompt = StripInjected(hin.Prompt); hin.Prompt == "" {
			return errors.New("no prompt in the hook input, once host-folded context is removed")
		}
		seen.Own(hin.TranscriptPath)
		var shown []*record.Record
		choose := func() {
			ix := NewIndex(snap, s.Config).CheckAnchors(anchor.ForStore(s.Dir, s.Getenv))
			r, shown = promptContext(ctx, ix, s.Config, hin.Prompt, budget, now, seen)
		}
		choose()
		if !snap.Unchanged(idsOf(shown)) {
			if snap, err = openAll(); err != nil {
				return err
			}
			choose()
		}
		seen.Add(append(whole(r, shown), seen.Found()...))
		ev.Event, ev.Marks = receipts.Prompt, Marks(shown)
		if r.Text == "" && len(r.Repeated) == 0 {
			ev.Prompt = hin.Prompt // a prompt the memory had nothing for, for lore stats
		}
	}
	if r.Text != "" && !answersFirst(s.Dir, hin, r.Text) {
		return errTwin
	}
	// The resume view's git, inbox and trigger entries are not records.
	ev.Full, ev.Summary, ev.Chars = recordIDs(r.Full), recordIDs(r.Summary), len(r.Text)
	log.Append(ev)
	switch {
	case len(r.Repeated) > 0:
		return errRepeated
	case r.Text == "" && budget < MinBudget:
		return errBudget(budget)
	case r.Text == "":
		return errNothing
	}
	b, err := MarshalHookOutput(hin.Event, r.Text)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

func idsOf(recs []*record.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// whole are the records of recs that r shows whole.
func whole(r Rendered, recs []*record.Record) []*record.Record {
	var out []*record.Record
	for _, rec := range recs {
		if slices.Contains(r.Full, rec.ID) {
			out = append(out, rec)
		}
	}
	return out
}

func recordIDs(ids []string) []string {
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !record.ValidID(id) })
}

// errNothing is the quiet outcome: no record is relevant.
var errNothing = errors.New("nothing relevant to inject")

// errRepeated is the quiet outcome when every relevant record was shown
// earlier in the session.
var errRepeated = fmt.Errorf("%w: this session has the relevant records already (shown or recorded in it)", errNothing)

// errBudget is the quiet outcome of a budget (from the environment or
// config.toml) too small for any block.
func errBudget(budget int) error {
	return fmt.Errorf("%w: the budget, %d tokens, is below %d, the smallest block", errNothing, budget, MinBudget)
}

// errTwin is the quiet outcome when another run of lore answered the same
// event of the session a moment ago (see answersFirst).
var errTwin = fmt.Errorf("%w: lore's hook answered this event already (installed twice: see lore hooks status)", errNothing)

// twinWindow is how close two runs of lore's hook for one event are: an
// agent runs its hooks for an event together, or one after the other.
const twinWindow = 3 * time.Second

// answersFirst reports whether this run is the first to answer hin's event
// in its session with answer: an agent with lore's hooks at both user and
// project scope runs both for every event, and would show every block
// twice. A repeat of the event later (another compaction, the same prompt
// again), or another answer to it, is answered.
func answersFirst(storeDir string, hin *HookInput, answer string) bool {
	if hin.SessionID == "" {
		return true
	}
	sum := sha256.Sum256([]byte(hin.Event + "\x00" + hin.Source + "\x00" + hin.Prompt + "\x00" + answer))
	path := filepath.Join(storeDir, ".local", "sessions", store.SessionKey(hin.SessionID)+".answered")
	return store.FirstToAnswer(path, hex.EncodeToString(sum[:8]), time.Now(), twinWindow)
}

// IsNothing reports the quiet outcome, which is not a failure.
func IsNothing(err error) bool { return errors.Is(err, errNothing) }

// hookStoreDir is the store of the repository the hook's cwd is in.
func hookStoreDir(hin *HookInput, env HookEnv) (string, error) {
	dir := env.StoreDir
	if dir == "" {
		dir = env.Getenv("LORE_DIR")
	}
	cwd := hin.Cwd
	if cwd == "" {
		cwd = env.Cwd
	}
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	if dir == "" {
		return store.FindStore(cwd, env.Getenv)
	}
	return dir, nil
}
