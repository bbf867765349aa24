package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"lore/kinds"
	"lore/record"
	"lore/secrets"
)

// Problem is one thing lore doctor found.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Kind    string `json:"kind"` // malformed, torn, conflict, spread, lfs-pointer, unmerged, sparse, tie, changed-apart, validated-apart, purged, newer-format, future, not-a-directory, unreadable, attributes, temp-file, secret, config, encoding, misplaced, ignored, unknown-field, no-text, unknown-dir, index-damaged, index-unverified, index-unwritable, edited-in-place
	Message string `json:"message"`
	Fixable bool   `json:"fixable"`
	Fixed   bool   `json:"fixed"`
	// Note: worth knowing, nothing to repair (a version dated ahead of the
	// clock, which lore itself must date the next versions after): it does
	// not make doctor fail.
	Note bool `json:"note,omitempty"`
}

func (p Problem) String() string {
	pos := p.File
	if p.Line > 0 {
		pos = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return pos + ": " + p.Message
}

// tempAge is how old a temporary file must be to count as left over: a
// younger one may belong to a write in progress.
const tempAge = time.Minute

// Doctor checks the store: every shard parses, no torn tails or conflict
// markers, no same-timestamp conflicts between versions, no record
// changed or pattern validated in two places apart (a merge keeps both,
// and lore serves one), no version of a purged record brought back by a
// merge, no record from a
// newer format, none dated ahead of the clock, lore's .gitattributes and .gitignore, no leftover temporary
// files, no secret already in the store. With fix it repairs only what it
// can prove holds no record: a JSONL shard's torn tail (an interrupted
// append), a torn fragment a record was appended to on the same line, its
// conflict-marker lines, and a patterns file's header an append was cut
// off in, all moved to .lore/.local/quarantine; a patterns file in merge
// conflict whose sides each only added patterns (both kept); the attribute
// files; old temporary files; a pattern validated apart, counted in one
// new version (an append, as patterns validate would). A line or table that does not read is
// reported with the fix to make by hand and never removed: it may be a
// record with a typo, and shards are committed.
func (s *Store) Doctor(fix bool) ([]Problem, error) {
	var probs []Problem
	if fix {
		unlock, err := s.Lock()
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	// A kind whose directory is a file has no shard to check: that is
	// the problem.
	var readable []record.Kind
	for _, k := range record.AllKinds() {
		var nd *NotDirError
		if err := s.CheckKindDir(k); errors.As(err, &nd) {
			probs = append(probs, Problem{File: nd.Path, Kind: "not-a-directory", Message: nd.Reason()})
			continue
		}
		readable = append(readable, k)
	}
	var files []string
	if len(readable) > 0 {
		var err error
		if files, err = s.Files(readable...); err != nil {
			return nil, err
		}
	}
	results := s.checkShards(files, fix)
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		probs = append(probs, r.probs...)
	}
	byID, rr := versionsByID(results), s.rereader(files, results)
	probs = append(probs, s.ties(results, byID, rr)...)
	apart, err := s.apart(context.Background(), apartCandidates(results, byID), rr, fix)
	if err != nil {
		return nil, err
	}
	probs = append(probs, apart...)
	probs = append(probs, s.backFromPurge(files, results)...)
	probs = append(probs, s.triagedTwice(files, results)...)
	for _, r := range results {
		probs = append(probs, r.secrets...)
	}
	// A key this lore does not know is most often a newer lore's setting:
	// worth a note, not a failure, or a CI job on an older lore fails for
	// good the day a teammate upgrades.
	for _, c := range s.Config.Notes {
		probs = append(probs, Problem{File: s.Rel(c.File), Line: c.Line, Kind: "config", Message: c.Msg, Note: c.Unknown})
	}
	probs = append(probs, s.unknownDirs()...)
	probs = append(probs, s.checkAttributes(fix)...)
	if ig := s.IgnoredByGit(context.Background()); ig != nil {
		probs = append(probs, Problem{File: s.Rel(s.Dir), Kind: "ignored",
			Message: ig.String() + ": they are never committed or shared; " + ig.Hint()})
	}
	probs = append(probs, s.unmerged(context.Background(), probs)...)
	tmp, err := s.checkTempFiles(fix)
	if err != nil {
		return nil, err
	}
	return append(probs, tmp...), nil
}

// shardCheck is what doctor found in one shard.
type shardCheck struct {
	probs, secrets []Problem
	versions       []seenVersion
	origin         origin    // its versions' author, branch and commit (shardOrigin)
	oneOrigin      bool      // they share the author and branch
	oneCommit      bool      // and the commit
	triage         []triaged // the observations' promotions and dismissals
	made           []triaged // versions made from an observation (promotedTo: which)
	err            error
}

// checkShards checks every shard, on every core unless fix rewrites them
// (repairs go one at a time), and returns the results in files' order.
func (s *Store) checkShards(files []string, fix bool) []shardCheck {
	out := make([]shardCheck, len(files))
	workers := runtime.GOMAXPROCS(0)
	now := s.Clock()
	if fix {
		workers = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				c := &out[i]
				var recs []*record.Record
				c.probs, recs, c.err = s.checkShard(files[i], fix)
				c.versions = make([]seenVersion, len(recs))
				c.origin, c.oneOrigin, c.oneCommit = shardOrigin(recs)
				dir := s.kindDirOf(files[i])
				for j, v := range recs {
					c.versions[j] = seenVersion{id: v.ID, time: v.Time, line: int32(v.Source.Line), valid: int16(min(v.Validations, math.MaxInt16)), purged: v.Purged(), active: v.Active()}
					if v.Status == record.StatusPromoted || v.Status == record.StatusDismissed {
						c.triage = append(c.triage, triaged{j, v.PromotedTo})
					}
					if v.From != "" {
						c.made = append(c.made, triaged{j, v.From})
					}
					if v.Kind.Dir() != dir {
						c.probs = append(c.probs, misplaced(v, dir))
					}
					if v.Time.After(now.Add(futureSlack)) {
						c.probs = append(c.probs, future(v, now))
					}
					for _, f := range secrets.ScrubRecord(v.Derive(v.Time, record.Origin{})) {
						c.secrets = append(c.secrets, Problem{File: v.Source.File, Line: v.Source.Line, Kind: "secret",
							Message: fmt.Sprintf("%s holds a %s in %s: run 'lore forget %s --purge' and rotate the secret", record.ShortID(v.ID), f.Kind, f.Field, record.ShortID(v.ID))})
					}
				}
			}
		})
	}
	wg.Wait()
	return out
}

