package wordvec

import (
	"encoding/binary"
	"math"
)

// Entry is a word of a table being made: how often the text it was learned
// from holds it, and its vector as learned.
type Entry struct {
	Word  string
	Count int
	Vec   []float64
}

// Encode lays out a table (see magic) of entries, most frequent first,
// each vector dim long; total is the count of every word of the text, and
// a the smooth inverse frequency constant of the weights, a/(a+p) for a
// word that is p of the text.
func Encode(entries []Entry, dim, total int, a float64) []byte {
	slots := 1
	for slots < 2*len(entries) {
		slots *= 2
	}
	// Unit vectors, scaled as one so that the largest component of any
	// is 127: the bytes keep as much precision as they can, and every
	// word keeps its length relative to the others.
	unit := make([][]float64, len(entries))
	top := 0.0
	for i, e := range entries {
		var n float64
		for _, x := range e.Vec {
			n += x * x
		}
		n = math.Sqrt(n)
		unit[i] = make([]float64, dim)
		for j, x := range e.Vec {
			if n > 0 {
				unit[i][j] = x / n
			}
			top = max(top, math.Abs(unit[i][j]))
		}
	}
	table := make([]uint32, slots)
	var body []byte
	for i, e := range entries {
		h := hash(e.Word) & uint32(slots-1)
		for table[h] != 0 {
			h = (h + 1) & uint32(slots-1)
		}
		table[h] = uint32(len(body) + 1)
		p := float64(e.Count) / float64(total)
		body = append(body, byte(len(e.Word)))
		body = append(body, e.Word...)
		body = append(body, byte(math.Round(255*a/(a+p))))
		for _, x := range unit[i] {
			body = append(body, byte(int8(math.Round(127*x/top))))
		}
	}
	buf := []byte(magic)
	for _, x := range []uint32{uint32(dim), uint32(len(entries)), uint32(slots)} {
		buf = binary.LittleEndian.AppendUint32(buf, x)
	}
	for _, x := range table {
		buf = binary.LittleEndian.AppendUint32(buf, x)
	}
	return append(buf, body...)
}
