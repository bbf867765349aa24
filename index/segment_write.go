package index

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"

	"lore/record"
)

// shardFile is a shard's content as parsed, to be written to a segment.
type shardFile struct {
	rel         string
	size, mtime int64
	ino         uint64
	sum         uint32
	gone        bool
	warns       []record.Warning
	versions    []version
}

// version is one record version as a build holds it until its segment is
// written: the fields a segment sorts by and lays out in rows, the whole
// record encoded (encodeRecord), and its search terms. A cold build holds
// every version of the store at once, so strings other than the ID are
// numbered in the build's dictionary, and the anchors are read back from
// the encoding: at 100k records a whole record.Record per version cost
// 45 MB and terms as strings 24 MB, all of it scanned by every collection.
type version struct {
	id            string
	fields        [nFields]uint32 // kind, status, error type, tool, author, numbered
	time, created int64           // UnixNano
	confidence    float64         // NaN: none
	purged        bool            // a purge's tombstone, which supersedes every other version
	enc           []byte
	terms         []uint32 // the headline's terms, then the body's
	nTitle        int
}

// The strings of a version's fields, by their place in version.fields.
const (
	fKind = iota
	fStatus
	fErrorType
	fTool
	fAuthor
	nFields
)

// newVersion is r's version, r encoded as enc, its strings numbered in dict.
func newVersion(r *record.Record, enc []byte, title, body []string, dict *termDict) version {
	v := version{id: r.ID, time: r.Time.UnixNano(), created: r.Created.UnixNano(), confidence: math.NaN(),
		purged: r.Purged(), enc: enc, nTitle: len(title)}
	if r.Confidence != nil {
		v.confidence = *r.Confidence
	}
	dict.number(v.fields[:], []string{string(r.Kind), r.Status, r.ErrorType, r.Tool, r.Author})
	v.terms = make([]uint32, len(title)+len(body))
	dict.number(v.terms, title)
	dict.number(v.terms[len(title):], body)
	return v
}

func (v *version) title() []uint32 { return v.terms[:v.nTitle] }
func (v *version) body() []uint32  { return v.terms[v.nTitle:] }

// whole decodes the version's record.
func (v *version) whole() *record.Record { return decodeRecord(&decoder{b: bytesString(v.enc)}) }

// anchors is the encoding of the version's anchors (encodeRecord writes
// them first) and how many there are.
func (v *version) anchors() (enc []byte, n int) {
	if len(v.enc) == 0 || v.enc[0] == 0 { // no anchors: a count of zero
		return nil, 0
	}
	d := decoder{b: bytesString(v.enc)}
	n = len(decodeAnchors(&d, nil))
	return v.enc[:len(v.enc)-len(d.b)], n
}

// termDict numbers the distinct terms of one build, for the parse workers
// together: a number is a quarter of a string's header and holds no
// pointer, and the vocabulary is small next to the terms' occurrences.
type termDict struct {
	mu    sync.Mutex
	ids   map[string]uint32
	terms []string
}

func newTermDict() *termDict { return &termDict{ids: map[string]uint32{}} }

// number writes the numbers of ts to out, adding the terms it has not seen.
func (d *termDict) number(out []uint32, ts []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, t := range ts {
		id, ok := d.ids[t]
		if !ok {
			id = uint32(len(d.terms))
			t = strings.Clone(t) // t may share a record's memory
			d.ids[t] = id
			d.terms = append(d.terms, t)
		}
		out[i] = id
	}
}

