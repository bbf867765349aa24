package index

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"time"

	"lore/record"
)

// A small binary encoding for the index: varints, length-prefixed strings
// and fixed-width little-endian integers. The reader checks every bound,
// so a damaged index file reads as an error (and is rebuilt), never as a
// panic.

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)    { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)   { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(p []byte) { e.uint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *encoder) float(f float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(f))
}
func (e *encoder) bool(v bool) {
	if v {
		e.uint(1)
	} else {
		e.uint(0)
	}
}
func (e *encoder) u16(v int)    { e.b = binary.LittleEndian.AppendUint16(e.b, uint16(v)) }
func (e *encoder) u32(v int)    { e.b = binary.LittleEndian.AppendUint32(e.b, uint32(v)) }
func (e *encoder) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// decoder reads from a string so decoded strings share its memory: one
// copy of the file instead of one allocation per string.
type decoder struct {
	b   string
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	ux, n := uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	v := int64(ux >> 1)
	if ux&1 != 0 {
		v = ^v
	}
	return v
}

// uvarint is binary.Uvarint for a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// count reads a length and checks it against what is left, so a damaged
// length cannot ask for a huge allocation.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.err = errCorrupt
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) float() float64 {
	if d.err != nil || len(d.b) < 8 {
		d.err = errCorrupt
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64([]byte(d.b[:8])))
	d.b = d.b[8:]
	return v
}

func (d *decoder) strs() []string {
	n := d.count()
	if n == 0 || d.err != nil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

// A record in the index: every field, unknown ones as JSON.
func encodeRecord(e *encoder, r *record.Record) {
	encodeAnchors(e, r.Anchors)
	e.uint(uint64(r.V))
	e.str(r.ID)
	e.str(string(r.Kind))
	e.int(r.Time.UnixNano())
	e.int(r.Created.UnixNano())
	for _, s := range []string{r.Status, r.Text, r.Author, r.Branch, r.Commit, r.Rationale, r.Alternatives,
		r.Context, r.Solution, r.ErrorType, r.Tool, r.PromotedTo, r.From, r.Source.File} {
		e.str(s)
	}
	e.uint(uint64(r.Source.Line))
	e.strs(r.Tags)
	e.strs(r.Next)
	e.strs(r.Blocked)
	var flags uint64
	if r.Anti {
		flags |= 1
	}
	if r.Confidence != nil {
		flags |= 2
	}
	e.uint(flags)
	if r.Confidence != nil {
		e.float(*r.Confidence)
	}
	e.uint(uint64(r.Validations))
	var extra []byte
	if len(r.Extra) > 0 {
		extra, _ = json.Marshal(r.Extra)
	}
	e.bytes(extra)
}

func encodeAnchors(e *encoder, anchors []record.Anchor) {
	e.uint(uint64(len(anchors)))
	for _, a := range anchors {
		e.str(a.Path)
		e.str(a.Blob)
		e.uint(uint64(a.Start))
		e.uint(uint64(a.End))
		e.str(a.Commit)
	}
}

// decodeAnchors appends what encodeAnchors wrote to out.
func decodeAnchors(d *decoder, out []record.Anchor) []record.Anchor {
	n := d.count()
	if n == 0 || d.err != nil {
		return out
	}
	for range n {
		out = append(out, record.Anchor{Path: d.str(), Blob: d.str(), Start: int(d.uint()), End: int(d.uint()), Commit: d.str()})
	}
	return out
}

func decodeRecord(d *decoder) *record.Record {
	anchors := decodeAnchors(d, nil)
	r := &record.Record{V: int(d.uint()), ID: d.str(), Kind: record.Kind(d.str()), Anchors: anchors}
	r.Time = time.Unix(0, d.int()).UTC()
	r.Created = time.Unix(0, d.int()).UTC()
	for _, p := range []*string{&r.Status, &r.Text, &r.Author, &r.Branch, &r.Commit, &r.Rationale, &r.Alternatives,
		&r.Context, &r.Solution, &r.ErrorType, &r.Tool, &r.PromotedTo, &r.From, &r.Source.File} {
		*p = d.str()
	}
	r.Source.Line = int(d.uint())
	r.Tags, r.Next, r.Blocked = d.strs(), d.strs(), d.strs()
	flags := d.uint()
	r.Anti = flags&1 != 0
	if flags&2 != 0 {
		c := d.float()
		r.Confidence = &c
	}
	r.Validations = int(d.uint())
	if extra := d.str(); len(extra) > 0 {
		_ = json.Unmarshal([]byte(extra), &r.Extra)
	}
	return r
}

// A warning: where, what kind, what.
func (e *encoder) warning(w record.Warning) {
	e.str(w.Pos.File)
	e.uint(uint64(w.Pos.Line))
	e.uint(uint64(w.Kind))
	e.str(w.Msg)
}

func (d *decoder) warning() record.Warning {
	return record.Warning{Pos: record.Pos{File: d.str(), Line: int(d.uint())}, Kind: record.WarningKind(d.uint()), Msg: d.str()}
}
