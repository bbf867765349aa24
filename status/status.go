// Package status says what a store gained that git does not have yet:
// the record versions, by kind, added since the last commit and not yet on
// the upstream branch, and those git would lose (removed from its shards).
package status

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"lore/gitrepo"
	"lore/index"
	"lore/kinds"
	"lore/record"
	"lore/store"
)

// Counts are record versions added, by kind (new records and new versions
// of existing ones), and record versions removed.
type Counts map[record.Kind]*KindCount

// KindCount is one kind's share of Counts.
type KindCount struct {
	New     int `json:"new"`
	Revised int `json:"revised"`
	// Edited are versions changed by hand (lore only appends), which git
	// shows as a line removed and a line added for one version.
	Edited int `json:"edited,omitempty"`
	// Removed are versions git would lose: lines removed from shards (a
	// revert, git rm, a shard deleted or a line edited out) and not put
	// back, as they were or as a newer version of the same record.
	Removed int `json:"removed,omitempty"`
	// Records are the records behind the counts, newest first, once each
	// (in JSON, Status.Records holds them: these counts stay as they were).
	Records []*Change `json:"-"`

	byID map[string]*Change // Records by ID, while counting
}

// ErrNoRepo is a store outside every git repository: there is nothing to
// compare it with.
var ErrNoRepo = errors.New("the store is in no git repository: status compares it with git")

// Status is what the store gained that git does not have yet.
type Status struct {
	Branch      string `json:"branch"`
	Upstream    string `json:"upstream,omitempty"`
	Uncommitted Counts `json:"uncommitted"`          // since the last commit
	Unpushed    Counts `json:"unpushed"`             // not on the upstream branch yet, uncommitted included; nil (null) without one
	NotPulled   Counts `json:"not_pulled,omitempty"` // on the upstream branch since HEAD left it
	Note        string `json:"note,omitempty"`
	// Conflicted are the shards (from the top of the repository) a merge,
	// rebase or cherry-pick left unresolved; their records are counted as
	// the working tree holds them.
	Conflicted []string `json:"conflicted,omitempty"`
	// Records are the records behind each section's counts.
	Records Records `json:"records"`
}

// Records are the records behind the counts of Status's sections, by
// kind as record.AllKinds orders them, then newest first.
type Records struct {
	Uncommitted []*Change `json:"uncommitted"`
	Unpushed    []*Change `json:"unpushed,omitempty"`
	NotPulled   []*Change `json:"not_pulled,omitempty"`
}

// changes are the records behind c's counts, kind by kind.
func (c Counts) changes() []*Change {
	out := []*Change{}
	for _, k := range record.AllKinds() {
		if kc := c[k]; kc != nil {
			out = append(out, kc.Records...)
		}
	}
	return out
}

// Detached reports a HEAD on no branch, which Branch names HEAD as git
// does.
func (st *Status) Detached() bool { return st.Branch == "HEAD" }

// Of says what the store gained that git does not have yet: git's index
// against HEAD and the upstream branch come from git, limited to the
// store's path so a large repository costs nothing extra; the working tree
// against git's index comes from lore's own index (see worktree.go), which
// open reads, so that git never walks the store's shards.
func Of(ctx context.Context, s *store.Store, open func() (*index.Snapshot, error)) (*Status, error) {
	st, err := counts(ctx, s, open)
	if err != nil {
		return nil, err
	}
	st.Records.Uncommitted = st.Uncommitted.changes()
	if st.Unpushed != nil {
		st.Records.Unpushed = st.Unpushed.changes()
	}
	if st.NotPulled != nil {
		st.Records.NotPulled = st.NotPulled.changes()
	}
	return st, nil
}