// readShard reads a shard; a variable so tests can make one unreadable,
// which permissions cannot do to a test run as root.
var readShard = os.ReadFile

// checkShard reports a shard's problems and, with fix, repairs it. Shards
// are committed, so whatever a repair takes out of one is deleted for
// everyone at the next commit: it takes out only bytes it can prove are not
// a record (see repairable) and keeps them in the quarantine. A line or
// table that does not read but may be a record someone mistyped is left
// exactly as it is and reported with the fix to make by hand.
func (s *Store) checkShard(path string, fix bool) ([]Problem, []*record.Record, error) {
	name := s.Rel(path)
	data, err := readShard(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil // removed since it was listed
	}
	if err != nil {
		return []Problem{{File: name, Kind: "unreadable", Message: "cannot read it (" + Cause(err) +
			"): its records are left out of every command; lore leaves it as it is: fix its permissions (chmod u+r) or the disk, then run 'lore doctor' again"}}, nil, nil
	}
	if record.IsLFSPointer(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
		return []Problem{lfsPointer(name, data)}, nil, nil
	}
	toml := strings.HasSuffix(path, ".toml")
	recs, warns, err := kinds.ParseShard(name, data)
	var newer *record.ErrNewerFormat
	if errors.As(err, &newer) {
		return []Problem{{File: name, Line: newer.At.Line, Kind: "newer-format", Message: "record " + newer.Error() + "; upgrade lore"}}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	var probs []Problem
	if !toml { // the TOML reader refuses such a table itself
		probs = notUTF8(name, data, lines)
	}
	probs = append(probs, handWritten(name, recs, lines, toml)...)
	drop := map[int]bool{}    // line numbers to take out (1-based)
	joins := map[int]spread{} // records to join into one line, by their first line
	cuts := map[int]tornCut{} // lines to take a torn fragment out of
	for _, w := range warns {
		if j, ok := spreadAt(lines, w); ok {
			joins[w.Pos.Line] = j
			probs = append(probs, j.problem(name))
			continue
		}
		if c, ok := tornBeforeAt(lines, w); ok {
			cuts[w.Pos.Line] = c
			probs = append(probs, c.problem(name, w.Pos.Line))
			continue
		}
		p := diagnose(name, w, lines, toml)
		if p.Fixable {
			drop[w.Pos.Line] = true
		}
		probs = append(probs, p)
	}
	if toml {
		if done, err := s.resolveAdditions(path, data, probs, fix); done || err != nil {
			return probs, recs, err
		}
	}
	if !fix || len(drop)+len(joins)+len(cuts) == 0 {
		return probs, recs, nil
	}
	// Only whole dropped lines go, a spread record's lines become its one
	// line, and a torn fragment goes from before its record; every other
	// byte stays where it was.
	var kept, out strings.Builder
	for i := 0; i < len(lines); i++ {
		j, joined := joins[i+1]
		c, cut := cuts[i+1]
		switch {
		case joined:
			kept.WriteString(j.line + lineEnding(lines[j.last-1]))
			i = j.last - 1
		case cut:
			kept.WriteString(lines[i][:c.from] + lines[i][c.at:])
			out.WriteString(lines[i][c.from:c.at] + "\n")
		case drop[i+1]:
			out.WriteString(lines[i])
		default:
			kept.WriteString(lines[i])
		}
	}
	q, err := s.quarantine(path, []byte(out.String()))
	if err != nil {
		return nil, nil, err
	}
	if err := s.rewriteJoined(path, data, []byte(kept.String()), joins); err != nil {
		return nil, nil, err
	}
	for i := range probs {
		switch {
		case !probs[i].Fixable:
		case probs[i].Kind == "spread":
			probs[i].Fixed = true
			probs[i].Message += "; joined into one line"
		case probs[i].Kind == "torn" && cuts[probs[i].Line] != tornCut{}:
			probs[i].Fixed = true
			probs[i].Message += "; the record kept on its line, the fragment moved to " + s.Rel(q)
		default:
			probs[i].Fixed = true
			probs[i].Message += "; moved to " + s.Rel(q)
		}
	}
	return probs, recs, nil
}

// notUTF8 reports each JSONL line holding bytes that are not UTF-8: readers
// take them as U+FFFD, the replacement character, and a new version of
// the record (revise, validate) would keep that instead of the bytes.
func notUTF8(name string, data []byte, lines []string) []Problem {
	if utf8.Valid(data) {
		return nil
	}
	var probs []Problem
	for i, l := range lines {
		if !utf8.ValidString(l) {
			probs = append(probs, Problem{File: name, Line: i + 1, Kind: "encoding",
				Message: "bytes that are not UTF-8, read as U+FFFD (\ufffd); " + byHand("the line")})
		}
	}
	return probs
}

// handWritten reports what only a hand edit leaves in a record that reads:
// a field named like one of lore's but misspelt, which lore keeps as an
// unknown field and never reads, and a record without its text, which
// every view shows as an empty line (capture refuses both).
func handWritten(name string, recs []*record.Record, lines []string, toml bool) []Problem {
	var probs []Problem
	for _, r := range recs {
		for _, k := range slices.Sorted(maps.Keys(r.Extra)) {
			if near := record.MistypedField(k); near != "" {
				line := r.Source.Line
				if toml {
					line = keyLine(lines, line, k)
				}
				probs = append(probs, Problem{File: name, Line: line, Kind: "unknown-field",
					Message: fmt.Sprintf("%s has a field %q that lore does not know (a typo of %q?): it is kept as written and never read; %s",
						record.ShortID(r.ID), k, near, byHand("the key"))})
			}
		}
		if !r.Purged() && strings.TrimSpace(r.Text) == "" {
			probs = append(probs, Problem{File: name, Line: r.Source.Line, Kind: "no-text",
				Message: fmt.Sprintf("%s has no %q: every view shows it as an empty line; %s", record.ShortID(r.ID), "text", byHand("the record"))})
		}
	}
	slices.SortStableFunc(probs, func(a, b Problem) int { return a.Line - b.Line })
	return probs
}

// keyLine is the line (1-based) where key is set in the TOML table that
// starts at line from, or from.
func keyLine(lines []string, from int, key string) int {
	for i := from; i <= len(lines); i++ {
		l := lineAt(lines, i)
		if i > from && strings.HasPrefix(l, "[") {
			break // the next table
		}
		for _, q := range []string{key, `"` + key + `"`, "'" + key + "'"} {
			if rest, ok := strings.CutPrefix(l, q); ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
				return i
			}
		}
	}
	return from
}

