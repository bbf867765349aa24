package index

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"lore/store"
)

// CatchUp brings the index wholly up to date and merges its segments into
// one, for lore index. A hook reads changed shards for a few milliseconds
// a prompt (SnapshotOptions.Budget): a fresh clone of 100k records, or a
// large pull, would be read a few hundred shards a prompt over dozens of
// prompts, each leaving a segment. So a hook that leaves shards unread
// (Snapshot.Behind) starts lore index in the background, and background
// says so: CatchUp then returns at once, with a nil snapshot, while
// another process catches up; it first waits out the racy window (the
// shards a clone or pull just wrote are not trusted by their stat that
// close to the index's writing: read now, every reader would read them
// again); and it merges the segments only when they are more than
// compactAbove (a whole merge at 100k records took 0.44 to 0.53 s and
// 171 MB, after every pull a hook could not read at once).
func CatchUp(ctx context.Context, s *store.Store, tok Tokenizer, background bool) (*Snapshot, error) {
	if err := os.MkdirAll(indexDir(s), store.DirMode); err != nil {
		return nil, err
	}
	unlock, ok := tryLock(catchUpLock(s.Dir))
	if !ok && background {
		return nil, nil
	}
	if ok {
		defer unlock()
	}
	if background {
		select {
		case <-time.After(time.Duration(racyWindow)):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// A hook that publishes while this runs (a prompt, a capture) wins:
	// the index is then what it wrote, and this one tries again from it.
	var snap *Snapshot
	var err error
	for range catchUpTries {
		o := SnapshotOptions{Tokenizer: tok, CompactAbove: 1}
		if background {
			o.CompactAbove = compactAbove
		}
		snap, err = Open(ctx, s, o)
		if err != nil || !snap.lost {
			break
		}
	}
	return snap, err
}

// CatchingUp reports whether a CatchUp is at work on the store at
// storeDir (it holds the lock): a hook that finds itself behind then
// starts none, rather than one more process each prompt while the index
// is read.
func CatchingUp(storeDir string) bool {
	path := catchUpLock(storeDir)
	if _, err := os.Stat(path); err != nil {
		return false // never started here
	}
	unlock, ok := tryLock(path)
	if ok {
		unlock()
	}
	return !ok
}

// catchUpLock is the file CatchUp holds locked while it works.
func catchUpLock(storeDir string) string { return filepath.Join(indexDirOf(storeDir), "catchup") }

// compactAbove is how many segments a background CatchUp leaves as they
// are: a reader opens and resolves each one (an index left in many files
// by prompts catching up a fresh 100k clone took a prompt 23 ms, against
// 10.7 ms in one file).
const compactAbove = 8

// catchUpTries bounds CatchUp's attempts: a store written to without
// pause is left to the next hook that finds it behind.
const catchUpTries = 3