// encodeSegment lays out the versions of files as a segment, their terms
// numbered in dict.
func encodeSegment(tokVersion string, written int64, files []*shardFile, dict *termDict) encodedSegment {
	slices.SortFunc(files, func(a, b *shardFile) int { return strings.Compare(a.rel, b.rel) })
	type rowSrc struct {
		v       *version
		file, n int // n: the version's place in the file, for a stable order
	}
	var rows []rowSrc
	for fi, f := range files {
		for vi := range f.versions {
			rows = append(rows, rowSrc{&f.versions[vi], fi, vi})
		}
	}
	// By ID, each record's versions oldest first.
	slices.SortFunc(rows, func(x, y rowSrc) int {
		a, b := x.v, y.v
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		if a.purged != b.purged { // as record.Newer orders them: the tombstone last
			if a.purged {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(a.time, b.time); c != 0 {
			return c
		}
		// A tie (doctor reports them) is broken by content, as the
		// snapshot breaks it across segments: by the records it decodes.
		switch wa, wb := a.whole(), b.whole(); {
		case record.Newer(wb, wa):
			return -1
		case record.Newer(wa, wb):
			return 1
		}
		return cmp.Or(cmp.Compare(x.file, y.file), cmp.Compare(x.n, y.n))
	})
	// Postings by term number, rows in order so they ascend; then the
	// vocabulary sorted, and each term's place in it (rank).
	posts := make([][]uint32, len(dict.terms))
	for ri, r := range rows {
		for _, t := range r.v.title() {
			posts[t] = appendPosting(posts[t], ri, true)
		}
		for _, t := range r.v.body() {
			if !slices.Contains(r.v.title(), t) {
				posts[t] = appendPosting(posts[t], ri, false)
			}
		}
	}
	var vocab []uint32
	for t, ps := range posts {
		if len(ps) > 0 {
			vocab = append(vocab, uint32(t))
		}
	}
	slices.SortFunc(vocab, func(a, b uint32) int { return strings.Compare(dict.terms[a], dict.terms[b]) })
	rank := make([]uint32, len(dict.terms))
	var termOffs, termData, postOffs, postData encoder
	for i, t := range vocab {
		rank[t] = uint32(i)
		termOffs.u32(len(termData.b))
		termData.b = append(termData.b, dict.terms[t]...)
		postOffs.u32(len(postData.b))
		prev := uint32(0)
		for _, p := range posts[t] {
			postData.uint(uint64(p - prev))
			prev = p
		}
		posts[t] = nil
	}
	termOffs.u32(len(termData.b))
	postOffs.u32(len(postData.b))

	var strs encoder
	interned := map[string]int{}
	ref := func(s string) int {
		if off, ok := interned[s]; ok {
			return off
		}
		off := len(strs.b)
		strs.str(s)
		interned[s] = off
		return off
	}
	fileRows := make([][]int, len(files))
	// Sized up front: growing tens of megabytes by doubling costs more
	// than the encoding itself.
	rowData := encoder{make([]byte, 0, rowSize*len(rows))}
	flags := encoder{make([]byte, 0, len(rows))}
	meta := encoder{make([]byte, 0, metaSize*len(rows))}
	// The blobs section is each version's encoding as the parse made it,
	// followed by its terms' ranks: pieces, not one copy (see
	// encodedSegment).
	blobs := make([][]byte, 0, 2*len(rows))
	var termLists encoder
	termEnds := make([]int, len(rows))
	blobOff := 0
	var codes []string
	codeOf := func(v string) byte {
		if i := slices.Index(codes, v); i >= 0 {
			return byte(i)
		}
		if len(codes) == codeInRow {
			return codeInRow
		}
		codes = append(codes, v)
		return byte(len(codes) - 1)
	}
	var sumTitle, sumBody, newest int
	var anchored encoder // the anchor table after its count
	nAnchors, lastAnchored := 0, 0
	for ri, r := range rows {
		v := r.v
		fileRows[r.file] = append(fileRows[r.file], ri)
		nTitle, nBody := min(v.nTitle, math.MaxUint16), min(len(v.terms)-v.nTitle, math.MaxUint16)
		kind, status := dict.terms[v.fields[fKind]], dict.terms[v.fields[fStatus]]
		rowData.u32(len(strs.b)) // IDs are unique: not worth interning
		strs.str(v.id)
		rowData.u32(ref(kind))
		rowData.u32(ref(status))
		rowData.u32(ref(dict.terms[v.fields[fErrorType]]))
		rowData.u32(ref(dict.terms[v.fields[fTool]]))
		rowData.u32(r.file)
		rowData.u32(blobOff)
		rowData.u16(nTitle)
		rowData.u16(nBody)
		rowData.u64(uint64(v.time))
		rowData.u64(uint64(v.created))
		rowData.u64(math.Float64bits(v.confidence))
		rowData.u32(ref(dict.terms[v.fields[fAuthor]]))
		meta.b = append(meta.b, codeOf(kind), codeOf(status))
		meta.u16(nTitle)
		meta.u16(nBody)
		var fl byte
		if v.purged {
			fl |= flagPurged
		}
		if ri == len(rows)-1 || rows[ri+1].v.id != v.id {
			fl |= flagNewest
			if !v.purged {
				newest++ // a record: a purged one is not
			}
			sumTitle += v.nTitle
			sumBody += len(v.terms) - v.nTitle
		}
		if enc, n := v.anchors(); n > 0 {
			anchored.uint(uint64(ri - lastAnchored))
			anchored.b = append(anchored.b, enc...)
			nAnchors += n
			lastAnchored = ri
		}
		flags.b = append(flags.b, fl)
		start := len(termLists.b)
		for _, ts := range [][]uint32{v.title(), v.body()} {
			termLists.uint(uint64(len(ts)))
			for _, t := range ts {
				termLists.uint(uint64(rank[t]))
			}
		}
		termEnds[ri] = len(termLists.b)
		blobOff += len(v.enc) + len(termLists.b) - start
	}
	for ri, r := range rows {
		start := 0
		if ri > 0 {
			start = termEnds[ri-1]
		}
		blobs = append(blobs, r.v.enc, termLists.b[start:termEnds[ri]])
	}
	var fileOffs, fileData encoder
	for fi, f := range files {
		fileOffs.u32(len(fileData.b))
		fileData.str(f.rel)
		fileData.int(f.size)
		fileData.int(f.mtime)
		fileData.uint(f.ino)
		fileData.uint(uint64(f.sum))
		fileData.bool(f.gone)
		fileData.uint(uint64(len(fileRows[fi])))
		prev := 0
		for _, r := range fileRows[fi] {
			fileData.uint(uint64(r - prev))
			prev = r
		}
		fileData.uint(uint64(len(f.warns)))
		for _, w := range f.warns {
			fileData.warning(w)
		}
	}
	fileOffs.u32(len(fileData.b))

	var codeTab, anchorTab encoder
	codeTab.strs(codes)
	anchorTab.uint(uint64(nAnchors))
	anchorTab.b = append(anchorTab.b, anchored.b...)
	one := func(b []byte) [][]byte { return [][]byte{b} }
	secs := [][][]byte{one(fileOffs.b), one(fileData.b), one(rowData.b), one(flags.b), one(strs.b), one(termOffs.b),
		one(termData.b), one(postOffs.b), one(postData.b), blobs, one(meta.b), one(codeTab.b), one(anchorTab.b)}
	var hdr encoder
	hdr.b = append(hdr.b, segMagic...)
	for _, v := range []int{int(written), len(files), len(rows), len(vocab), sumTitle, sumBody, newest} {
		hdr.u64(uint64(v))
	}
	for _, sec := range secs {
		n := 0
		for _, p := range sec {
			n += len(p)
		}
		hdr.u64(uint64(n))
	}
	hdr.u32(len(tokVersion))
	hdr.b = append(hdr.b, tokVersion...)
	return encodedSegment{hdr: hdr.b, secs: secs}
}

func appendPosting(ps []uint32, row int, title bool) []uint32 {
	p := uint32(row) << 1
	if title {
		p |= 1
	}
	if n := len(ps); n > 0 && ps[n-1]>>1 == uint32(row) {
		return ps // a term repeated within one version
	}
	return append(ps, p)
}
