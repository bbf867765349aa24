package gitrepo

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"lore/internal/mmapfile"
)

// IndexEntry is what git's index records of one tracked file: enough to
// tell, as git does, whether the file on disk may differ from it.
type IndexEntry struct {
	Size      uint32 // the file's size, truncated to 32 bits as git keeps it
	MtimeSec  uint32
	MtimeNsec uint32
	Ino       uint32 // truncated to 32 bits, as git keeps it
	// Unchanged: git does not look at the file on disk (assume-unchanged
	// or skip-worktree), so it counts as unchanged whatever it holds.
	Unchanged bool
	// Recheck: the stat data says nothing (a conflict, or a file added
	// with git add -N): only git can say what changed.
	Recheck bool
}

// GitIndex is the part of a repository's index (.git/index) under one
// directory, and when the index was written: a file modified in the same
// tick may look unchanged by its stat data and is not (git's "racy
// clean"), so a caller asks git about it.
type GitIndex struct {
	Entries      map[string]IndexEntry // by path below the prefix read
	WrittenMtime int64                 // the index file's mtime, in nanoseconds
	// Tree is the object ID of the tree the whole index would write, from
	// its cache: "" when git has not worked it out since the index last
	// changed. Equal to HEAD's (Repo.HeadTree), nothing is staged.
	Tree string
}

// ErrIndexFormat means the index is in a form ReadIndex does not read
// (split or sparse, or a version it does not know): the caller asks git.
var ErrIndexFormat = errors.New("git index in a form lore does not read")

// ReadIndex reads the entries of the worktree's index whose paths start
// with prefix (a directory from the top of the worktree, ending in "/"),
// by their paths below it. Versions 2 to 4 are read; a split index (its
// entries are in another file) or a sparse one (a directory may stand for
// its files) is ErrIndexFormat. A missing index is an empty one, as
// before git add.
func ReadIndex(r *Repo, prefix string) (*GitIndex, error) {
	return readIndex(r, prefix, nil)
}

// ReadIndexOf is ReadIndex with the entries of the named paths below
// prefix alone: a caller that asks after a few files does not pay for a
// map of every other (parsing 20k entries under .lore/ into one took 5.7
// ms; the walk alone is what a few files cost).
func ReadIndexOf(r *Repo, prefix string, names []string) (*GitIndex, error) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	return readIndex(r, prefix, want)
}

func readIndex(r *Repo, prefix string, want map[string]bool) (*GitIndex, error) {
	// Stat'ed before it is read: if git writes it in between, the older
	// time makes more files look racy, which only asks git about more.
	path := filepath.Join(r.GitDir, "index")
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return &GitIndex{Entries: map[string]IndexEntry{}}, nil
	}
	if err != nil {
		return nil, err
	}
	hashSize := r.hashSize()
	var idx *GitIndex
	// Mapped, not copied: at 100k records the index is 2.2 MB, which a
	// copy pays for in page faults, and the entries kept are copies.
	err = mmapfile.Read(path, func(data []byte) (err error) {
		idx, err = parseIndexOf(data, hashSize, prefix, want)
		return err
	})
	if err != nil {
		return nil, err
	}
	idx.WrittenMtime = fi.ModTime().UnixNano()
	return idx, nil
}

// hashSize is the length of an object ID in this repository: 32 bytes
// when its config says objectformat = sha256, else SHA-1's 20.
func (r *Repo) hashSize() int {
	data, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if err != nil {
		return 20
	}
	c := gitconfig.New()
	if gitconfig.NewDecoder(bytes.NewReader(data)).Decode(c) == nil &&
		strings.EqualFold(c.Section("extensions").Option("objectformat"), "sha256") {
		return 32
	}
	return 20
}

// Index entry flags, as git's Documentation/gitformat-index.txt lays them.
const (
	flagAssumeValid  = 0x8000
	flagExtended     = 0x4000
	flagStage        = 0x3000
	flagNameMask     = 0x0fff
	flagSkipWorktree = 0x4000 // in the extended flags
	flagIntentToAdd  = 0x2000 // in the extended flags
)

// parseIndex reads an index file's entries under prefix.
func parseIndex(data []byte, hashSize int, prefix string) (*GitIndex, error) {
	return parseIndexOf(data, hashSize, prefix, nil)
}

// parseIndexOf is parseIndex with only the entries whose paths below
// prefix want holds (nil: all).
func parseIndexOf(data []byte, hashSize int, prefix string, want map[string]bool) (*GitIndex, error) {
	var n uint32
	if len(data) >= 12 {
		n = binary.BigEndian.Uint32(data[8:])
	}
	if want != nil {
		n = uint32(len(want))
	}
	idx := &GitIndex{Entries: make(map[string]IndexEntry, min(n, 1<<16))}
	var err error
	idx.Tree, err = walkIndex(data, hashSize, func(name []byte, e rawEntry) {
		if !bytes.HasPrefix(name, []byte(prefix)) {
			return
		}
		if rel := name[len(prefix):]; want == nil || want[string(rel)] {
			idx.Entries[string(rel)] = e.entry()
		}
	})
	if err != nil {
		return nil, err
	}
	return idx, nil
}

