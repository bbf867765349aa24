package anchor

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Lines is how much of a file changed since it was anchored.
type Lines struct {
	Known     bool // both contents were at hand and compared
	Lost      bool // not Known: the anchored content is not in this clone's object database
	Binary    bool // one of them is binary: no lines to count
	InRange   int  // lines changed inside the anchored range
	Elsewhere int  // lines changed outside it (all of them, without a range)
	// NowStart-NowEnd is the anchored range where its lines are in the
	// file now, shifted by the lines added and removed above it and
	// within it; both 0 without a range, or when every line of it went.
	NowStart, NowEnd int
}

// Total is every line changed.
func (l Lines) Total() int { return l.InRange + l.Elsewhere }

// A hunk is one run of changes: old lines [start, start+del) replaced by
// add new lines (for a pure insertion, start is the old line it follows,
// plus one).
type hunk struct{ start, del, add int }

// diffTimeout bounds one comparison; past it the diff library answers
// with a coarser (still correct) set of changes.
const diffTimeout = 200 * time.Millisecond

// count fills in the Lines of changed and moved-and-changed states, from
// the cache or by comparing the anchored content (read from git's object
// database in one cat-file process) with the file in the working tree,
// as git would store it.
func (k *Checker) count(ctx context.Context, states []State) {
	// Anchors that name the same content share one count: look each
	// pair of object IDs up once.
	type pair struct{ blob, id string }
	type count struct {
		enc    string // the changes, as encodeHunks writes them
		cached bool
	}
	encs := map[pair]count{}
	var want []string
	for _, st := range states {
		p := pair{st.Anchor.Blob, st.id}
		if _, done := encs[p]; done || st.id == "" || st.id == unknown || st.link {
			continue
		}
		enc, ok := k.c.get(diffKey(p.blob, p.id))
		if !ok {
			want = append(want, p.blob)
		}
		encs[p] = count{enc, ok}
	}
	old := k.objects(ctx, want)
	for i := range states {
		st := &states[i]
		if st.id == "" || st.id == unknown || st.link {
			continue
		}
		p := pair{st.Anchor.Blob, st.id}
		c := encs[p]
		if !c.cached {
			before, found := old[p.blob]
			if !found {
				// Not in this clone (git said so; nil is git failing):
				// uncountable, and not cached, as a fetch may bring it.
				st.Lines.Lost = old != nil
				continue
			}
			after, ok := k.clean(st.Path, p.id)
			if !ok {
				continue
			}
			c = count{encodeHunks(compare(before, after)), true}
			encs[p] = c
			k.c.set(diffKey(p.blob, p.id), c.enc)
			k.dirty = true
		}
		st.Lines = linesOf(c.enc, st.Anchor.Start, st.Anchor.End)
	}
}

// clean is the file at path as git would store it, the content whose
// object ID is id: the anchored content is compared with that, not with
// the file's bytes, which differ in a repository that checks text out
// with CRLF line ends (eol=crlf, core.autocrlf) while git stores LF. The
// one conversion done here is git's end-of-line one, and the result is
// checked against id; false for a file that reads as another content
// (another conversion, or a file changed since it was hashed): that
// change is not counted rather than counted wrong.
func (k *Checker) clean(path, id string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(k.Root, filepath.FromSlash(path)))
	if err != nil {
		return "", false
	}
	data := string(b)
	if objectID(data, id) == id {
		return data, true
	}
	if lf := strings.ReplaceAll(data, "\r\n", "\n"); lf != data && objectID(lf, id) == id {
		return lf, true
	}
	return "", false
}

// objectID is git's ID of a blob holding data, in the hash like's length
// says (SHA-1, or SHA-256 for a repository that uses it).
func objectID(data, like string) string {
	var h hash.Hash = sha1.New()
	if len(like) == 64 {
		h = sha256.New()
	}
	io.WriteString(h, "blob "+strconv.Itoa(len(data))+"\x00")
	io.WriteString(h, data)
	return hex.EncodeToString(h.Sum(nil))
}

// compare lists the changes from before to after, or nil and false if
// either is binary. Each run of added lines, and each of removed lines,
// stands as far down as the same lines allow (see slideDown).
func compare(before, after string) ([]hunk, bool) {
	if binary([]byte(before)) || binary([]byte(after)) {
		return nil, false
	}
	ops := lineOps(diff.DoWithTimeout(before, after, diffTimeout))
	slideDown(ops)
	var hs []hunk
	line := 1 // the next old line
	var cur *hunk
	for _, o := range ops {
		switch o.op {
		case diffmatchpatch.DiffEqual:
			line++
			cur = nil
			continue
		case diffmatchpatch.DiffDelete:
			if cur == nil {
				hs = append(hs, hunk{start: line})
				cur = &hs[len(hs)-1]
			}
			cur.del++
			line++
		case diffmatchpatch.DiffInsert:
			if cur == nil {
				hs = append(hs, hunk{start: line})
				cur = &hs[len(hs)-1]
			}
			cur.add++
		}
	}
	return hs, true
}

// lineOp is one line of a diff: kept, removed or added.
type lineOp struct {
	op   diffmatchpatch.Operation
	text string
}

