package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/config"
	"lore/gitrepo"
	"lore/kinds"
	"lore/record"
	"lore/secrets"
)

// LocalDir holds what each checkout keeps to itself: the writer ID, the
// lock, caches. It is gitignored.
const LocalDir = ".local"

// IndexDir, under LocalDir, holds the index (package index): derived from
// the shards, one directory in it for each format.
const IndexDir = "index"

// Store is an opened .lore directory.
type Store struct {
	Dir    string // the .lore directory
	Config *config.Config
	// Now is the clock; tests set it, everything else leaves it nil.
	Now func() time.Time
	// Getenv reads git's variables (GIT_AUTHOR_NAME…) for Origin and for
	// the git commands run on the store: the CLI's environment; nil reads
	// none.
	Getenv func(string) string
	// Origin stamps new records; nil means read it from git on first use.
	origin *record.Origin
	// Redacted collects what Append scrubbed, for the command to report.
	Redacted []secrets.Finding
	// NotUTF8 is set when Append wrote a record whose text was not UTF-8:
	// JSONL and TOML hold UTF-8, so each bad byte became U+FFFD.
	NotUTF8 bool
	// Finder, when set, finds a record's shards for Update (the index);
	// without it Update reads every shard of the kind.
	Finder Finder
}

// Open opens the store at dir and reads its config.
func Open(dir string) (*Store, error) {
	if err := Check(dir); err != nil {
		return nil, err
	}
	cfg, err := config.LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	IgnoreLocal(dir)
	return &Store{Dir: dir, Config: cfg}, nil
}

// IgnoreLocal makes the store's .local directory, if there is one, ignore
// itself (a .gitignore of "*" in it). .lore/.gitignore, which names it,
// is tracked: checked out at a commit from before the store (an old tag, a
// bisect), it is gone, and git add -A took the index, the caches and the
// receipts with their prompts. One stat when it is there already.
func IgnoreLocal(dir string) {
	local := filepath.Join(dir, LocalDir)
	ignore := filepath.Join(local, ".gitignore")
	if _, err := os.Lstat(ignore); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if fi, err := os.Lstat(local); err != nil || !fi.IsDir() {
		return
	}
	_, _ = writeNew(ignore, "# lore: this directory is per checkout, never committed\n*\n")
}

// Check says whether dir is a store lore can open, without reading a
// file in it: the hooks ask it of a store they will not read (one the
// user does not trust).
func Check(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w at %s", ErrNoStore, dir)
		}
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w at %s: it is a file, not a directory", ErrNoStore, dir)
	}
	if !looksLikeStore(dir) {
		return fmt.Errorf("%w at %s: it holds neither config.toml nor a directory of records", ErrNoStore, dir)
	}
	return checkLocal(dir)
}

// checkLocal refuses a store whose .local is, or holds at its top or in
// its index directory (one index directory per format), a symbolic link.
// lore writes, replaces and removes files under .local (the lock, the
// index and its cache, sessions, receipts), and git checks a committed
// link out as a link: a clone whose .local/index led to /var would have
// lore remove /var/cache. Files deeper down are replaced by rename or
// removed as links, never followed.
func checkLocal(dir string) error {
	local := filepath.Join(dir, LocalDir)
	fi, err := os.Lstat(local)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &LinkedLocalError{Path: local, Link: fi.Mode()&fs.ModeSymlink != 0}
	}
	entries, err := os.ReadDir(local)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			return &LinkedLocalError{Path: filepath.Join(local, e.Name()), Link: true}
		}
	}
	index := filepath.Join(local, IndexDir)
	entries, _ = os.ReadDir(index) // none yet: nothing to check
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			return &LinkedLocalError{Path: filepath.Join(index, e.Name()), Link: true}
		}
	}
	return nil
}

// LinkedLocalError is a store refused because something under .local that
// lore writes to is a link or not a directory.
type LinkedLocalError struct {
	Path string
	Link bool // a link; else .local is not a directory
}

func (e *LinkedLocalError) Error() string {
	if !e.Link {
		return e.Path + " is not a directory: lore keeps this checkout's own files in it; remove it (lore rebuilds what .local holds)"
	}
	return e.Path + " is a symbolic link: lore writes and removes this checkout's own files under .local, never through a link; remove it (lore rebuilds what .local holds)"
}