// kindDirOf is the kind directory (journal, inbox...) that holds a shard.
func (s *Store) kindDirOf(path string) string {
	rel, err := filepath.Rel(s.Dir, path)
	if err != nil {
		return ""
	}
	dir, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return dir
}

// misplaced reports a record in another kind's directory (copied there by
// hand): lore reads it by its ID's kind all the same, but a person looking
// for it, and git's history of that kind, do not find it there.
func misplaced(v *record.Record, dir string) Problem {
	return Problem{File: v.Source.File, Line: v.Source.Line, Kind: "misplaced",
		Message: fmt.Sprintf("%s is %s in %s/ (lore keeps %ss in %s/) and is read all the same; %s",
			record.ShortID(v.ID), article(v.Kind), dir, v.Kind, v.Kind.Dir(), byHand("the shards (move the line to "+v.Kind.Dir()+"/)"))}
}

// byHand ends the message of a problem doctor will not repair.
// futureSlack is how far ahead of this machine's clock a version may be
// dated before doctor names it: clocks minutes apart are common, and new
// handoffs and revisions are dated after it anyway.
const futureSlack = time.Hour

// future reports a version dated ahead of this machine's clock. lore takes
// the later date for the newer version and the newer handoff, so until the
// clocks meet it outranks what was recorded after it elsewhere.
func future(v *record.Record, now time.Time) Problem {
	n, unit := int(v.Time.Sub(now).Hours()), "hour"
	if n >= 48 {
		n, unit = n/24, "day"
	}
	if n != 1 {
		unit += "s"
	}
	return Problem{File: v.Source.File, Line: v.Source.Line, Kind: "future", Note: true,
		Message: fmt.Sprintf("%s is dated %s, %d %s ahead of this machine's clock: a clock was wrong, the writer's or this one's; until that date it counts as newer than what is recorded after it, and lore dates new handoffs and revisions after it (keep clocks right; nothing to repair)",
			record.ShortID(v.ID), v.Time.Format("2006-01-02 15:04 UTC"), n, unit)}
}

