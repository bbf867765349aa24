package index

import (
	"cmp"
	"iter"
	"slices"
	"sort"
	"strings"

	"lore/internal/topk"
	"lore/record"
)

// Doc is what ranking and selection need of a record version, without
// decoding all of it.
type Doc struct {
	ID         string
	Kind       record.Kind
	Status     string
	Time       int64   // this version, UnixNano
	Created    int64   // the first version, UnixNano
	Confidence float64 // NaN when unset
	ErrorType  string
	Tool       string
	NTitle     int // distinct headline terms
	NBody      int // distinct body terms
}

// Posting is one current record holding a term, in its headline or body.
// Eight bytes: a common term of a large store has tens of thousands.
type Posting struct {
	Doc   int32
	Title bool
}

// Snapshot is a view of the store through the index: docs numbered across
// the segments, of which the current version of each record is marked
// current. Docs that are not current (older versions, shards a newer
// segment describes again) are never in postings; callers that walk every
// doc skip them with Current.
type Snapshot struct {
	Warnings []record.Warning
	Partial  bool // reading stopped at the deadline, or a shard could not be read: some shards are missing or older than on disk
	// Behind: shards or changed directories were left unread for want of
	// time (the deadline, or the budget), not because they could not be
	// read: CatchUp reads them.
	Behind bool
	// Unsaved: what was read could not be written to the index (a full
	// disk, a read-only .local); the snapshot serves it from memory and
	// the index on disk is left as it was.
	Unsaved error
	// Repaired is what a thorough scan found the index held wrongly and
	// set right, for doctor to report: a segment whose content did not
	// match its checksum, or could not be vouched for (the index was
	// rebuilt), and shards whose content changed with their stat kept
	// (read again).
	Repaired []Repair

	segs  []*segment
	first []int       // each segment's first doc
	res   *resolution // which rows a newer segment outdates
	count int         // current records
	recs  map[int]*record.Record
	all   []*record.Record

	avgTitle, avgBody float64
	parsed            int    // shards parsed to bring the index up to date
	lost              bool   // another process published first (see scan.lost)
	dir               string // the store's directory; "" for SnapshotOf
}

// Repair is one thing a thorough scan set right: File is relative to the
// store's parent directory, as doctor names files.
type Repair struct {
	File, Kind, Message string
}

// SnapshotOf indexes records held in memory, as Open does a store.
func SnapshotOf(recs []*record.Record, tok Tokenizer) *Snapshot {
	f := &shardFile{rel: "memory"}
	dict := newTermDict()
	for _, r := range recs {
		t, b := tok.Terms(r)
		var enc encoder
		encodeRecord(&enc, r)
		f.versions = append(f.versions, newVersion(r, enc.b, t, b, dict))
	}
	seg, err := encodeSegment(tok.stamp(), 0, []*shardFile{f}, dict).open("memory", tok.stamp())
	if err != nil {
		panic(err) // encodeSegment's own output
	}
	return newSnapshot([]*segment{seg}, nil)
}

// newSnapshot numbers the docs of segs; res is their resolution, computed
// here when nil.
func newSnapshot(segs []*segment, res *resolution) *Snapshot {
	if res == nil {
		res = resolve(segs)
	}
	s := &Snapshot{segs: segs, res: res, recs: map[int]*record.Record{}}
	n := 0
	// The lengths' sums are of current rows, as the count is: a segment's
	// are of its newest rows, and the rows a newer segment outdates (the
	// shards a checkout replaced or removed) leave them. Summed as written,
	// a checkout from 20k records to 3k divided the 20k's lengths by 3k,
	// and ranked otherwise than a fresh index until the files were merged.
	var t, b int
	for k, seg := range segs {
		s.first = append(s.first, n)
		n += seg.nRows
		s.count += seg.nNewest
		t, b = t+seg.sumTitle, b+seg.sumBody
		res.flip[k].each(func(row int) {
			rt, rb := seg.lengths(row)
			purged := seg.purged(row) // a tombstone is no record, current or not
			if seg.newest(row) {
				t, b = t-rt, b-rb
				if !purged {
					s.count--
				}
			} else {
				t, b = t+rt, b+rb
				if !purged {
					s.count++
				}
			}
		})
	}
	if s.count > 0 {
		s.avgTitle = max(float64(t)/float64(s.count), 1)
		s.avgBody = max(float64(b)/float64(s.count), 1)
	}
	return s
}

