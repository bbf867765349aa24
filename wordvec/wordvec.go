package wordvec

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"sync"
)

// The table's layout (little-endian), written by mkvec:
//
//	magic   "LOREWV1\n"
//	dim, words, slots   uint32 each (slots a power of two)
//	slots × uint32      an entry's offset + 1 at hash(word) & (slots-1), probed linearly; 0: empty
//	entries             one a word, most frequent first: its length (a byte), the word
//	                    (lower-case ASCII), its weight × 255 (a byte: rare words weigh
//	                    more), its unit vector × a scale shared by all (dim int8s)
//
// A word's entry is one run of bytes, and common words sit together at
// the start: a look-up touches the page of its slot and, mostly, one
// page of entries.
const magic = "LOREWV1\n"

//go:embed table.bin
var embedded []byte

// Table is a read-only table of word vectors.
type Table struct {
	dim, words, slots int
	slot              []byte // slots × 4
	entries           []byte
}

// Default is the table built into lore; it panics only if the embedded
// data is corrupt, which TestDefaultTable rules out.
var Default = sync.OnceValue(func() *Table {
	t, err := Parse(embedded)
	if err != nil {
		panic("wordvec: embedded table: " + err.Error())
	}
	return t
})

// Parse reads a table from data, which it keeps (nothing is copied). It
// checks the layout, not each entry: lookups bound every read.
func Parse(data []byte) (*Table, error) {
	if len(data) < len(magic)+12 || string(data[:len(magic)]) != magic {
		return nil, errors.New("not a word vector table")
	}
	u := func(i int) int { return int(binary.LittleEndian.Uint32(data[len(magic)+4*i:])) }
	t := &Table{dim: u(0), words: u(1), slots: u(2)}
	if t.dim <= 0 || t.dim > 1024 || t.slots&(t.slots-1) != 0 || t.slots < t.words {
		return nil, errors.New("bad table header")
	}
	rest := data[len(magic)+12:]
	if len(rest) < 4*t.slots {
		return nil, errors.New("table is truncated")
	}
	t.slot, t.entries = rest[:4*t.slots], rest[4*t.slots:]
	return t, nil
}

// Dim is the length of the table's vectors.
func (t *Table) Dim() int { return t.dim }

// Len is how many words the table holds.
func (t *Table) Len() int { return t.words }

// lookup returns the offset of word's entry, or -1.
func (t *Table) lookup(word string) int {
	mask := uint32(t.slots - 1)
	h := hash(word) & mask
	for range t.slots {
		off := int(binary.LittleEndian.Uint32(t.slot[4*h:])) - 1
		if off < 0 {
			return -1
		}
		if off >= len(t.entries) {
			return -1 // a corrupt slot: not found rather than a panic
		}
		n := int(t.entries[off])
		if off+1+n+1+t.dim <= len(t.entries) && string(t.entries[off+1:off+1+n]) == word {
			return off
		}
		h = (h + 1) & mask
	}
	return -1
}

// weight is the weight of the word whose entry is at off, 0 to 1.
func (t *Table) weight(off int) float64 {
	return float64(t.entries[off+1+int(t.entries[off])]) / 255
}

// vec is the vector of the word whose entry is at off.
func (t *Table) vec(off int) []byte {
	at := off + 1 + int(t.entries[off]) + 1
	return t.entries[at : at+t.dim]
}

// hash is 32-bit FNV-1a: where Encode places a word and lookup finds it.
func hash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
