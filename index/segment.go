package index

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"lore/record"
)

// A segment is one immutable file of the index: every version held by a
// set of shards, with their search terms and an inverted index. It is laid
// out so that a reader maps the file and touches only what it uses: rows
// of fixed width sorted by record ID, a sorted vocabulary with offset
// tables, postings, and each version's full encoding for when it is shown.
// A segment is written once (encodeSegment, in segment_write.go) and never
// changed; the index is a list of them (see manifest.go). This file reads
// one.
//
// Layout: magic, a header of counts and section lengths, the tokenizer's
// version, then the sections in the order of the fields below.

const segMagic = "LORESEG9"

const (
	rowSize = 60
	// flagNewest marks the newest version of its ID within the segment.
	flagNewest = 1
	// flagPurged marks a purge's tombstone: when it is the current version,
	// the record is gone.
	flagPurged = 2
)

// header fields after the magic, each a little-endian uint64.
const (
	hWritten = iota
	hFiles
	hRows
	hTerms
	hSumTitle
	hSumBody
	hNewest
	hSections // the first of nSections section lengths
)

const nSections = 13

// metaSize: per row, the kind and status as codes into the segment's code
// table and the two term counts: what ranking reads of every candidate,
// packed so that a large store's candidates touch few pages.
const metaSize = 6

// codeInRow marks a kind or status beyond the code table (read it from
// the row instead).
const codeInRow = 255

var errCorrupt = errors.New("index segment is damaged")

// segment is a mapped segment file (or one built in memory).
type segment struct {
	name                     string
	sum                      uint32 // crc32c of its file (manifest.sums); 0: not known
	written                  int64
	nFiles, nRows, nTerms    int
	sumTitle, sumBody        int
	nNewest                  int // rows newest of their ID in the segment, tombstones left out
	fileIdx, fileData        []byte
	rows, flags, strs        []byte
	meta                     []byte
	codes                    []string
	termIdx, termData        []byte
	postIdx, postData, blobs []byte
	// anchorTab lists the rows that name code they are about, each with
	// its anchors, one after the other: lore stale reads them in one
	// sweep instead of a page of blobs per row.
	anchorTab []byte
}

// parseSegment checks data's framing and slices it into sections. It does
// not read the sections: every accessor below checks its own bounds, so a
// damaged file yields empty values, never a crash, and a truncated one is
// refused here.
func parseSegment(name string, data []byte, tokVersion string) (*segment, error) {
	hdr, err := segmentHeader(data, tokVersion)
	if err != nil {
		return nil, err
	}
	secs := make([][]byte, nSections)
	off := len(hdr)
	for i := range secs {
		n := binary.LittleEndian.Uint64(hdr[len(segMagic)+8*(hSections+i):])
		if n > uint64(len(data)-off) {
			return nil, errCorrupt
		}
		secs[i] = data[off : off+int(n)]
		off += int(n)
	}
	if off != len(data) {
		return nil, errCorrupt
	}
	return newSegment(name, hdr, secs)
}

// segmentHeader is the framing at the start of data: magic, counts,
// section lengths and the tokenizer version, which must be tokVersion.
func segmentHeader(data []byte, tokVersion string) ([]byte, error) {
	hdr := len(segMagic) + 8*(hSections+nSections)
	if len(data) < hdr+4 || string(data[:len(segMagic)]) != segMagic {
		return nil, errCorrupt
	}
	tl := int(binary.LittleEndian.Uint32(data[hdr:]))
	if hdr+4+tl > len(data) || string(data[hdr+4:hdr+4+tl]) != tokVersion {
		return nil, errCorrupt
	}
	return data[:hdr+4+tl], nil
}

// maxCount bounds a segment's files, rows and terms.
const maxCount = 1 << 31