// counts is Of's counts, by kind.
func counts(ctx context.Context, s *store.Store, open func() (*index.Snapshot, error)) (*Status, error) {
	if _, err := gitrepo.FindRepo(s.Dir, s.Getenv); gitrepo.IsNotRepo(err) {
		return nil, ErrNoRepo
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// Every git command starts at once; they fail harmlessly when there is
	// no upstream. Shards are only appended to, so what is uncommitted is
	// what is staged plus what is not, and what is not yet upstream is the
	// commits since it plus what is uncommitted. Both diffs git runs here
	// are cheap: git's index compares with HEAD through its cached trees
	// (a diff of the working tree with HEAD reads every tree of the store:
	// 68 ms at 100k records against 4). Without HEAD (no commit yet),
	// --cached shows everything staged.
	//
	// The branch is read from .git, as git rev-parse --abbrev-ref HEAD
	// says it: one git process less, on a machine running several at once.
	// Its upstream is named through it: a rebase in progress detaches HEAD,
	// whose @{upstream} is none.
	head := gitrepo.ReadRefs(s.Dir, s.Getenv)
	up := "@{upstream}"
	if head.Branch != "" {
		up = head.Branch + up
	}
	// --text: a repository may mark *.jsonl binary or -diff, and git would
	// only say the files differ. The upstream is compared from where HEAD
	// left it (A...B is B against their merge base): a clone behind its
	// upstream lacks no record of its own there, and what the upstream
	// gained since is counted apart, as not pulled yet.
	run := func(args ...string) func() (string, error) { return gitrepo.Start(ctx, s.Getenv, s.Dir, args...) }
	diff := func(revs ...string) func() (string, error) {
		return run(append(append([]string{"diff", "--no-color", "--text", "-U0"}, revs...), "--", ".")...)
	}
	upstream := run("rev-parse", "--abbrev-ref", "--symbolic-full-name", up)
	staged := diff("--cached")
	sinceUpstream := diff(up + "...HEAD")
	notPulled := diff("HEAD..." + up)

	st := &Status{}
	st.Branch = head.Branch
	if st.Branch == "" && head.Commit != "" {
		st.Branch = "HEAD" // detached
	}
	untracked, notStaged, err := worktree(ctx, s, open)
	if err != nil {
		return nil, err
	}
	index, err := staged()
	if err != nil {
		return nil, err
	}
	// git diffs no unmerged path against its index, only against a
	// commit: what the working tree holds there is compared with HEAD.
	if st.Conflicted = unmergedPaths(index, notStaged); len(st.Conflicted) > 0 && head.Commit != "" {
		specs := make([]string, len(st.Conflicted))
		for i, p := range st.Conflicted {
			specs[i] = ":(top,literal)" + p
		}
		conflicted, err := run(append([]string{"diff", "--no-color", "--text", "-U0", "HEAD", "--"}, specs...)...)()
		if err != nil {
			return nil, err
		}
		notStaged += conflicted
	}
	st.Uncommitted = diffCounts(untracked, index, notStaged)
	if head.Commit == "" {
		st.Note = "no commit yet"
		return st, nil
	}
	name, err := upstream()
	if err != nil {
		st.Note = "no upstream branch"
		return st, nil
	}
	st.Upstream = strings.TrimSpace(name)
	commits, err := sinceUpstream()
	if err != nil {
		return nil, err
	}
	st.Unpushed = diffCounts(untracked, commits, index, notStaged)
	pulled, err := notPulled()
	if err != nil {
		return nil, err
	}
	if c := diffCounts(nil, pulled); len(c) > 0 {
		st.NotPulled = c
	}
	return st, nil
}

// unmergedPath starts git diff's line for a path in conflict, which it
// does not diff.
const unmergedPath = "* Unmerged path "

// unmergedPaths are the shards the diffs name as unmerged, once each.
func unmergedPaths(diffs ...string) []string {
	var out []string
	for _, d := range diffs {
		for line := range strings.Lines(d) {
			if p, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), unmergedPath); ok && isShard(p) && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// untrackedRecords are the records in the untracked shards (relative to
// the store). A shard that cannot be read is an error: counting it as
// empty would say it holds nothing new.
func untrackedRecords(s *store.Store, rels []string) ([]*record.Record, error) {
	var recs []*record.Record
	for _, rel := range rels {
		if !isShard(rel) {
			continue // .gitattributes and the like
		}
		data, err := os.ReadFile(filepath.Join(s.Dir, rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since it was listed
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, shardRecords(rel, data)...)
	}
	return recs, nil
}

// diffCounts counts the record versions that the diffs add to shards,
// plus the untracked records, and those the diffs remove. Each diff goes
// from where the one before left off (HEAD to git's index, then to the
// working tree): a version one adds and a later one removes is not there.
// An added version of the same ID and time as a removed one is that
// version edited by hand. A removed version is one git would lose unless
// it is added back (edited or not), elsewhere too (a shard moved, or an
// untracked one), or a newer version of its record is added: a purge
// removes every version and adds a newer one, the tombstone.
func diffCounts(untracked []*record.Record, diffs ...string) Counts {
	c := Counts{}
	for _, r := range untracked {
		c.count(r, false)
	}
	// added holds how many copies of each version the diffs add net of
	// those they remove again, and the last one added.
	type copies struct {
		r *record.Record
		n int
	}
	added, removed := map[string]*copies{}, map[string]*record.Record{}
	for _, d := range diffs {
		plus, minus := diffVersions(d)
		for _, r := range minus {
			if k := versionKey(r); added[k] != nil {
				if added[k].n--; added[k].n == 0 {
					delete(added, k)
				}
			} else {
				removed[k] = r
			}
		}
		for _, r := range plus {
			k := versionKey(r)
			if added[k] == nil {
				added[k] = &copies{}
			}
			added[k].r = r
			added[k].n++
		}
	}
	newest := map[string]time.Time{} // by ID, among what is added
	keep := func(r *record.Record) {
		if t, ok := newest[r.ID]; !ok || r.Time.After(t) {
			newest[r.ID] = r.Time
		}
	}
	for _, r := range untracked {
		keep(r)
	}
	for k, a := range added {
		keep(a.r)
		was := removed[k]
		if was != nil && same(was, a.r) {
			continue // removed, then put back as it was
		}
		c.count(a.r, was != nil)
	}
	for _, r := range removed {
		if t, ok := newest[r.ID]; ok && !t.Before(r.Time) {
			continue // put back, or superseded by a newer version
		}
		kc := c.of(r.Kind)
		kc.Removed++
		kc.note(r, ChangeRemoved)
	}
	c.finish()
	return c
}

// same reports whether two versions say the same, field for field.
func same(a, b *record.Record) bool {
	la, ea := a.MarshalLine()
	lb, eb := b.MarshalLine()
	return ea == nil && eb == nil && bytes.Equal(la, lb)
}

// diffVersions are the record versions git diff's output adds and removes,
// shard by shard. A shard is named by the "+++ b/…" line of its header, or
// by the "--- a/…" line when it was deleted ("+++ /dev/null"). A hunk's
// header says how many lines it removes and adds, so a line of a record
// that starts like a file's header ("--- " removed, "+++ " added) is read
// as the record's.
func diffVersions(out string) (plus, minus []*record.Record) {
	type lines struct{ plus, minus bytes.Buffer }
	files := map[string]*lines{}
	var cur *lines
	from := ""              // the file's name before, from its "--- " line
	inMinus, inPlus := 0, 0 // lines left in the current hunk
	for _, l := range strings.Split(out, "\n") {
		switch {
		case inMinus > 0 && strings.HasPrefix(l, "-"):
			inMinus--
			if cur != nil {
				cur.minus.WriteString(l[1:] + "\n")
			}
		case inPlus > 0 && strings.HasPrefix(l, "+"):
			inPlus--
			if cur != nil {
				cur.plus.WriteString(l[1:] + "\n")
			}
		case strings.HasPrefix(l, "\\"): // \ No newline at end of file
		case strings.HasPrefix(l, "@@ "):
			inMinus, inPlus = hunkLines(l)
		case strings.HasPrefix(l, "--- "):
			inMinus, inPlus = 0, 0
			from = strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
		case strings.HasPrefix(l, "+++ "):
			inMinus, inPlus = 0, 0
			file := strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if file == "/dev/null" {
				file = from // deleted: every line is removed
			}
			if files[file] == nil {
				files[file] = &lines{}
			}
			cur = files[file]
		case strings.HasPrefix(l, "diff "):
			inMinus, inPlus, cur, from = 0, 0, nil, ""
		case strings.HasPrefix(l, "+") && cur != nil:
			cur.plus.WriteString(l[1:] + "\n")
		case strings.HasPrefix(l, "-") && cur != nil:
			cur.minus.WriteString(l[1:] + "\n")
		}
	}
	for f, ls := range files {
		plus = append(plus, shardRecords(f, ls.plus.Bytes())...)
		minus = append(minus, shardRecords(f, ls.minus.Bytes())...)
	}
	return plus, minus
}

// hunkLines are the numbers of lines a hunk removes and adds, from its
// header ("@@ -12,3 +12,0 @@": 3 and 0; a number without a count is one
// line), or none if the header is not one git writes.
func hunkLines(header string) (minus, plus int) {
	f := strings.Fields(header)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0
	}
	count := func(r string) int {
		_, n, ok := strings.Cut(r, ",")
		if !ok {
			return 1
		}
		v, err := strconv.Atoi(n)
		if err != nil || v < 0 {
			return 0
		}
		return v
	}
	return count(f[1][1:]), count(f[2][1:])
}

// shardRecords are the records in data, lines of the shard at path (none
// if path is no shard: .gitattributes, config.toml and the like).
func shardRecords(path string, data []byte) []*record.Record {
	if len(data) == 0 || !isShard(path) {
		return nil
	}
	recs, _, _ := kinds.ParseShard(path, data) // config.toml has no [[pattern]] tables: no records
	return recs
}

// isShard reports a path named as a shard is (config.toml too: it holds
// no [[pattern]] tables, so no records).
func isShard(path string) bool {
	return strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".toml")
}

func versionKey(r *record.Record) string { return r.ID + " " + r.Time.String() }

// count counts r: a version edited in place, a new record or a revision.
func (c Counts) count(r *record.Record, edited bool) {
	kc := c.of(r.Kind)
	switch {
	case edited:
		kc.Edited++
		kc.note(r, ChangeEdited)
	case r.Time.Equal(r.Created):
		kc.New++
		kc.note(r, ChangeNew)
	default:
		kc.Revised++
		kc.note(r, ChangeRevised)
	}
}

// of is kind k's count, made at zero when there is none yet.
func (c Counts) of(k record.Kind) *KindCount {
	kc := c[k]
	if kc == nil {
		kc = &KindCount{}
		c[k] = kc
	}
	return kc
}