// looksLikeStore reports whether dir holds what lore init or a capture
// writes: --dir or LORE_DIR pointed at some other directory (a repository
// root, a typo) must not fill it with lore's directories.
func looksLikeStore(dir string) bool {
	names := []string{"config.toml"}
	for _, k := range record.AllKinds() {
		names = append(names, k.Dir())
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// Clock returns the current time in UTC.
func (s *Store) Clock() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Origin is the author, branch and HEAD that new records are stamped with.
func (s *Store) Origin() record.Origin {
	if s.origin == nil {
		h := gitrepo.ReadHead(filepath.Dir(s.Dir), s.Getenv)
		o := record.Origin{Author: h.Author, Branch: h.Branch, Commit: h.Commit}
		s.origin = &o
	}
	return *s.origin
}

// SetOrigin overrides the git origin (for tests and imports).
func (s *Store) SetOrigin(o record.Origin) { s.origin = &o }

func (s *Store) ensureLocal() error {
	if err := os.MkdirAll(filepath.Join(s.Dir, LocalDir), DirMode); err != nil {
		return err
	}
	IgnoreLocal(s.Dir)
	return nil
}

// Lock takes the store's write lock; call the returned func to release it.
// Every append and every rewrite holds it, so concurrent lore processes
// never interleave or lose lines.
func (s *Store) Lock() (func(), error) {
	if err := s.ensureLocal(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, LocalDir, "lock"), os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking store: %w", err)
	}
	return func() { _ = unlockFile(f); f.Close() }, nil
}

// MonthDir is the layout of the directory a shard is in, under its kind's:
// the month of the records it was started for.
const MonthDir = "2006-01"

// Append scrubs secrets from r, a new record, and writes it to this
// writer's shard: under the store lock, in one write, fsynced before it
// returns. It reads nothing but the shard's last byte, so it costs the
// same at any store size; a handoff also reads this month's handoffs, to
// be dated after the newest (datedAfterNewest).
func (s *Store) Append(r *record.Record) error {
	return s.Transact(func(tx *Tx) error {
		if r.Kind == record.Handoff {
			s.datedAfterNewest(r)
		}
		return tx.Append(r)
	})
}

// appendLocked is Append for a caller holding the lock. If a crash left the
// shard without a final newline, the record starts on a new line so it is
// never glued to the fragment.
func (s *Store) appendLocked(r *record.Record) error {
	_, err := s.appendRecord(r)
	return err
}

// appendRecord is appendLocked, saying where it wrote and the size the
// shard had before, for a transaction to undo it.
func (s *Store) appendRecord(r *record.Record) (appended, error) {
	s.Redacted = append(s.Redacted, secrets.ScrubRecord(r)...)
	s.NotUTF8 = s.NotUTF8 || !r.ValidUTF8()
	if strings.TrimSpace(r.Text) == "" && !r.Purged() {
		return appended{}, ErrAllPrivate
	}
	if err := r.Validate(); err != nil {
		return appended{}, err
	}
	if err := kinds.Check(r); err != nil {
		return appended{}, err
	}
	data, err := r.Marshal()
	if err != nil {
		return appended{}, err
	}
	if len(data) > MaxRecordBytes {
		return appended{}, &TooLargeError{len(data)}
	}
	path, err := s.shardPath(r.Kind, record.Origin{Branch: r.Branch, Commit: r.Commit}, r.Time)
	if err != nil {
		return appended{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
		return appended{}, err
	}
	size, err := appendSynced(path, data)
	return appended{path, size}, err
}

// appended is where an append wrote: the shard and the size it had.
type appended struct {
	path string
	size int64
}

// appendSynced appends data to the shard at path, and returns the size the
// shard had before.
func appendSynced(path string, data []byte) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, FileMode)
	if err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	size := fi.Size()
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil && err != io.EOF {
			f.Close()
			return size, err
		}
		if last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	// A write that fails part way (a full disk, a size limit) would leave
	// a torn line that the next append buries mid-file, past doctor's
	// repair: the shard goes back to the size it had.
	if _, err := f.Write(data); err != nil {
		_ = f.Truncate(size)
		f.Close()
		return size, err
	}
	if err := f.Sync(); err != nil {
		_ = f.Truncate(size)
		f.Close()
		return size, err
	}
	return size, f.Close()
}

// Files lists every shard of the given kinds (all kinds if none).
func (s *Store) Files(kinds ...record.Kind) ([]string, error) {
	if len(kinds) == 0 {
		kinds = record.AllKinds()
	}
	var files []string
	for _, k := range kinds {
		if err := s.CheckKindDir(k); err != nil {
			return nil, err
		}
		root := filepath.Join(s.Dir, k.Dir())
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, os.ErrNotExist) && p == root {
					return filepath.SkipDir
				}
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, k.Ext()) && IsRegular(p, d) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// IsRegular says whether the shard at p is a regular file, or a link to
// one: reading a FIFO or a device named like a shard would hang or never
// end, so readers skip them and doctor reports them.
func IsRegular(p string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// NotDirError is a kind's place in the store taken by something other
// than a directory, such as a file named .lore/journal: none of that
// kind's records can be read, and a reader must say so, not skip them.
type NotDirError struct {
	Path string // relative to the repository
	Kind record.Kind
}

func (e *NotDirError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the error without the path.
func (e *NotDirError) Reason() string {
	return fmt.Sprintf("not a directory, so no %s can be read from it: move it aside", e.Kind)
}

// CheckKindDir returns a *NotDirError when something other than a
// directory is where kind k's shards belong. A missing directory is fine:
// no record of that kind yet.
func (s *Store) CheckKindDir(k record.Kind) error {
	root := filepath.Join(s.Dir, k.Dir())
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return &NotDirError{Path: s.Rel(root), Kind: k}
	}
	return nil
}

// Rel names path relative to the repository (or the store's parent), for
// messages people can click.
func (s *Store) Rel(path string) string {
	if rel, err := filepath.Rel(filepath.Dir(s.Dir), path); err == nil {
		return rel
	}
	return path
}

// Cause is what went wrong with a file, without the path the caller
// already names: "permission denied" of "open x: permission denied".
func Cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
