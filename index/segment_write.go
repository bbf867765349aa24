package index

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

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

// version is one record version with its search terms.
type version struct {
	// rec is the record, or, when enc is set, only its rowFields.
	rec         *record.Record
	title, body []string
	enc         []byte // the whole record encoded (encodeRecord) by the parse workers; nil: not yet
}

// rowFields is what a segment sorts by and keeps in its rows of r.
func rowFields(r *record.Record) *record.Record {
	return &record.Record{ID: r.ID, Kind: r.Kind, Status: r.Status, ErrorType: r.ErrorType, Tool: r.Tool,
		Time: r.Time, Created: r.Created, Confidence: r.Confidence, Anchors: r.Anchors}
}

// anchored reports whether the version has anchors; the row fields keep
// them for this (see rowFields).
func (v *version) anchored() bool { return len(v.rec.Anchors) > 0 }

// whole is the version's whole record, as the segment will hold it.
func (v *version) whole() *record.Record {
	if v.enc == nil {
		return v.rec
	}
	return decodeRecord(&decoder{b: string(v.enc)})
}

// encodeSegment lays out the versions of files as a segment.
func encodeSegment(tokVersion string, written int64, files []*shardFile) encodedSegment {
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
		a, b := x.v.rec, y.v.rec
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		if !a.Time.Equal(b.Time) {
			return a.Time.Compare(b.Time)
		}
		// A tie (doctor reports them) is broken by content, as the
		// snapshot breaks it across segments: by the records it decodes.
		switch wa, wb := x.v.whole(), y.v.whole(); {
		case record.Newer(wb, wa):
			return -1
		case record.Newer(wa, wb):
			return 1
		}
		return cmp.Or(cmp.Compare(x.file, y.file), cmp.Compare(x.n, y.n))
	})
	// Vocabulary and postings, rows in order so postings ascend.
	posts := map[string][]uint64{}
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
	vocab := make([]string, 0, len(posts))
	for t := range posts {
		vocab = append(vocab, t)
	}
	sort.Strings(vocab)
	termIdx := make(map[string]uint64, len(vocab))
	var termOffs, termData, postOffs, postData encoder
	for i, t := range vocab {
		termIdx[t] = uint64(i)
		termOffs.u32(len(termData.b))
		termData.b = append(termData.b, t...)
		postOffs.u32(len(postData.b))
		prev := uint64(0)
		for _, p := range posts[t] {
			postData.uint(p - prev)
			prev = p
		}
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
	blobs := encoder{make([]byte, 0, 512*len(rows))}
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
		nAnchors += len(r.v.rec.Anchors)
	}
	anchorTab.uint(uint64(nAnchors))
	lastAnchored := 0
	for ri, r := range rows {
		rec := r.v.rec
		fileRows[r.file] = append(fileRows[r.file], ri)
		d := docOf(*r.v)
		conf := math.NaN()
		if rec.Confidence != nil {
			conf = *rec.Confidence
		}
		rowData.u32(len(strs.b)) // IDs are unique: not worth interning
		strs.str(rec.ID)
		rowData.u32(ref(string(rec.Kind)))
		rowData.u32(ref(rec.Status))
		rowData.u32(ref(rec.ErrorType))
		rowData.u32(ref(rec.Tool))
		rowData.u32(r.file)
		rowData.u32(len(blobs.b))
		rowData.u16(min(d.NTitle, math.MaxUint16))
		rowData.u16(min(d.NBody, math.MaxUint16))
		rowData.u64(uint64(rec.Time.UnixNano()))
		rowData.u64(uint64(rec.Created.UnixNano()))
		rowData.u64(math.Float64bits(conf))
		meta.b = append(meta.b, codeOf(string(rec.Kind)), codeOf(rec.Status))
		meta.u16(min(d.NTitle, math.MaxUint16))
		meta.u16(min(d.NBody, math.MaxUint16))
		var fl byte
		if ri == len(rows)-1 || rows[ri+1].v.rec.ID != rec.ID {
			fl |= flagNewest
			newest++
			sumTitle += d.NTitle
			sumBody += d.NBody
		}
		if r.v.anchored() {
			anchorTab.uint(uint64(ri - lastAnchored))
			encodeAnchors(&anchorTab, rec.Anchors)
			lastAnchored = ri
		}
		flags.b = append(flags.b, fl)
		if r.v.enc != nil {
			blobs.b = append(blobs.b, r.v.enc...)
		} else {
			encodeRecord(&blobs, rec)
		}
		for _, ts := range [][]string{r.v.title, r.v.body} {
			blobs.uint(uint64(len(ts)))
			for _, t := range ts {
				blobs.uint(termIdx[t])
			}
		}
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
	sections := [][]byte{fileOffs.b, fileData.b, rowData.b, flags.b, strs.b, termOffs.b, termData.b, postOffs.b, postData.b, blobs.b, meta.b, codeTab.b, anchorTab.b}
	var hdr encoder
	hdr.b = append(hdr.b, segMagic...)
	for _, v := range []int{int(written), len(files), len(rows), len(vocab), sumTitle, sumBody, newest} {
		hdr.u64(uint64(v))
	}
	for _, sec := range sections {
		hdr.u64(uint64(len(sec)))
	}
	hdr.u32(len(tokVersion))
	hdr.b = append(hdr.b, tokVersion...)
	return append(encodedSegment{hdr.b}, sections...)
}

func appendPosting(ps []uint64, row int, title bool) []uint64 {
	p := uint64(row) << 1
	if title {
		p |= 1
	}
	if n := len(ps); n > 0 && ps[n-1]>>1 == uint64(row) {
		return ps // a term repeated within one version
	}
	return append(ps, p)
}