// newSegment assembles a segment from its header and sections.
func newSegment(name string, hdr []byte, secs [][]byte) (*segment, error) {
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(hdr[len(segMagic)+8*i:]) }
	// Counts past these could wrap the section sizes checked below (and
	// turn negative as ints); no store comes near them.
	if u(hFiles) > maxCount || u(hRows) > maxCount || u(hTerms) > maxCount || u(hNewest) > u(hRows) ||
		u(hSumTitle) > math.MaxInt32*maxCount || u(hSumBody) > math.MaxInt32*maxCount {
		return nil, errCorrupt
	}
	s := &segment{name: name, written: int64(u(hWritten)), nFiles: int(u(hFiles)), nRows: int(u(hRows)),
		nTerms: int(u(hTerms)), sumTitle: int(u(hSumTitle)), sumBody: int(u(hSumBody)), nNewest: int(u(hNewest))}
	var codes []byte
	for i, p := range []*[]byte{&s.fileIdx, &s.fileData, &s.rows, &s.flags, &s.strs, &s.termIdx, &s.termData, &s.postIdx, &s.postData, &s.blobs, &s.meta, &codes, &s.anchorTab} {
		if uint64(len(secs[i])) != u(hSections+i) {
			return nil, errCorrupt
		}
		*p = secs[i]
	}
	if len(s.fileIdx) != 4*(s.nFiles+1) || len(s.rows) != rowSize*s.nRows ||
		len(s.flags) != s.nRows || len(s.termIdx) != 4*(s.nTerms+1) || len(s.postIdx) != 4*(s.nTerms+1) ||
		len(s.meta) != metaSize*s.nRows {
		return nil, errCorrupt
	}
	d := &decoder{b: bytesString(codes)}
	if s.codes = d.strs(); d.err != nil {
		return nil, errCorrupt
	}
	return s, nil
}

// encodedSegment is a segment as encodeSegment lays it out: the header,
// then each section as one or more pieces. The records' encodings are
// pieces of the blobs section as the parse made them: a cold build would
// otherwise hold them twice (52 MB more at 100k records) until the
// segment is written, and the segment is read back from its file.
type encodedSegment struct {
	hdr  []byte
	secs [][][]byte
}

// parts are the segment's bytes in order, to be written.
func (e encodedSegment) parts() [][]byte {
	out := [][]byte{e.hdr}
	for _, sec := range e.secs {
		out = append(out, sec...)
	}
	return out
}

// open reads the segment from memory, joining the pieces of each section:
// for a snapshot of records held in memory (SnapshotOf), or when the
// segment's file cannot be written.
func (e encodedSegment) open(name, tokVersion string) (*segment, error) {
	hdr, err := segmentHeader(e.hdr, tokVersion)
	if err != nil || len(hdr) != len(e.hdr) || len(e.secs) != nSections {
		return nil, errCorrupt
	}
	secs := make([][]byte, nSections)
	for i, sec := range e.secs {
		secs[i] = slices.Concat(sec...)
	}
	return newSegment(name, hdr, secs)
}

func u32(b []byte, i int) int { return int(binary.LittleEndian.Uint32(b[4*i:])) }

// str reads an interned string at offset ref; the bytes are the mapping's.
func (s *segment) str(ref int) string {
	if ref >= len(s.strs) {
		return ""
	}
	n, k := binary.Uvarint(s.strs[ref:])
	if k <= 0 || n > uint64(len(s.strs)-ref-k) {
		return ""
	}
	return bytesString(s.strs[ref+k : ref+k+int(n)])
}

func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (s *segment) row(i int) []byte { return s.rows[i*rowSize : (i+1)*rowSize] }

func (s *segment) rowID(i int) string { return s.str(u32(s.row(i), 0)) }

func (s *segment) rowTime(i int) int64 { return int64(binary.LittleEndian.Uint64(s.row(i)[32:])) }

func (s *segment) rowCreated(i int) int64 { return int64(binary.LittleEndian.Uint64(s.row(i)[40:])) }

func (s *segment) rowFile(i int) int { return u32(s.row(i), 5) }

// rowAuthor is the reference of row i's author in the strings (see str):
// a store holds few authors, so a caller matches each reference once.
func (s *segment) rowAuthor(i int) int { return u32(s.row(i), 14) }

func (s *segment) newest(i int) bool { return s.flags[i]&flagNewest != 0 }
func (s *segment) purged(i int) bool { return s.flags[i]&flagPurged != 0 }

