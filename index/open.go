package index

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"lore/internal/mmapfile"
	"lore/record"
	"lore/store"
)

// Tokenizer gives a record's headline and body search terms. Version names
// the tokenizer so an index made by another one is not trusted.
type Tokenizer struct {
	Version string
	Terms   func(*record.Record) (title, body []string)
}

// SnapshotOptions choose how the index is read.
type SnapshotOptions struct {
	Tokenizer Tokenizer
	// Prompt trusts the patterns' directories by their mtime, as every
	// other kind's, and saves a stat per patterns shard (3,900 shards at
	// 100k records: half the session-start hook's own time). Hooks set it:
	// they check the files of the records they show (Unchanged) and leave
	// a pattern edited in place that they do not show to the next command,
	// which compares every patterns shard.
	Prompt bool
	// Thorough stats every shard the index knows, of every kind, as
	// patterns' are, and compares each one's content with the index's
	// checksum of it: it finds a JSONL shard edited in place by hand, which
	// lore's model (records are appended; git replaces whole files) never
	// does and the directory's mtime does not show, and one overwritten
	// with its size and mtime kept (cp -p). It costs a stat and a read per
	// shard, so only doctor, which reads every shard anyway, asks for it.
	Thorough bool
	// Budget, if set, bounds the parsing of changed shards when an index
	// exists: once Open has run this long, it parses no further shard
	// (beyond one per core, so every reader makes progress) and leaves the
	// rest pending in the index for the next reader. With Prompt, the
	// first half of it also bounds the reading of changed directories,
	// newest month first: past it, the shards of those not read are
	// served as the index holds them, and the next reader reads them.
	// Hooks set it, so a prompt after a big pull or checkout answers from
	// what is indexed. Without an index, parsing runs until ctx is done,
	// or ColdBudget.
	Budget time.Duration
	// ColdBudget, if set, bounds a build without an index (a fresh clone's
	// first prompt): the hook's deadline less the time to write what it
	// read, which at 100k records took the first prompt to 0.7 s.
	ColdBudget time.Duration
	// CompactAbove, if set, merges every segment into one once the index
	// is current, when it has more than this many (lore index): a hook's
	// catching up, a few hundred shards a prompt, leaves a segment each
	// time.
	CompactAbove int
}

// racyWindow: a file or directory modified this close to the index's
// writing is checked again, as a file system's timestamps can be too
// coarse to show a change made in the same tick (git's "racy clean"). A
// variable so tests can shorten it.
var racyWindow = int64(2 * time.Second)

// smallSegment: the newest segments are merged into the next one written
// while they hold at most this many versions, or at most as many as the
// new material; larger ones stay, so the work of an update follows what
// changed, not the size of the store. A variable so tests can make many
// segments.
var smallSegment = 1024

const (
	// orphanAge: a segment file the manifest does not name is removed once
	// it is this old (younger ones may belong to a writer about to publish).
	orphanAge = time.Minute
)

// Open reads the current records through the index, bringing the index up
// to date first. What is checked, and why it suffices:
//
//   - every directory of shards, by its mtime and change time (see
//     statDirectory): git's checkouts, pulls and
//     merges add, remove and replace shards as files, and lore rewrites a
//     shard (doctor, purge) by renaming a new file over it, all of which
//     change the directory; a changed directory is listed and each of its
//     shards compared by size, mtime and inode;
//   - the shard this checkout appends to, per kind (named in .local), as
//     appends change the file but not its directory;
//   - every patterns shard, by size, mtime and inode, as people edit
//     patterns by hand and editors may write in place (except in Prompt
//     mode);
//   - with Thorough, every shard of every kind, the same way.
//
// Shards that changed are parsed, newest month first, and written back as
// a new segment, so the next reader starts from a current index; when ctx
// is done or the budget spent, parsing stops, the snapshot is marked
// Partial, what was parsed is kept, and the rest is left pending. A shard
// that exists but cannot be read (its permissions) is left pending too,
// with a warning, and the snapshot is Partial: one such file must not stop
// every command.
func Open(ctx context.Context, s *store.Store, o SnapshotOptions) (*Snapshot, error) {
	var sc *scan
	for attempt := 0; ; attempt++ {
		sc = newScan(ctx, s, o.Tokenizer)
		sc.prompt, sc.thorough, sc.budget, sc.coldBudget, sc.compactAbove = o.Prompt, o.Thorough, o.Budget, o.ColdBudget, o.CompactAbove
		if o.Prompt && o.Budget > 0 && sc.old != nil {
			// Half the budget reads changed directories; the rest
			// parses what changed.
			sc.listDeadline = time.Unix(0, sc.start).Add(o.Budget / 2)
		}
		if sc.loadSegments() {
			break
		}
		// A segment named by the manifest vanished: another process
		// merged it away after we read the manifest. Read it again; if
		// that fails too, rebuild rather than trust directories whose
		// shards only the missing segment described.
		if attempt == 1 {
			sc.old, sc.segs = nil, nil
			break
		}
	}
	if err := sc.walk(); err != nil {
		return nil, err
	}
	if err := sc.parseAll(); err != nil {
		return nil, err
	}
	snap := newSnapshot(sc.update())
	snap.dir = s.Dir
	snap.Warnings = sc.warnings()
	snap.Partial, snap.Behind = sc.partial, sc.behind
	snap.parsed, snap.lost, snap.Unsaved, snap.Repaired = len(sc.parsed), sc.lost, sc.unsaved, sc.repaired
	return snap, nil
}

