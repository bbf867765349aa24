package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"lore/record"
)

// loaded maps the segments the manifest names, as a reader does.
func loaded(t *testing.T, sc *scan) []*segment {
	t.Helper()
	if sc.old == nil || !sc.loadSegments() {
		t.Fatal("no usable index")
	}
	return sc.segs
}

// After a checkout has left the index in several segments, the manifest
// carries their resolution, equal to what a reader would compute, so later
// readers do not look up every changed record again; a manifest without
// one (an older lore's, or damaged) is served correctly and written again
// with it.
func TestResolutionIsKeptInTheManifest(t *testing.T) {
	defer func(n int) { smallSegment = n }(smallSegment)
	smallSegment = 4 // every update stays a segment of its own
	s := newTestStore(t)
	paths := writeShards(t, s, 40, 3)
	age(t, s.Dir, time.Hour)
	open(t, s, true)
	for i, p := range paths {
		if i%4 == 0 {
			os.Remove(p)
			writeRecords(t, p, record.Decision, 2, i) // older versions of the same records, fewer of them
		}
	}
	age(t, s.Dir, 30*time.Minute)
	mustMatch(t, s, open(t, s, true), "after the checkout")

	sc := newScan(t.Context(), s, tokenizer())
	segs := loaded(t, sc)
	if len(segs) < 2 {
		t.Fatalf("%d segments: the test needs a newer segment over an older one", len(segs))
	}
	kept := decodeResolution(sc.old.resolved, segs)
	if kept == nil {
		t.Fatal("the manifest holds no resolution of its segments")
	}
	want := resolve(segs)
	if !reflect.DeepEqual(kept, want) {
		t.Fatalf("kept resolution %+v, computed %+v", kept, want)
	}
	flips := 0
	for _, f := range want.flip {
		f.each(func(int) { flips++ })
	}
	if flips == 0 {
		t.Fatal("the checkout outdated no row: the test does not exercise a resolution")
	}

	// A manifest of the previous format, and one whose resolution does
	// not fit its segments.
	for _, damage := range []struct {
		what  string
		write func(m *manifest) []byte
	}{
		{"LOREIDX3 manifest", func(m *manifest) []byte {
			return m.encodeAs(manifestMagicV3, tokenizer().stamp())
		}},
		{"LOREIDX4 manifest", func(m *manifest) []byte {
			m.resolved = "" // as if written before the checkout's
			return m.encodeAs(manifestMagicV4, tokenizer().stamp())
		}},
		{"resolution of other segments", func(m *manifest) []byte {
			m.resolved = string((&resolution{flip: make([]bitset, 1), dead: make([]bitset, 1)}).encode())
			return m.encode(tokenizer().stamp())
		}},
	} {
		m := readManifest(s, tokenizer())
		if err := os.WriteFile(manifestPath(s, tokenizer()), damage.write(m), 0o644); err != nil {
			t.Fatal(err)
		}
		if readManifest(s, tokenizer()) == nil {
			t.Fatalf("%s: not readable", damage.what)
		}
		mustMatch(t, s, open(t, s, true), damage.what)
		sc := newScan(t.Context(), s, tokenizer())
		if got := decodeResolution(sc.old.resolved, loaded(t, sc)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the next reader did not write the resolution back (%+v)", damage.what, got)
		}
	}
}

func TestSeekRowFindsEveryID(t *testing.T) {
	s := newTestStore(t)
	for i := range 30 {
		writeRecords(t, filepath.Join(s.Dir, "journal", "2024-01", fmt.Sprintf("s%02d.jsonl", i)), record.Decision, 3, i)
	}
	age(t, s.Dir, time.Hour)
	open(t, s, false)
	seg := loaded(t, newScan(t.Context(), s, tokenizer()))[0]
	for _, step := range []int{1, 2, 7, 50} {
		from := 0
		for row := 0; row < seg.nRows; row += step {
			id := seg.rowID(row)
			from = seg.seekRow(id, from)
			if from != seg.firstRow(id) {
				t.Fatalf("step %d: seekRow(%s) = %d, firstRow %d", step, id, from, seg.firstRow(id))
			}
		}
		if got := seg.seekRow("~", from); got != seg.nRows {
			t.Fatalf("an ID after every row: %d, want %d", got, seg.nRows)
		}
	}
}

// A resolution read from a damaged manifest is refused or stays within
// its segments' rows, and what is accepted encodes back to itself.
func FuzzDecodeResolution(f *testing.F) {
	segs := []*segment{{nRows: 70}, {nRows: 3}}
	var two resolution
	two.flip, two.dead = make([]bitset, 2), make([]bitset, 2)
	two.flip[0].set(64, 70)
	two.dead[0].set(2, 70)
	two.flip[1].set(1, 3)
	f.Add(string(two.encode()))
	f.Add("")
	f.Add("\x02\x01\x45\x00\x00\x00")
	f.Fuzz(func(t *testing.T, b string) {
		r := decodeResolution(b, segs)
		if r == nil {
			return
		}
		for i, seg := range segs {
			for _, set := range []bitset{r.flip[i], r.dead[i]} {
				set.each(func(row int) {
					if row >= seg.nRows {
						t.Fatalf("segment %d: row %d of %d", i, row, seg.nRows)
					}
				})
			}
		}
		if again := decodeResolution(string(r.encode()), segs); !reflect.DeepEqual(again, r) {
			t.Fatalf("encoded and read back: %+v, want %+v", again, r)
		}
	})
}