func byHand(what string) string {
	return "lore leaves it as it is: edit " + what + " by hand, then run 'lore doctor' again"
}

// diagnose turns a reader's warning into a problem: what is wrong, and
// whether --fix may take the line out.
func diagnose(name string, w record.Warning, lines []string, toml bool) Problem {
	p := Problem{File: name, Line: w.Pos.Line, Kind: "malformed"}
	switch {
	case toml && w.Kind == record.WarnConflict:
		// Both sides of a conflict inside a table are edits of the same
		// keys: without the markers the table still needs a person.
		p.Kind = "conflict"
		p.Message = "git conflict marker in a patterns file (keep what each side meant, drop the marker lines); " + byHand("the table")
	case toml && w.Kind == record.WarnTorn && headerOnly(lines, w.Pos.Line):
		// The start of an append, cut off in or right after its header:
		// no key follows it before the next table, so it holds no record.
		p.Kind, p.Fixable = "torn", true
		p.Message = "[[pattern]] header with no table after it (an append cut off mid-write): it holds no record"
	case toml && w.Kind == record.WarnTorn:
		// A table cut off at the end of the file may be an interrupted
		// write or a hand edit without a final newline, and an append cut
		// before its header is read as part of the table above it: lore
		// cannot tell a fragment from a record, so it refuses.
		p.Message = w.Msg + " (the file ends inside this table: if it is the rest of an interrupted write, delete it); " + byHand("the table")
	case toml && beforeTables(lines, w.Pos.Line):
		p.Message = w.Msg + " (start a table with [[pattern]] above it, or make it a # comment); " + byHand("the line")
	case toml:
		p.Message = w.Msg + "; " + byHand("the table")
	case w.Kind == record.WarnConflict:
		p.Kind, p.Fixable, p.Message = "conflict", true, w.Msg
	case repairable(lines, w.Pos.Line):
		p.Kind, p.Fixable, p.Message = "torn", true, "torn last line (an interrupted write: no newline, JSON cut short)"
	default:
		line := lineAt(lines, w.Pos.Line)
		p.Message = w.Msg
		if record.CutShort([]byte(line)) {
			p.Message += " (the line is cut off: if it is the rest of an interrupted write, delete it)"
		}
		p.Message += "; " + byHand("the line")
	}
	return p
}

// repairable reports whether JSONL line n (1-based) is provably a torn
// tail, not a record: the last line of the file, without its newline (lore
// writes a record and its newline in one write, so only an interrupted
// write or a hand edit leaves it off), and a JSON object cut short, not one
// with a mistake inside it. A tail that is whole JSON, valid or not as a
// record, was written by someone and stays.
func repairable(lines []string, n int) bool {
	if n != len(lines) || strings.HasSuffix(lines[n-1], "\n") {
		return false
	}
	return record.CutShort([]byte(lineAt(lines, n)))
}

// beforeTables reports whether line n (1-based) of a patterns file comes
// before its first [[pattern]] header: stray text, not part of a table.
func beforeTables(lines []string, n int) bool {
	for _, l := range lines[:min(n, len(lines))] {
		if record.IsPatternHeader(strings.TrimSpace(l)) {
			return false
		}
	}
	return true
}

// headerOnly reports whether line n (1-based) of a patterns file is a
// [[pattern]] header, whole or cut off, with nothing but blank lines and
// comments after it before the next header or the end of the file.
func headerOnly(lines []string, n int) bool {
	if n < 1 || n > len(lines) {
		return false
	}
	end := n
	for end < len(lines) && !record.IsPatternHeader(strings.TrimSpace(lines[end])) && !record.IsTornHeader(strings.TrimSpace(lines[end])) {
		end++
	}
	return record.HeaderOnly(strings.Join(lines[n-1:end], ""))
}

// lineAt is line n (1-based) without its line ending, as the reader saw it.
func lineAt(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}
