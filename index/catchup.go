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
	if err := makeIndexDir(indexDir(s, tok)); err != nil {
		return nil, err
	}
	// One at a time, but for one that holds the lock and makes no
	// heartbeat (stopped, or hung): this one does its work.
	lock := catchUpLock(s.Dir, tok)
	if unlock, ok := tryLock(lock); ok {
		defer unlock()
	} else if background && !stalled(lock) {
		return nil, nil
	}
	defer heartbeat(lock)()
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
// storeDir: it holds the lock and its heartbeat is fresh. A hook that
// finds itself behind then starts none, rather than one more process each
// prompt while the index is read, and leaves the index to it. One that
// holds the lock without a heartbeat (stopped, or hung on a file system)
// is not at work: prompts that deferred to it brought the index forward
// never (new-user run 28); the next catch-up a hook starts does its work.
func CatchingUp(storeDir string, tok Tokenizer) bool {
	path := catchUpLock(storeDir, tok)
	if stalled(path) {
		return false // or never started here
	}
	unlock, ok := tryLock(path)
	if ok {
		unlock()
	}
	return !ok
}

// stalled reports whether the catch-up lock at path has had no heartbeat
// for catchUpStalled (or does not exist).
func stalled(path string) bool {
	fi, err := os.Stat(path)
	return err != nil || time.Since(fi.ModTime()) > catchUpStalled
}

// heartbeat touches the lock file at path every heartbeatEvery until the
// returned func is called, so that CatchingUp can tell a catch-up at work
// from one that holds the lock and does nothing.
func heartbeat(path string) (stop func()) {
	// A write moves the mtime with write access alone; explicit times
	// (os.Chtimes) need the file's owner: in a checkout shared by a
	// group, a catch-up run by another user than the lock file's could
	// not heartbeat and looked stalled from its first second (new-user
	// run 29). The lock is advisory: its one byte says nothing.
	beat := func() {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			_, _ = f.WriteAt([]byte{0}, 0)
			f.Close()
		}
	}
	beat()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				beat()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

// heartbeatEvery and catchUpStalled: a catch-up touches its lock file
// every second; one untouched for ten is taken for stopped (vars for
// tests).
var (
	heartbeatEvery = time.Second
	catchUpStalled = 10 * time.Second
)

// catchUpLock is the file CatchUp holds locked while it works.
func catchUpLock(storeDir string, tok Tokenizer) string {
	return filepath.Join(indexDirOf(storeDir, tok), "catchup")
}

// compactAbove is how many segments a background CatchUp leaves as they
// are: a reader opens and resolves each one (an index left in many files
// by prompts catching up a fresh 100k clone took a prompt 23 ms, against
// 10.7 ms in one file).
const compactAbove = 8

// catchUpTries bounds CatchUp's attempts: a store written to without
// pause is left to the next hook that finds it behind.
const catchUpTries = 3
