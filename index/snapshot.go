package index

import (
	"math"
	"slices"
	"sort"
	"strings"

	"lore/record"
)

// Doc is what ranking and selection need of a current record, without
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

// Posting is one record holding a term, in its headline or its body.
type Posting struct {
	Doc   int
	Title bool
}

// Snapshot is the current version of every record with an inverted index
// over their terms: the cached base, less what newer shards superseded,
// plus those shards' records.
type Snapshot struct {
	Warnings []record.Warning
	Partial  bool // reading stopped at the deadline: some shards are missing

	base      *cacheState
	live      []int // snapshot index → base doc, for the base part
	remap     []int // base doc → snapshot index, -1 if superseded; nil: identity
	delta     []version
	deltaPost map[string][]Posting
	terms     []string
	recs      []*record.Record

	avgTitle, avgBody float64
}

// SnapshotOf indexes records held in memory, as Snapshot does a store.
func SnapshotOf(recs []*record.Record, tok Tokenizer) *Snapshot {
	st := &cacheState{fileIDs: []string{""}}
	vs := make([]version, len(recs))
	for i, r := range recs {
		t, b := tok.Terms(r)
		vs[i] = version{r, t, b}
	}
	st.buildIndex(vs, make([]int, len(vs)))
	return newSnapshot(st, &scan{}, nil)
}

// buildIndex resolves the current version of every record and builds the
// doc table (sorted by ID) and postings.
func (st *cacheState) buildIndex(all []version, fileOf []int) {
	best := map[string]int{}
	for i, v := range all {
		if j, ok := best[v.rec.ID]; !ok || record.Newer(v.rec, all[j].rec) {
			best[v.rec.ID] = i
		}
	}
	cur := make([]int, 0, len(best))
	for _, i := range best {
		cur = append(cur, i)
	}
	sort.Slice(cur, func(a, b int) bool { return all[cur[a]].rec.ID < all[cur[b]].rec.ID })
	st.docs = make([]docEntry, len(cur))
	posts := map[string][]uint64{}
	for di, vi := range cur {
		v := all[vi]
		st.docs[di] = docEntry{Doc: docOf(v), file: fileOf[vi], rec: v.rec}
		for _, t := range v.title {
			posts[t] = appendPosting(posts[t], di, true)
		}
		for _, t := range v.body {
			if !slices.Contains(v.title, t) {
				posts[t] = appendPosting(posts[t], di, false)
			}
		}
	}
	st.vocab = make([]string, 0, len(posts))
	for t := range posts {
		st.vocab = append(st.vocab, t)
	}
	sort.Strings(st.vocab)
	st.posts = make([]string, len(st.vocab))
	for i, t := range st.vocab {
		var e encoder
		prev := uint64(0)
		for _, p := range posts[t] {
			e.uint(p - prev) // doc<<1|title, ascending: delta-encoded
			prev = p
		}
		st.posts[i] = string(e.b)
	}
}

func appendPosting(ps []uint64, doc int, title bool) []uint64 {
	p := uint64(doc) << 1
	if title {
		p |= 1
	}
	if n := len(ps); n > 0 && ps[n-1]>>1 == uint64(doc) {
		return ps // a term repeated within one record
	}
	return append(ps, p)
}

// DocOf summarises a record held in memory.
func DocOf(r *record.Record) Doc { return docOf(version{rec: r}) }

func docOf(v version) Doc {
	r := v.rec
	d := Doc{ID: r.ID, Kind: r.Kind, Status: r.Status, Time: r.Time.UnixNano(), Created: r.Created.UnixNano(),
		Confidence: math.NaN(), ErrorType: r.ErrorType, Tool: r.Tool, NTitle: len(v.title), NBody: len(v.body)}
	if r.Confidence != nil {
		d.Confidence = *r.Confidence
	}
	return d
}