func lineOps(ds []diffmatchpatch.Diff) []lineOp {
	var ops []lineOp
	for _, d := range ds {
		for l := range strings.SplitAfterSeq(d.Text, "\n") {
			if l != "" {
				ops = append(ops, lineOp{d.Type, l})
			}
		}
	}
	return ops
}

// slideDown moves each run of only added, or only removed, lines down
// while the line after it is the run's first (the same change, read one
// line lower), as git does before its indent heuristic: a function added
// after another was read as starting at that one's closing brace, and the
// anchored function above counted the whole new one as changed in it
// (moby: 19 lines in a range git leaves untouched).
func slideDown(ops []lineOp) {
	for i := 0; i < len(ops); {
		if ops[i].op == diffmatchpatch.DiffEqual {
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].op == ops[i].op {
			j++
		}
		if i > 0 && ops[i-1].op != diffmatchpatch.DiffEqual {
			i = j // part of a replacement: left as it is
			continue
		}
		for j < len(ops) && ops[j].op == diffmatchpatch.DiffEqual && ops[j].text == ops[i].text {
			ops[i].op, ops[j].op = diffmatchpatch.DiffEqual, ops[i].op
			i++
			j++
		}
		i = j
	}
}

// encodeHunks writes hunks as "start,del,add;…", or "binary".
func encodeHunks(hs []hunk, text bool) string {
	if !text {
		return "binary"
	}
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = strconv.Itoa(h.start) + "," + strconv.Itoa(h.del) + "," + strconv.Itoa(h.add)
	}
	return strings.Join(parts, ";")
}

// linesOf counts the changes in enc against the range start-end (none: 0).
//
// A hunk that replaces del old lines with add new ones is read line by
// line: its first min(del, add) lines are each one line changed in place,
// the rest removed (del > add) or added after the last old line (add >
// del). So a hunk that straddles the range counts in it only the lines of
// the range it changed, not the whole hunk (sed on lines 1-10 changes 4
// lines of 5-8, not 10).
func linesOf(enc string, start, end int) Lines {
	if enc == "binary" {
		return Lines{Known: true, Binary: true}
	}
	l := Lines{Known: true}
	hs := decodeHunks(enc)
	for _, h := range hs {
		n := max(h.del, h.add)
		in := 0
		if start > 0 {
			// Old lines changed or removed inside the range.
			in = max(0, min(end, h.start+h.del-1)-max(start, h.start)+1)
			// Lines added beyond the old ones go in at line at (before
			// old line at): inside when between two anchored lines, or
			// right after a changed last line, which the range follows
			// (see newLine).
			if at := h.start + h.del; h.add > h.del && (at > start && at <= end || h.del > 0 && at == end+1) {
				in += h.add - h.del
			}
		}
		l.InRange += in
		l.Elsewhere += n - in
	}
	if start > 0 {
		l.NowStart, l.NowEnd = newLine(hs, start, false), newLine(hs, end, true)
		if l.NowEnd < l.NowStart { // every line of the range was removed
			l.NowStart, l.NowEnd = 0, 0
		}
	}
	return l
}

// decodeHunks reads what encodeHunks wrote (not "binary"), in order.
func decodeHunks(enc string) []hunk {
	var hs []hunk
	for _, p := range strings.Split(enc, ";") {
		f := strings.Split(p, ",")
		if len(f) != 3 {
			continue
		}
		var h hunk
		h.start, _ = strconv.Atoi(f[0])
		h.del, _ = strconv.Atoi(f[1])
		h.add, _ = strconv.Atoi(f[2])
		hs = append(hs, h)
	}
	return hs
}

// newLine is where old line n is in the new file, given the hunks in
// order. Inside a hunk, lines are paired in order (see linesOf): a line
// changed in place maps to its new self. The last old line of a hunk,
// with last (the end of a range), maps to the hunk's last new line, so
// that lines added after it stay in the range; a line removed with
// nothing in its place maps to the line after what replaced its hunk, or
// with last, the one before.
func newLine(hs []hunk, n int, last bool) int {
	shift := 0
	for _, h := range hs {
		switch {
		case h.del == 0 && h.start <= n, h.del > 0 && h.start+h.del-1 < n:
			shift += h.add - h.del // wholly above line n
		case h.del > 0 && h.start <= n: // line n is in this hunk
			at, o := h.start+shift, n-h.start // where the hunk's new lines start; n's place in it
			switch {
			case last && (o == h.del-1 || o >= h.add):
				return at + h.add - 1
			case o < h.add:
				return at + o
			}
			return at + h.add
		default:
			return n + shift
		}
	}
	return n + shift
}

// objects reads the contents of ids from git's object database, in one
// process; an ID git does not have is left out, and nil means git failed.
func (k *Checker) objects(ctx context.Context, ids []string) map[string]string {
	m := map[string]string{}
	if len(ids) == 0 {
		return m
	}
	out, err := k.git(ctx, strings.Join(ids, "\n")+"\n", "cat-file", "--batch")
	if err != nil {
		return nil
	}
	for out != "" {
		head, rest, ok := strings.Cut(out, "\n")
		if !ok {
			break
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			out = rest // "<id> missing"
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size+1 > len(rest) {
			break
		}
		if f[1] == "blob" {
			m[f[0]] = rest[:size]
		}
		out = rest[size+1:]
	}
	return m
}
