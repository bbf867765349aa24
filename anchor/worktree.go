package anchor

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"lore/gitrepo"
)

// current is each distinct path's object ID in the working tree now (""
// if there is no file), from the cache while a file's stat is what it
// was, else from git. A path that is neither a regular file nor a
// directory (a symbolic link, a device, a named pipe), or that a
// symbolic link leads to (see leadingLink), is never hashed: git would
// read through it (a link to /dev/zero reads until the timeout), and its
// content is not the anchored file's anyway.
func (k *Checker) current(ctx context.Context, paths []string) []fileEntry {
	cur := make([]fileEntry, len(paths))
	infos := k.stat(paths)
	var hash, links []int
	// A file modified this close to the cache's writing may have changed
	// again within the same timestamp tick (git's "racy clean").
	racy := k.c.written.Add(-2 * time.Second).UnixNano()
	for i, p := range paths {
		fi := infos[i].fi
		switch {
		case infos[i].under != "":
			// Before the cache: a directory moved elsewhere and linked
			// back keeps its files' stats, but git no longer sees them.
			cur[i] = fileEntry{mtime: fi.ModTime().UnixNano(), other: "under the symbolic link " + infos[i].under}
		case fi == nil:
		case fi.IsDir():
			// A submodule, checked out or not, or a file replaced by a
			// directory: git's index tells.
			links = append(links, i)
		case !fi.Mode().IsRegular():
			cur[i] = fileEntry{mtime: fi.ModTime().UnixNano(), other: notFile(fi.Mode())}
		default:
			e := fileEntry{mtime: fi.ModTime().UnixNano(), size: fi.Size(), ino: gitrepo.Inode(fi)}
			if c, ok := k.c.file(p); ok && c.mtime == e.mtime && c.size == e.size && c.ino == e.ino && e.mtime < racy {
				cur[i] = c
				continue
			}
			cur[i] = e
			hash = append(hash, i)
		}
	}
	if len(hash) > 0 {
		names := make([]string, len(hash))
		for j, i := range hash {
			names[j] = paths[i]
		}
		ids := k.hashWorktree(ctx, names)
		for j, i := range hash {
			cur[i].id = ids[j]
			if ids[j] == "" || ids[j] == unknown {
				continue // vanished, or unread: nothing to keep for the next check
			}
			k.c.set(fileKey(paths[i]), cur[i].value())
			k.dirty = true
		}
	}
	for _, i := range links {
		id, err := k.gitlink(ctx, paths[i])
		if err != nil {
			id = unknown
		}
		cur[i] = fileEntry{id: id, link: true}
	}
	return cur
}

// notFile names what a path that is not a regular file is, for a clause.
func notFile(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// pathStat is what stat found at a path.
type pathStat struct {
	fi    os.FileInfo // the path's own stat (nil: not there); under a link, the link's
	under string      // the leading directory that is a symbolic link, or ""
}

// stat stats each path in the working tree, on every core for a long
// list: lore stale stats every anchored file. A symbolic link is not
// followed, the path's own or a leading directory's (see leadingLink): it
// is the link that git tracks.
func (k *Checker) stat(paths []string) []pathStat {
	out := make([]pathStat, len(paths))
	// Directories first, here: each once, after the one holding it, with
	// no lock on the memo (workers sharing one spent more on the lock than
	// on the stats).
	dirs := make(map[string]dirLink, 8)
	for i, p := range paths {
		if j := strings.LastIndexByte(p, '/'); j > 0 {
			if l := k.leadingLink(p[:j], dirs); l.dir != "" {
				out[i] = pathStat{fi: l.fi, under: l.dir}
			}
		}
	}
	workers := 1
	if len(paths) >= 512 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(paths); i += workers {
				if out[i].under != "" {
					continue
				}
				if fi, err := os.Lstat(filepath.Join(k.Root, filepath.FromSlash(paths[i]))); err == nil {
					out[i].fi = fi
				}
			}
		})
	}
	wg.Wait()
	return out
}

// dirLink is what leadingLink found on the way to a directory.
type dirLink struct {
	dir  string      // the first directory that is a symbolic link, or ""
	fi   os.FileInfo // its stat
	none bool        // a directory on the way is not there (or is a file): nor is anything under it
}

// leadingLink is the first directory on the way to dir, dir included,
// that is a symbolic link. git does not look through such a link (git
// add refuses a path "beyond a symbolic link"): a file under it is not in
// the tree git tracks, and what the link leads to may be anything
// (outside the repository, a tree of named pipes), so nothing is read
// through it, not even the file's stat. A path is never anchored through
// a link (Resolve refuses it), so one on the way is a change.
//
// Each directory is statted once per check, top down, however many paths
// share it, and each path looks up its own directory alone: the prompt
// hook pays a stat per directory, not per path and directory.
func (k *Checker) leadingLink(dir string, memo map[string]dirLink) dirLink {
	if l, ok := memo[dir]; ok {
		return l
	}
	var l dirLink
	if j := strings.LastIndexByte(dir, '/'); j > 0 {
		l = k.leadingLink(dir[:j], memo)
	}
	if l.dir == "" && !l.none {
		fi, err := os.Lstat(filepath.Join(k.Root, filepath.FromSlash(dir)))
		switch {
		case err != nil:
			l.none = true
		case fi.Mode()&os.ModeSymlink != 0:
			l = dirLink{dir: dir, fi: fi}
		case fi.Mode().IsRegular():
			l.none = true // a file where the directory was
		}
	}
	memo[dir] = l
	return l
}

// hashWorktree is the object ID of each file's content now, as hashFiles
// gives it, with "" for a file that went since it was statted and unknown
// for one git could not hash. git hash-object stops at the first path it
// cannot open (a file made unreadable, or deleted since its stat), and
// Run returns none of the IDs it printed before: a failed batch is asked
// again without the paths that cannot be opened now, so that one such
// file leaves the others' answers known. A batch that fails costs a
// round of opens and a git per round, each round dropping at least one
// path; one that does not fail costs nothing more.
func (k *Checker) hashWorktree(ctx context.Context, paths []string) []string {
	ids := make([]string, len(paths))
	todo := make([]int, len(paths)) // indexes into paths, still to hash
	for i := range todo {
		todo[i] = i
	}
	for len(todo) > 0 {
		names := make([]string, len(todo))
		for j, i := range todo {
			names[j] = paths[i]
		}
		got, err := k.hashFiles(ctx, names, false)
		if err == nil {
			for j, i := range todo {
				ids[i] = got[j]
			}
			return ids
		}
		if ctx.Err() != nil || gitrepo.ExitCode(err) == 0 {
			break // no answer (a deadline, no git), not a refused path: none is known
		}
		var rest []int
		for _, i := range todo {
			switch err := k.openable(paths[i]); {
			case err == nil:
				rest = append(rest, i)
			case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
				ids[i] = "" // gone since its stat
			default:
				ids[i] = unknown
			}
		}
		if len(rest) == len(todo) {
			break // no path to blame: git failed for another reason, and would again
		}
		todo = rest
	}
	for _, i := range todo {
		ids[i] = unknown
	}
	return ids
}

// errNotFile is a path that is no longer a regular file when hashing it
// failed: it was replaced since its stat, and is left to the next check.
var errNotFile = errors.New("not a regular file")

// openable is why git cannot open the file at path to hash it, or nil.
// Only a regular file is opened: one replaced since its stat by a named
// pipe would hold the open until a writer came.
func (k *Checker) openable(path string) error {
	name := filepath.Join(k.Root, filepath.FromSlash(path))
	fi, err := os.Lstat(name)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errNotFile
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	return f.Close()
}