func (s *Snapshot) current(seg, row int) bool {
	return s.live(seg, row) && !s.segs[seg].purged(row)
}

// live reports whether the row is its record's newest version: current,
// unless it is a purge's tombstone, which leaves the record gone.
func (s *Snapshot) live(seg, row int) bool {
	return s.segs[seg].newest(row) != s.res.flip[seg].has(row)
}

// locate turns a doc number into its segment and row.
func (s *Snapshot) locate(i int) (int, int) {
	k := sort.Search(len(s.first), func(k int) bool { return s.first[k] > i }) - 1
	return k, i - s.first[k]
}

// Len is the number of docs, current or not: the bound for Doc, Current
// and arrays indexed by doc.
func (s *Snapshot) Len() int {
	if len(s.segs) == 0 {
		return 0
	}
	last := len(s.segs) - 1
	return s.first[last] + s.segs[last].nRows
}

// Count is the number of current records.
func (s *Snapshot) Count() int { return s.count }

// Read is how many shards the open parsed to bring the index up to date,
// and Segments how many files the index is now.
func (s *Snapshot) Read() int     { return s.parsed }
func (s *Snapshot) Segments() int { return len(s.segs) }

// Current says whether doc i is the current version of its record.
func (s *Snapshot) Current(i int) bool {
	seg, row := s.locate(i)
	return s.current(seg, row)
}

// Doc returns doc i's summary.
func (s *Snapshot) Doc(i int) Doc {
	seg, row := s.locate(i)
	return s.segs[seg].doc(row)
}

// Lengths is doc i's count of distinct headline and body terms (Doc's
// NTitle and NBody, read without the rest).
func (s *Snapshot) Lengths(i int) (title, body int) {
	seg, row := s.locate(i)
	return s.segs[seg].lengths(row)
}

// KindStatus is doc i's kind and status, read without the rest.
func (s *Snapshot) KindStatus(i int) (record.Kind, string) {
	seg, row := s.locate(i)
	return s.segs[seg].kindStatus(row)
}

// Created is when doc i's record was first recorded (Doc's Created, read
// without the rest).
func (s *Snapshot) Created(i int) int64 {
	seg, row := s.locate(i)
	return s.segs[seg].rowCreated(row)
}

// ErrorTool is doc i's error type and tool (Doc's ErrorType and Tool,
// read without the rest).
func (s *Snapshot) ErrorTool(i int) (errorType, tool string) {
	seg, row := s.locate(i)
	return s.segs[seg].errorTool(row)
}

// ID is doc i's record ID (Doc's ID, read without the rest).
func (s *Snapshot) ID(i int) string {
	seg, row := s.locate(i)
	return s.segs[seg].rowID(row)
}

// Record returns doc i, decoding it on first use.
func (s *Snapshot) Record(i int) *record.Record {
	if r, ok := s.recs[i]; ok {
		return r
	}
	seg, row := s.locate(i)
	r := s.segs[seg].record(row)
	s.recs[i] = r
	return r
}

// Anchored calls fn with each current record that names code it is about
// (see record.Anchor) and its anchors, decoding nothing else. The anchors
// are valid during the call only.
func (s *Snapshot) Anchored(fn func(doc int, anchors []record.Anchor)) {
	for k, seg := range s.segs {
		seg.eachAnchored(func(row int, anchors []record.Anchor) {
			if s.current(k, row) {
				fn(s.first[k]+row, anchors)
			}
		})
	}
}

// Anchors is at least how many anchors Anchored passes: what the index
// holds, including versions no longer current.
func (s *Snapshot) Anchors() int {
	n := 0
	for _, seg := range s.segs {
		n += seg.nAnchors()
	}
	return n
}

// AvgTerms is the mean number of distinct headline and body terms of a
// current record, for length normalisation in ranking.
func (s *Snapshot) AvgTerms() (title, body float64) { return s.avgTitle, s.avgBody }

// Records returns every current record, newest first.
func (s *Snapshot) Records() []*record.Record {
	if s.all == nil {
		s.all = []*record.Record{}
		for i := range s.Len() {
			if s.Current(i) {
				s.all = append(s.all, s.Record(i))
			}
		}
		sortNewestFirst(s.all)
	}
	return s.all
}

