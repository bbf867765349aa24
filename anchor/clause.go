package anchor

import (
	"context"
	"fmt"
	"path"
	"strings"

	"lore/record"
)

// Records checks the anchors of recs and returns the states of each
// anchored record, by ID.
func (k *Checker) Records(ctx context.Context, recs []*record.Record) map[string][]State {
	var anchors []record.Anchor
	for _, r := range recs {
		anchors = append(anchors, r.Anchors...)
	}
	if len(anchors) == 0 {
		return nil
	}
	states := k.Check(ctx, anchors)
	out := map[string][]State{}
	for _, r := range recs {
		n := len(r.Anchors)
		if n > 0 {
			out[r.ID], states = states[:n:n], states[n:]
		}
	}
	return out
}

// AllGone reports whether none of a record's anchored code is left.
func AllGone(states []State) bool {
	for _, s := range states {
		if s.Status != Gone {
			return false
		}
	}
	return len(states) > 0
}

// Clause says in a few words how a record's anchored code has moved on,
// for a heading: "invoice.go changed since, 41 lines"; "" while all of it
// is fresh. Files are named by their base names; at most two are named.
func Clause(states []State) string {
	var parts []string
	named := map[string]bool{} // files said something of
	more := map[string]bool{}  // stale files left unnamed
	for _, s := range states {
		if !s.Stale() {
			continue
		}
		switch {
		case len(parts) < 2:
			parts = append(parts, s.describe(shortNames(s.Anchor.Path, s.Path)))
			named[s.Anchor.Path] = true
		case !named[s.Anchor.Path]:
			more[s.Anchor.Path] = true
		}
	}
	switch len(more) {
	case 0:
	case 1:
		parts = append(parts, "1 more file changed")
	default:
		parts = append(parts, fmt.Sprintf("%d more files changed", len(more)))
	}
	return strings.Join(parts, "; ")
}

// shortNames names a file and where it is now by their base names, as a
// clause does, unless those are one name: a move between directories
// (common/maps/maps.go to common/hmaps/maps.go) read "maps.go moved to
// maps.go". Then it names the directories from where they part.
func shortNames(was, now string) (string, string) {
	a, b := path.Base(was), path.Base(now)
	if a != b || was == now {
		return a, b
	}
	wd, nd := strings.Split(path.Dir(was), "/"), strings.Split(path.Dir(now), "/")
	i := 0
	for i < len(wd) && i < len(nd) && wd[i] == nd[i] {
		i++
	}
	return path.Join(append(wd[i:], a)...), path.Join(append(nd[i:], b)...)
}

// Describe is the state in words, naming files by their full paths.
func (s State) Describe() string { return s.describe(s.Anchor.String(), s.Path) }

func (s State) describe(name, now string) string {
	switch s.Status {
	case Fresh:
		return name + " unchanged"
	case Gone:
		return name + " gone"
	case Unchecked:
		return name + " " + s.reason()
	case Moved:
		switch {
		case s.other != "":
			return name + " moved to " + now + ", now " + s.other
		case s.id == unknown:
			return name + " moved to " + now + ", " + unread
		case s.id == "":
			return name + " moved to " + now
		}
		return name + " moved to " + now + " and changed" + s.Lines.amount(s.Anchor)
	}
	if s.other != "" {
		// git tracks a link as the path it holds: the file's content is gone.
		return name + " changed since: it is now " + s.other
	}
	return name + " changed since" + s.Lines.amount(s.Anchor)
}

// unread says why an anchor's state is not known.
const unread = "not checked: git gave no answer for it"

// amount is ", 41 lines" or ", 3 lines in 10-20 (41 in all)", why the
// change was not counted when the clone lacks what it was anchored to
// (never committed, or pruned: lore anchor asks for the lines), or "".
func (l Lines) amount(a record.Anchor) string {
	switch {
	case l.Lost:
		return ", not counted: the anchored content is not in this clone"
	case !l.Known:
		return ""
	case l.Binary:
		return " (binary)"
	case !a.HasLines():
		return fmt.Sprintf(", %d %s", l.Total(), plural(l.Total(), "line"))
	case l.InRange == 0 && l.NowStart > 0 && l.NowStart != a.Start:
		// The anchored lines are as they were, elsewhere: lore anchor
		// follows them.
		return fmt.Sprintf(", outside lines %d-%d (%d %s; they are now %d-%d)", a.Start, a.End, l.Elsewhere, plural(l.Elsewhere, "line"), l.NowStart, l.NowEnd)
	case l.InRange == 0:
		return fmt.Sprintf(", outside lines %d-%d (%d %s)", a.Start, a.End, l.Elsewhere, plural(l.Elsewhere, "line"))
	}
	return fmt.Sprintf(", %d %s in %d-%d, %d in all", l.InRange, plural(l.InRange, "line"), a.Start, a.End, l.Total())
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Mentioned reports whether words (PathWords of a prompt) name a file
// one of anchors is on: its path, a tail of it (invoice.go,
// billing/invoice.go) or a directory above it (internal/billing).
func Mentioned(anchors []record.Anchor, words []string) bool {
	for _, a := range anchors {
		for _, w := range words {
			w = strings.TrimSuffix(w, "/")
			if a.Path == w || strings.HasSuffix(a.Path, "/"+w) || strings.HasPrefix(a.Path, w+"/") {
				return true
			}
		}
	}
	return false
}
