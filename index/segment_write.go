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
// record encoded (encodeRecord), and its search terms as numbers in the
// build's dictionary. A cold build holds every version of the store at
// once, so it holds no pointers it can do without: at 100k records, a
// whole record.Record per version cost 45 MB and terms as strings 24 MB,
// all of it scanned by every collection.
type version struct {
	id, kind, status, errorType, tool string
	time, created                     int64   // UnixNano
	confidence                        float64 // NaN: none
	anchors                           []record.Anchor
	enc                               []byte
	title, body                       []uint32
}

// newVersion is r's version, r encoded as enc.
func newVersion(r *record.Record, enc []byte, title, body []uint32) version {
	v := version{id: r.ID, kind: string(r.Kind), status: r.Status, errorType: r.ErrorType, tool: r.Tool,
		time: r.Time.UnixNano(), created: r.Created.UnixNano(), confidence: math.NaN(),
		anchors: r.Anchors, enc: enc, title: title, body: body}
	if r.Confidence != nil {
		v.confidence = *r.Confidence
	}
	return v
}

// whole decodes the version's record.
func (v *version) whole() *record.Record { return decodeRecord(&decoder{b: string(v.enc)}) }

// termDict numbers the distinct terms of one build, for the parse workers
// together: a number is a quarter of a string's header and holds no
// pointer, and the vocabulary is small next to the terms' occurrences.
type termDict struct {
	mu    sync.Mutex
	ids   map[string]uint32
	terms []string
}

func newTermDict() *termDict { return &termDict{ids: map[string]uint32{}} }

// number returns the numbers of ts, adding the terms it has not seen.
func (d *termDict) number(ts []string) []uint32 {
	if len(ts) == 0 {
		return nil
	}
	out := make([]uint32, len(ts))
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
	return out
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
		for _, t := range r.v.title {
			posts[t] = appendPosting(posts[t], ri, true)
		}
		for _, t := range r.v.body {
			if !slices.Contains(r.v.title, t) {
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
	var anchorTab encoder
	nAnchors := 0
	for _, r := range rows {
		nAnchors += len(r.v.anchors)
	}
	anchorTab.uint(uint64(nAnchors))
	lastAnchored := 0
	for ri, r := range rows {
		v := r.v
		fileRows[r.file] = append(fileRows[r.file], ri)
		nTitle, nBody := min(len(v.title), math.MaxUint16), min(len(v.body), math.MaxUint16)
		rowData.u32(len(strs.b)) // IDs are unique: not worth interning
		strs.str(v.id)
		rowData.u32(ref(v.kind))
		rowData.u32(ref(v.status))
		rowData.u32(ref(v.errorType))
		rowData.u32(ref(v.tool))
		rowData.u32(r.file)
		rowData.u32(blobOff)
		rowData.u16(nTitle)
		rowData.u16(nBody)
		rowData.u64(uint64(v.time))
		rowData.u64(uint64(v.created))
		rowData.u64(math.Float64bits(v.confidence))
		meta.b = append(meta.b, codeOf(v.kind), codeOf(v.status))
		meta.u16(nTitle)
		meta.u16(nBody)
		var fl byte
		if ri == len(rows)-1 || rows[ri+1].v.id != v.id {
			fl |= flagNewest
			newest++
			sumTitle += len(v.title)
			sumBody += len(v.body)
		}
		if len(v.anchors) > 0 {
			anchorTab.uint(uint64(ri - lastAnchored))
			encodeAnchors(&anchorTab, v.anchors)
			lastAnchored = ri
		}
		flags.b = append(flags.b, fl)
		start := len(termLists.b)
		for _, ts := range [][]uint32{v.title, v.body} {
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

	var codeTab encoder
	codeTab.strs(codes)
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