// eachAnchored calls fn with each row that names code and its anchors, in
// row order, from the anchor table; it stops at a damaged entry. The
// anchors are valid during the call only.
func (s *segment) eachAnchored(fn func(row int, anchors []record.Anchor)) {
	d := &decoder{b: bytesString(s.anchorTab)}
	d.uint() // the count of anchors: see nAnchors
	var buf []record.Anchor
	row := 0
	for len(d.b) > 0 {
		delta := d.uint()
		buf = decodeAnchors(d, buf[:0])
		if d.err != nil || delta >= uint64(s.nRows-row) {
			return
		}
		row += int(delta)
		fn(row, buf)
	}
}

// nAnchors is how many anchors the anchor table holds, current or not.
func (s *segment) nAnchors() int {
	d := &decoder{b: bytesString(s.anchorTab)}
	return d.count() // each anchor takes bytes of the table: a damaged count cannot size a huge slice
}

// lengths is row i's count of distinct headline and body terms.
func (s *segment) lengths(i int) (int, int) {
	m := s.meta[i*metaSize:]
	return int(binary.LittleEndian.Uint16(m[2:])), int(binary.LittleEndian.Uint16(m[4:]))
}

// kindStatus is row i's kind and status, from the code table.
func (s *segment) kindStatus(i int) (record.Kind, string) {
	m := s.meta[i*metaSize:]
	k, st := int(m[0]), int(m[1])
	var kind record.Kind
	var status string
	if k < len(s.codes) {
		kind = record.Kind(s.codes[k])
	} else {
		kind = record.Kind(s.str(u32(s.row(i), 1)))
	}
	if st < len(s.codes) {
		status = s.codes[st]
	} else {
		status = s.str(u32(s.row(i), 2))
	}
	return kind, status
}

// doc reads row i's summary.
func (s *segment) doc(i int) Doc {
	r := s.row(i)
	kind, status := s.kindStatus(i)
	errorType, tool := s.errorTool(i)
	return Doc{
		ID: s.str(u32(r, 0)), Kind: kind, Status: status,
		ErrorType: errorType, Tool: tool,
		NTitle: int(binary.LittleEndian.Uint16(r[28:])), NBody: int(binary.LittleEndian.Uint16(r[30:])),
		Time: int64(binary.LittleEndian.Uint64(r[32:])), Created: int64(binary.LittleEndian.Uint64(r[40:])),
		Confidence: math.Float64frombits(binary.LittleEndian.Uint64(r[48:])),
	}
}

// errorTool is row i's error type and tool.
func (s *segment) errorTool(i int) (errorType, tool string) {
	r := s.row(i)
	return s.str(u32(r, 3)), s.str(u32(r, 4))
}

// blob is the encoded version of row i, its terms after it.
func (s *segment) blob(i int) *decoder {
	off := u32(s.row(i), 6)
	if off >= len(s.blobs) {
		return &decoder{err: errCorrupt}
	}
	return &decoder{b: bytesString(s.blobs[off:])}
}

// record decodes row i's version.
func (s *segment) record(i int) *record.Record {
	d := s.blob(i)
	r := decodeRecord(d)
	if d.err != nil {
		doc := s.doc(i)
		return &record.Record{ID: doc.ID, Kind: doc.Kind, Status: doc.Status}
	}
	return r
}

// version is row i's version for a merge into a new segment, its terms
// numbered in dict. Its encoding is the mapping's bytes, not a copy.
func (s *segment) version(i int, dict *termDict) (version, error) {
	d := s.blob(i)
	blob := d.b
	r := decodeRecord(d)
	enc := unsafe.Slice(unsafe.StringData(blob), len(blob)-len(d.b))
	terms := func() []string {
		n := d.count()
		if n == 0 || d.err != nil {
			return nil
		}
		ts := make([]string, n)
		for j := range ts {
			if t := d.uint(); t < uint64(s.nTerms) {
				ts[j] = s.term(int(t))
			} else {
				d.err = errCorrupt
			}
		}
		return ts
	}
	title := terms()
	body := terms()
	return newVersion(r, enc, title, body, dict), d.err
}

// kindRows is the range of rows holding kind's versions: rows are sorted
// by ID, and an ID starts with its kind's prefix (record.Validate checks
// that they agree).
func (s *segment) kindRows(kind record.Kind) (lo, hi int) {
	if !kind.Known() {
		return 0, 0
	}
	p := kind.Prefix()
	return s.firstRow(p), s.firstRow(p + "\xff")
}