func sortNewestFirst(recs []*record.Record) {
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := recs[i], recs[j]
		if !a.Created.Equal(b.Created) {
			return a.Created.After(b.Created)
		}
		return a.ID < b.ID
	})
}

// Newest returns the current records keep accepts (by kind and status),
// newest first, at most limit of them (all if limit <= 0); only those are
// decoded. With kinds, only the rows of those kinds are read.
func (s *Snapshot) Newest(limit int, kinds []record.Kind, keep func(record.Kind, string) bool) []*record.Record {
	return s.NewestOf(limit, kinds, keep, nil)
}

// NewestOf is Newest for the records with a version v selects, or every
// record if v is nil. Who wrote a version and when are in its row: a
// record is decoded only when it is returned.
func (s *Snapshot) NewestOf(limit int, kinds []record.Kind, keep func(record.Kind, string) bool, v *Versions) []*record.Record {
	docs := s.newest(limit, kinds, keep, v)
	out := make([]*record.Record, len(docs))
	for k, doc := range docs {
		out[k] = s.Record(doc)
	}
	return out
}

// newest is the docs NewestOf returns, in its order, from the rows alone.
func (s *Snapshot) newest(limit int, kinds []record.Kind, keep func(record.Kind, string) bool, v *Versions) []int {
	type entry struct {
		created int64
		id      string
		doc     int
	}
	top := topk.New(limit, func(a, b entry) int {
		if a.created != b.created {
			return cmp.Compare(b.created, a.created)
		}
		return strings.Compare(a.id, b.id)
	})
	var m *versionMatcher
	if v != nil {
		m = s.matcher(v)
	}
	for k, seg := range s.segs {
		offer := func(lo, hi int) {
			for row := lo; row < hi; row++ {
				if s.current(k, row) && keep(seg.kindStatus(row)) && (m == nil || m.record(k, row)) {
					top.Offer(entry{seg.rowCreated(row), seg.rowID(row), s.first[k] + row})
				}
			}
		}
		if len(kinds) == 0 {
			offer(0, seg.nRows)
		}
		for _, kind := range kinds {
			offer(seg.kindRows(kind))
		}
	}
	es := top.Items()
	docs := make([]int, len(es))
	for k, e := range es {
		docs[k] = e.doc
	}
	return docs
}

// KindRow is a current doc of one kind, as OfKind reads it.
type KindRow struct {
	Doc     int
	Status  string
	Created int64 // the first version, UnixNano
}

// OfKind yields the current docs of kind, reading only that kind's rows.
func (s *Snapshot) OfKind(kind record.Kind) iter.Seq[KindRow] {
	return func(yield func(KindRow) bool) {
		for k, seg := range s.segs {
			lo, hi := seg.kindRows(kind)
			for row := lo; row < hi; row++ {
				if !s.current(k, row) {
					continue
				}
				_, status := seg.kindStatus(row)
				if !yield(KindRow{s.first[k] + row, status, seg.rowCreated(row)}) {
					return
				}
			}
		}
	}
}

// HasTerm reports whether some version holds term.
func (s *Snapshot) HasTerm(term string) bool {
	for _, seg := range s.segs {
		if _, ok := seg.findTerm(term); ok {
			return true
		}
	}
	return false
}

// TermsWithPrefix lists, sorted and once each, the terms some version
// holds that start with prefix. It reads only that run of each segment's
// vocabulary: a prompt asks for a few runs, and a fresh process pays for
// every page it touches (the whole vocabulary of 100k records is
// megabytes).
func (s *Snapshot) TermsWithPrefix(prefix string) []string {
	var out []string
	for _, seg := range s.segs {
		i, _ := seg.findTerm(prefix)
		for ; i < seg.nTerms; i++ {
			t := seg.term(i)
			if !strings.HasPrefix(t, prefix) {
				break
			}
			out = append(out, t)
		}
	}
	if len(s.segs) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// Postings lists the current records holding term.
func (s *Snapshot) Postings(term string) []Posting {
	var out []Posting
	for k, seg := range s.segs {
		ti, ok := seg.findTerm(term)
		if !ok {
			continue
		}
		out = slices.Grow(out, seg.postingBytes(ti))
		flip := s.res.flip[k]
		seg.postings(ti, func(row int, title bool) {
			if seg.newest(row) != flip.has(row) {
				out = append(out, Posting{int32(s.first[k] + row), title})
			}
		})
	}
	return out
}