// scan compares the store with the index as the manifest describes it.
type scan struct {
	ctx          context.Context
	store        *store.Store
	tok          Tokenizer
	start        int64
	old          *manifest  // nil: no usable index
	read         *manifest  // the manifest as read, usable or not: publish replaces only it
	segs         []*segment // old's segments, oldest first
	dirs         map[string]*dirEntry
	dirsMoved    bool            // a directory's entry differs from old's
	seen         map[string]bool // shards compared in this scan
	jobs         []parseJob
	gone         map[string]bool // shards the index holds that no longer exist
	parsed       []*shardFile
	dict         *termDict // the parsed versions' terms
	pending      []string  // shards left unparsed, sorted
	partial      bool
	behind       bool             // changed shards were left pending for want of time
	lost         bool             // another process published first: what this one wrote is not the index
	unsaved      error            // writing the index failed: it is left as it was (see Snapshot.Unsaved)
	repaired     []Repair         // what a thorough scan set right (see Snapshot.Repaired)
	unreadable   []record.Warning // shards that exist but could not be read
	prompt       bool
	thorough     bool
	compactAbove int
	budget       time.Duration
	coldBudget   time.Duration
	listDeadline time.Time // in a prompt, when to stop reading changed directories (see readDirs)
	catchUpOnce  sync.Once
	catchingUp   bool // a prompt's, while lore index works (see leavesToCatchUp)
}

type parseJob struct {
	rel         string
	size, mtime int64 // size unstated: a pending shard, stat'ed when parsed
	ino         uint64
}

const unstated = -1

// readVersion is stamped on the index beside the tokenizer's version (a
// var for tests).
var readVersion = record.ReadVersion

// stamp names what the index's terms and records were made by: the
// tokenizer and the shard readers. An index stamped otherwise is rebuilt.
func (t Tokenizer) stamp() string { return t.Version + "/" + readVersion }

func newScan(ctx context.Context, s *store.Store, tok Tokenizer) *scan {
	m := readManifest(s, tok)
	return &scan{ctx: ctx, store: s, tok: tok, start: time.Now().UnixNano(),
		old: m, read: m, dirs: map[string]*dirEntry{}, seen: map[string]bool{},
		gone: map[string]bool{}, dict: newTermDict()}
}

// loadSegments maps the manifest's segments; false if one is missing. A
// damaged segment (its framing, or in a thorough scan its checksum) drops
// the whole index, which is then rebuilt.
func (sc *scan) loadSegments() bool {
	if sc.old == nil {
		return true
	}
	for i, name := range sc.old.segs {
		data, err := mmapfile.Map(filepath.Join(indexDir(sc.store, sc.tok), name))
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		seg, perr := parseSegment(name, data, sc.tok.stamp())
		if err == nil && perr == nil {
			if i < len(sc.old.sums) {
				seg.sum = sc.old.sums[i]
			}
			// Only a thorough scan reads every byte: a reader maps a
			// segment to touch only the pages it needs. A segment whose
			// checksum is not known (a LOREIDX4 index's) cannot be
			// vouched for: it is rebuilt too.
			if sc.thorough && (seg.sum == 0 || checksum(data) != seg.sum) {
				perr = errCorrupt
				r := Repair{File: sc.store.Rel(filepath.Join(indexDir(sc.store, sc.tok), name)), Kind: "index-damaged",
					Message: "an index file did not match its checksum: the index was rebuilt from the shards"}
				if seg.sum == 0 {
					r.Kind, r.Message = "index-unverified", "an index file an earlier lore wrote has no checksum: the index was rebuilt from the shards"
				}
				sc.repaired = append(sc.repaired, r)
			}
		}
		if err != nil || perr != nil {
			sc.old, sc.segs = nil, nil
			return true
		}
		sc.segs = append(sc.segs, seg)
	}
	return true
}

// lookup finds the newest description of shard rel, and when it was made.
func (sc *scan) lookup(rel string) (fileEntry, int64, bool) {
	for i := len(sc.segs) - 1; i >= 0; i-- {
		if fi, ok := sc.segs[i].findFile(rel); ok {
			return sc.segs[i].file(fi), sc.segs[i].written, true
		}
	}
	return fileEntry{}, 0, false
}

// warnings are the problems of every shard the index now covers.
func (sc *scan) warnings() []record.Warning {
	var out []record.Warning
	for _, ws := range sc.old.warns {
		out = append(out, ws...)
	}
	out = append(out, sc.unreadable...)
	sortWarnings(out)
	return out
}