// firstRow is the first row whose ID is >= id.
func (s *segment) firstRow(id string) int {
	return sort.Search(s.nRows, func(i int) bool { return s.rowID(i) >= id })
}

func (s *segment) term(i int) string {
	a, b := u32(s.termIdx, i), u32(s.termIdx, i+1)
	if a > b || b > len(s.termData) {
		return ""
	}
	return bytesString(s.termData[a:b])
}

func (s *segment) findTerm(t string) (int, bool) {
	i := sort.Search(s.nTerms, func(i int) bool { return s.term(i) >= t })
	return i, i < s.nTerms && s.term(i) == t
}

// postingBytes is the size of term i's postings: at least one byte each
// (0 for a damaged entry, which postings skips too).
func (s *segment) postingBytes(i int) int {
	a, b := u32(s.postIdx, i), u32(s.postIdx, i+1)
	if a > b || b > len(s.postData) {
		return 0
	}
	return b - a
}

// postings calls fn for each row holding term i, in row order.
func (s *segment) postings(i int, fn func(row int, title bool)) {
	a, b := u32(s.postIdx, i), u32(s.postIdx, i+1)
	if a > b || b > len(s.postData) {
		return
	}
	d := &decoder{b: bytesString(s.postData[a:b])}
	var p uint64
	for len(d.b) > 0 && d.err == nil {
		p += d.uint()
		if row := int(p >> 1); row < s.nRows {
			fn(row, p&1 == 1)
		}
	}
}

// fileEntry is a shard as a segment recorded it.
type fileEntry struct {
	rel         string
	size, mtime int64
	ino         uint64
	sum         uint32 // CRC-32C of the content
	gone        bool   // a tombstone: the shard was removed
	rows        []int
	warns       []record.Warning
}

// fileRel is file i's path. i may come from a damaged row: it is checked
// like an offset.
func (s *segment) fileRel(i int) string {
	if i < 0 || i >= s.nFiles {
		return ""
	}
	a := u32(s.fileIdx, i)
	if a >= len(s.fileData) {
		return ""
	}
	d := &decoder{b: bytesString(s.fileData[a:])}
	return d.str()
}

// fileStat is file i's entry without its rows and warnings.
func (s *segment) fileStat(i int) (fileEntry, *decoder) {
	if i < 0 || i >= s.nFiles {
		return fileEntry{}, &decoder{err: errCorrupt}
	}
	a := u32(s.fileIdx, i)
	if a >= len(s.fileData) {
		return fileEntry{}, &decoder{err: errCorrupt}
	}
	d := &decoder{b: bytesString(s.fileData[a:])}
	return fileEntry{rel: d.str(), size: d.int(), mtime: d.int(), ino: d.uint(), sum: uint32(d.uint()), gone: d.uint() == 1}, d
}

func (s *segment) file(i int) fileEntry {
	f, d := s.fileStat(i)
	row := 0
	for n := d.count(); n > 0 && d.err == nil; n-- {
		// Rows ascend, each one of this segment's: a damaged delta
		// ends the list rather than name a row that is not there.
		delta := d.uint()
		if delta >= uint64(s.nRows-row) {
			d.err = errCorrupt
			break
		}
		row += int(delta)
		f.rows = append(f.rows, row)
	}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		f.warns = append(f.warns, d.warning())
	}
	return f
}

// findFile is the index of the file entry for rel.
func (s *segment) findFile(rel string) (int, bool) {
	i := sort.Search(s.nFiles, func(i int) bool { return s.fileRel(i) >= rel })
	return i, i < s.nFiles && s.fileRel(i) == rel
}

// filesUnder lists the entries in directory dir: directly in it, or at any
// depth if deep.
func (s *segment) filesUnder(dir string, deep bool) []int {
	prefix := dir + "/"
	var out []int
	for i := sort.Search(s.nFiles, func(i int) bool { return s.fileRel(i) >= prefix }); i < s.nFiles; i++ {
		rel := s.fileRel(i)
		if !strings.HasPrefix(rel, prefix) {
			break
		}
		if deep || !strings.Contains(rel[len(prefix):], "/") {
			out = append(out, i)
		}
	}
	return out
}