// walkIndex calls visit with each entry of an index file, in git's order
// (by path), and returns the object ID of the tree the whole index would
// write, from its cache-tree extension: "" when git has not computed it
// since the index last changed. It checks every length against the data,
// so a damaged file is an error, never a panic. name is reused between
// calls.
func walkIndex(data []byte, hashSize int, visit func(name []byte, e rawEntry)) (tree string, err error) {
	bad := func(what string) error { return fmt.Errorf("git index: %s", what) }
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return "", bad("no DIRC header")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return "", fmt.Errorf("%w: version %d", ErrIndexFormat, version)
	}
	n := binary.BigEndian.Uint32(data[8:])
	// Each entry: ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid,
	// gid, size (4 bytes each), the object ID, 2 bytes of flags.
	fixed := 40 + hashSize + 2
	off := 12
	var name []byte // the previous entry's path (version 4 compresses by it)
	for i := uint32(0); i < n; i++ {
		start := off
		if len(data)-off < fixed {
			return "", bad("entry past the end")
		}
		e := data[off:]
		flags := binary.BigEndian.Uint16(e[fixed-2:])
		off += fixed
		var ext uint16
		if flags&flagExtended != 0 {
			if version < 3 || len(data)-off < 2 {
				return "", bad("extended flags out of place")
			}
			ext = binary.BigEndian.Uint16(data[off:])
			off += 2
		}
		if version == 4 {
			strip, used := binary.Uvarint(data[off:])
			if used <= 0 || strip > uint64(len(name)) {
				return "", bad("bad path prefix")
			}
			off += used
			end := bytes.IndexByte(data[off:], 0)
			if end < 0 {
				return "", bad("path past the end")
			}
			name = append(name[:len(name)-int(strip)], data[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(data[off:], 0)
			if end < 0 {
				return "", bad("path past the end")
			}
			name = append(name[:0], data[off:off+end]...)
			// Padded with 1 to 8 NULs to a multiple of 8 bytes.
			off = start + (off-start+end+8)&^7
			if off > len(data) {
				return "", bad("entry past the end")
			}
		}
		if int(flags&flagNameMask) != min(len(name), flagNameMask) {
			return "", bad("path length does not match its flags")
		}
		visit(name, rawEntry{e, flags, ext})
	}
	// Extensions follow the entries, each a 4-byte signature and a size,
	// before the trailing checksum. A split index ("link") keeps most
	// entries in a shared file; a sparse one ("sdir") lists directories.
	for len(data)-off >= 8+hashSize {
		sig := string(data[off : off+4])
		size := binary.BigEndian.Uint32(data[off+4:])
		if sig == "link" || sig == "sdir" {
			return "", fmt.Errorf("%w: %q extension", ErrIndexFormat, sig)
		}
		if uint64(size) > uint64(len(data)-off-8) {
			return "", bad("extension past the end")
		}
		if sig == "TREE" {
			tree = rootTree(data[off+8:off+8+int(size)], hashSize)
		}
		off += 8 + int(size)
	}
	return tree, nil
}

// rawEntry is one index entry as stored: its fixed fields and flags.
type rawEntry struct {
	b          []byte
	flags, ext uint16
}

func (e rawEntry) field(at int) uint32 { return binary.BigEndian.Uint32(e.b[at:]) }

// mode is the file's type and permissions as git records them: 0o100644,
// 0o100755, 0o120000 for a symbolic link, 0o160000 for a submodule.
func (e rawEntry) mode() uint32 { return e.field(24) }

// ctime is the entry's inode change time in nanoseconds, truncated as git
// keeps it.
func (e rawEntry) ctime() (sec, nsec uint32) { return e.field(0), e.field(4) }

func (e rawEntry) entry() IndexEntry {
	return IndexEntry{
		MtimeSec:  e.field(8),
		MtimeNsec: e.field(12),
		Ino:       e.field(20),
		Size:      e.field(36),
		Unchanged: e.flags&flagAssumeValid != 0 || e.ext&flagSkipWorktree != 0,
		Recheck:   e.flags&flagStage != 0 || e.ext&flagIntentToAdd != 0,
	}
}

// rootTree reads the first entry of a cache-tree extension, the whole
// index's: its path (empty) and a NUL, "ENTRIES SUBTREES\n", then, unless
// ENTRIES is -1 (invalidated since), the tree's object ID.
func rootTree(ext []byte, hashSize int) string {
	head, rest, ok := bytes.Cut(ext, []byte("\n"))
	counts, found := bytes.CutPrefix(head, []byte{0})
	if !ok || !found || len(rest) < hashSize || bytes.HasPrefix(counts, []byte("-")) {
		return ""
	}
	return hex.EncodeToString(rest[:hashSize])
}

// MayDiffer reports whether a file whose lstat gave size, mtime (in
// nanoseconds) and inode may differ from what the index holds for it, by
// git's own test: different stat data, or a file modified no earlier than
// the index was written, whose change a coarse timestamp could hide.
func (g *GitIndex) MayDiffer(e IndexEntry, size, mtime int64, ino uint64) bool {
	if e.Unchanged {
		return false
	}
	if e.Recheck || uint32(size) != e.Size || uint32(ino) != e.Ino ||
		uint32(mtime/1e9) != e.MtimeSec || uint32(mtime%1e9) != e.MtimeNsec {
		return true
	}
	return mtime >= g.WrittenMtime
}
