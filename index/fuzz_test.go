package index

import (
	"encoding/binary"
	"reflect"
	"slices"
	"testing"
	"time"

	"lore/record"
)

// fuzzSegment is a small valid segment's file: three record versions (two
// of one anchored decision) in two shards.
func fuzzSegment() []byte {
	tok := tokenizer()
	ts := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	dec := &record.Record{V: 1, ID: record.NewID(record.Decision, ts), Kind: record.Decision, Time: ts, Created: ts,
		Text: "deploy through the staging pipeline", Rationale: "prod broke twice",
		Anchors: []record.Anchor{{Path: "deploy/ci.yml", Blob: "0123abcd", Start: 3, End: 9}}}
	rev := *dec
	rev.Time, rev.Status = ts.Add(time.Hour), "superseded"
	fail := &record.Record{V: 1, ID: record.NewID(record.Failure, ts), Kind: record.Failure, Time: ts, Created: ts,
		Text: "go test timed out on CI", ErrorType: "Timeout"}
	dict := newTermDict()
	file := func(rel string, recs ...*record.Record) *shardFile {
		f := &shardFile{rel: rel, size: 100, mtime: ts.UnixNano(), ino: 7, sum: 9}
		for _, r := range recs {
			t, b := tok.Terms(r)
			var enc encoder
			encodeRecord(&enc, r)
			f.versions = append(f.versions, newVersion(r, enc.b, t, b, dict))
		}
		return f
	}
	files := []*shardFile{file("journal/2025-03/a.jsonl", dec, &rev), file("failures/2025-03/b.jsonl", fail)}
	return slices.Concat(encodeSegment(tok.Version, ts.UnixNano(), files, dict).parts()...)
}

// A damaged segment file is refused, or read without a crash: parseSegment
// checks the framing and every accessor its own bounds (a damaged file
// yields empty values). The fuzzer writes bytes over a valid segment, at
// offsets past its header, so that most inputs keep the framing and reach
// the accessors.
func FuzzSegment(f *testing.F) {
	valid := fuzzSegment()
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0xff})
	f.Add([]byte{200, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, patch []byte) {
		data := slices.Clone(valid)
		// patch is a list of (offset, bytes) edits: a 4-byte offset, a
		// length byte, then that many bytes to write there.
		for len(patch) >= 5 {
			off := int(binary.LittleEndian.Uint32(patch)) % len(data)
			n := min(int(patch[4]), len(patch)-5)
			copy(data[off:], patch[5:5+n])
			patch = patch[5+n:]
		}
		seg, err := parseSegment("fuzz", data, tokenizer().Version)
		if err != nil {
			return
		}
		dict := newTermDict()
		for i := range seg.nRows {
			seg.rowID(i)
			seg.rowTime(i)
			seg.rowCreated(i)
			seg.rowFile(i)
			seg.lengths(i)
			seg.kindStatus(i)
			seg.doc(i)
			seg.record(i)
			_, _ = seg.version(i, dict)
		}
		for i := range seg.nTerms {
			seg.findTerm(seg.term(i))
			seg.postings(i, func(int, bool) {})
		}
		for i := range seg.nFiles {
			for _, row := range seg.file(i).rows {
				seg.rowID(row) // a row a damaged entry names is one of the segment's
			}
		}
		seg.eachAnchored(func(row int, _ []record.Anchor) { seg.rowID(row) })
		if n := seg.nAnchors(); n > len(data) {
			t.Fatalf("%d anchors claimed by a %d-byte segment", n, len(data))
		}
		snap := newSnapshot([]*segment{seg}, nil)
		for i := range snap.Len() {
			snap.Record(i)
			snap.History(snap.Doc(i).ID)
			snap.Shards(snap.Doc(i).ID)
		}
		snap.Records()
		snap.Newest(5, nil, func(record.Kind, string) bool { return true })
		for range snap.OfKind(record.Failure) {
		}
		snap.Anchored(func(int, []record.Anchor) {})
		snap.Postings("deploy")
		snap.TermsWithPrefix("de")
		_, _ = snap.Resolve("dec")
	})
}

// The fuzzer's starting point is a segment the readers accept whole.
func TestFuzzSegmentSeedIsValid(t *testing.T) {
	seg, err := parseSegment("seed", fuzzSegment(), tokenizer().Version)
	if err != nil {
		t.Fatal(err)
	}
	snap := newSnapshot([]*segment{seg}, nil)
	if seg.nRows != 3 || seg.nFiles != 2 || snap.Count() != 2 || seg.nAnchors() != 2 {
		t.Fatalf("seed segment: %d rows, %d files, %d current records, %d anchors; want 3, 2, 2, 2",
			seg.nRows, seg.nFiles, snap.Count(), seg.nAnchors())
	}
}

// A damaged manifest is refused or read whole, never a crash; what is read
// encodes back to the same bytes, so nothing a manifest says is lost when
// the next scan writes it again.
func FuzzManifest(f *testing.F) {
	tok := tokenizer().Version
	m := &manifest{written: 1740787200000000000, segs: []string{"seg-1", "seg-2"},
		dirs:    map[string]*dirEntry{"journal": {mtime: 5, subdirs: []string{"2025-03"}}, "journal/2025-03": {mtime: -3}},
		warns:   map[string][]record.Warning{"journal/2025-03/a.jsonl": {{Pos: record.Pos{File: "a.jsonl", Line: 2}, Kind: 1, Msg: "bad line"}}},
		pending: []string{"failures/2025-03/b.jsonl"}, resolved: "\x01\x02", sums: []uint32{7, 1 << 31}}
	if !reflect.DeepEqual(decodeManifest(m.encode(tok), tok), m) {
		f.Fatalf("the seed manifest does not read back as itself")
	}
	f.Add(m.encode(tok))
	f.Add([]byte("LOREIDX3\x04test\x00\x00\x00\x00\x00"))
	f.Add([]byte("LOREIDX4"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := decodeManifest(data, tok)
		if got == nil || string(data[:len(manifestMagic)]) != manifestMagic {
			return // refused, or an older format (re-encoded as the current one)
		}
		again := decodeManifest(got.encode(tok), tok)
		if again == nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("read %+v; encoded and read again: %+v", got, again)
		}
	})
}