// newSnapshot serves the base state, with the shards sc parsed anew merged
// in: their records replace what the base held from the same shards, and
// newer versions supersede base records by ID.
func newSnapshot(base *cacheState, sc *scan, warns []record.Warning) *Snapshot {
	s := &Snapshot{Warnings: warns, base: base}
	if len(sc.changed) == 0 {
		return s
	}
	superseded := make([]bool, len(base.docs))
	for i, de := range base.docs {
		if sc.changed[base.fileIDs[de.file]] {
			superseded[i] = true
		}
	}
	newest := map[string]version{}
	for rel := range sc.changed {
		for _, v := range sc.files[rel].versions {
			if cur, ok := newest[v.rec.ID]; !ok || record.Newer(v.rec, cur.rec) {
				newest[v.rec.ID] = v
			}
		}
	}
	ids := make([]string, 0, len(newest))
	for id := range newest {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		v := newest[id]
		i, found := sort.Find(len(base.docs), func(i int) int { return strings.Compare(id, base.docs[i].ID) })
		if found && !superseded[i] {
			if !record.Newer(v.rec, base.record(i)) {
				continue // the base already has a newer version
			}
			superseded[i] = true
		}
		s.delta = append(s.delta, v)
	}
	s.remap = make([]int, len(base.docs))
	for i := range base.docs {
		if superseded[i] {
			s.remap[i] = -1
			continue
		}
		s.remap[i] = len(s.live)
		s.live = append(s.live, i)
	}
	s.deltaPost = map[string][]Posting{}
	for j, v := range s.delta {
		di := len(s.live) + j
		for _, t := range v.title {
			s.deltaPost[t] = append(s.deltaPost[t], Posting{di, true})
		}
		for _, t := range v.body {
			if !slices.Contains(v.title, t) {
				s.deltaPost[t] = append(s.deltaPost[t], Posting{di, false})
			}
		}
	}
	return s
}

// record decodes base doc i.
func (st *cacheState) record(i int) *record.Record {
	de := &st.docs[i]
	if de.rec == nil {
		d := &decoder{b: st.blobs[de.file][de.off:]}
		de.rec = decodeRecord(d)
		if d.err != nil { // cannot happen for a cache that read whole; stay safe
			de.rec = &record.Record{ID: de.ID, Kind: de.Kind, Status: de.Status}
		}
	}
	return de.rec
}

// Len is the number of current records.
func (s *Snapshot) Len() int {
	if s.remap == nil {
		return len(s.base.docs)
	}
	return len(s.live) + len(s.delta)
}

// Doc returns record i's summary.
func (s *Snapshot) Doc(i int) Doc {
	if s.remap == nil {
		return s.base.docs[i].Doc
	}
	if i < len(s.live) {
		return s.base.docs[s.live[i]].Doc
	}
	return docOf(s.delta[i-len(s.live)])
}

// AvgTerms is the mean number of distinct headline and body terms of a
// current record, for length normalisation in ranking.
func (s *Snapshot) AvgTerms() (title, body float64) {
	if s.avgTitle == 0 && s.Len() > 0 {
		var t, b int
		for i := range s.Len() {
			d := s.Doc(i)
			t, b = t+d.NTitle, b+d.NBody
		}
		s.avgTitle = max(float64(t)/float64(s.Len()), 1)
		s.avgBody = max(float64(b)/float64(s.Len()), 1)
	}
	return s.avgTitle, s.avgBody
}

// Record returns record i, decoding it on first use.
func (s *Snapshot) Record(i int) *record.Record {
	if s.remap == nil {
		return s.base.record(i)
	}
	if i < len(s.live) {
		return s.base.record(s.live[i])
	}
	return s.delta[i-len(s.live)].rec
}

// Records returns every current record, newest first.
func (s *Snapshot) Records() []*record.Record {
	if s.recs == nil {
		s.recs = make([]*record.Record, s.Len())
		for i := range s.recs {
			s.recs[i] = s.Record(i)
		}
		sort.SliceStable(s.recs, func(i, j int) bool {
			a, b := s.recs[i], s.recs[j]
			if !a.Created.Equal(b.Created) {
				return a.Created.After(b.Created)
			}
			return a.ID < b.ID
		})
	}
	return s.recs
}

// Terms is every term that some current record holds, sorted.
func (s *Snapshot) Terms() []string {
	if s.terms == nil {
		s.terms = s.base.vocab
		if len(s.deltaPost) > 0 {
			s.terms = slices.Clone(s.base.vocab)
			for t := range s.deltaPost {
				if _, found := slices.BinarySearch(s.base.vocab, t); !found {
					s.terms = append(s.terms, t)
				}
			}
			sort.Strings(s.terms)
		}
	}
	return s.terms
}

// Postings lists the records holding term.
func (s *Snapshot) Postings(term string) []Posting {
	var out []Posting
	if i, found := slices.BinarySearch(s.base.vocab, term); found {
		d := &decoder{b: s.base.posts[i]}
		var p uint64
		for len(d.b) > 0 && d.err == nil {
			p += d.uint()
			doc := int(p >> 1)
			if doc >= len(s.base.docs) {
				break
			}
			if s.remap != nil {
				if doc = s.remap[doc]; doc < 0 {
					continue
				}
			}
			out = append(out, Posting{doc, p&1 == 1})
		}
	}
	return append(out, s.deltaPost[term]...)
}
