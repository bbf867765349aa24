package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// commitTree returns the ID of the tree a commit records, read from the
// repository's own object store: a loose object, or a whole (not
// deltified) object in a pack with a version 2 index. ok is false in every
// other case (an alternate object store, a deltified commit, a damaged
// file), where the caller asks git. Only the commit's first line is read.
func commitTree(r *Repo, commit string, hashSize int) (tree string, ok bool) {
	id, err := hex.DecodeString(commit)
	if err != nil || len(id) != hashSize {
		return "", false
	}
	objects := filepath.Join(r.CommonDir, "objects")
	if f, err := os.Open(filepath.Join(objects, commit[:2], commit[2:])); err == nil {
		defer f.Close()
		return treeLine(f, true, hashSize)
	}
	packs, _ := filepath.Glob(filepath.Join(objects, "pack", "*.idx"))
	for _, idx := range packs {
		if off, found := packOffset(idx, id); found {
			pack, err := os.Open(strings.TrimSuffix(idx, ".idx") + ".pack")
			if err != nil {
				return "", false
			}
			defer pack.Close()
			return packedTree(pack, off, hashSize)
		}
	}
	return "", false
}

// packOffset looks id up in a version 2 pack index: a header, 256 counts
// by first byte, the sorted IDs, their CRCs, their 4-byte offsets, then
// 8-byte offsets for those whose high bit sends them there.
func packOffset(path string, id []byte) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	head := make([]byte, 8+256*4)
	if _, err := f.ReadAt(head, 0); err != nil || string(head[:8]) != "\xfftOc\x00\x00\x00\x02" {
		return 0, false
	}
	fanout := func(b int) uint32 { return binary.BigEndian.Uint32(head[8+4*b:]) }
	var lo uint32
	if id[0] > 0 {
		lo = fanout(int(id[0]) - 1)
	}
	hi, n := fanout(int(id[0])), fanout(255)
	size := int64(len(id))
	fi, err := f.Stat()
	if err != nil || lo > hi || hi > n || int64(len(head))+int64(n)*(size+8) > fi.Size() {
		return 0, false // counts the file cannot hold: damaged
	}
	ids := make([]byte, int64(hi-lo)*size)
	if _, err := f.ReadAt(ids, int64(len(head))+int64(lo)*size); err != nil {
		return 0, false
	}
	for i := int64(0); i < int64(hi-lo); i++ {
		if !bytes.Equal(ids[i*size:(i+1)*size], id) {
			continue
		}
		at := int64(len(head)) + int64(n)*(size+4) + (int64(lo)+i)*4
		var b [8]byte
		if _, err := f.ReadAt(b[:4], at); err != nil {
			return 0, false
		}
		off := binary.BigEndian.Uint32(b[:4])
		if off&0x80000000 == 0 {
			return int64(off), true
		}
		at = int64(len(head)) + int64(n)*(size+8) + int64(off&0x7fffffff)*8
		if _, err := f.ReadAt(b[:], at); err != nil {
			return 0, false
		}
		return int64(binary.BigEndian.Uint64(b[:])), true
	}
	return 0, false
}

// packedTree reads the commit stored at off in a pack: a header whose
// bits 4–6 say the object's type (1, a commit; a delta is another type),
// continued while the high bit is set, then the zlib-compressed object.
func packedTree(pack *os.File, off int64, hashSize int) (string, bool) {
	var head [16]byte
	n, _ := pack.ReadAt(head[:], off)
	if n == 0 || head[0]>>4&7 != 1 {
		return "", false
	}
	i := 0
	for head[i]&0x80 != 0 {
		if i++; i >= n {
			return "", false
		}
	}
	return treeLine(io.NewSectionReader(pack, off+int64(i)+1, 1<<20), false, hashSize)
}

// treeLine reads a commit's first line, "tree ID", from its compressed
// form; a loose object starts with the header "commit SIZE" and a NUL.
func treeLine(compressed io.Reader, loose bool, hashSize int) (string, bool) {
	z, err := zlib.NewReader(compressed)
	if err != nil {
		return "", false
	}
	defer z.Close()
	buf := make([]byte, 32+len("tree \n")+2*hashSize)
	n, _ := io.ReadFull(z, buf)
	text := buf[:n]
	if loose {
		header, rest, ok := bytes.Cut(text, []byte{0})
		if !ok || !bytes.HasPrefix(header, []byte("commit ")) {
			return "", false
		}
		text = rest
	}
	tree, ok := bytes.CutPrefix(text, []byte("tree "))
	if !ok || len(tree) <= 2*hashSize || tree[2*hashSize] != '\n' {
		return "", false
	}
	if id, err := hex.DecodeString(string(tree[:2*hashSize])); err != nil || hex.EncodeToString(id) != string(tree[:2*hashSize]) {
		return "", false // git writes IDs in lower case
	}
	return string(tree[:2*hashSize]), true
}

// HeadTree is the object ID of the tree HEAD's commit holds, read from a
// loose object or a pack without running git; ok is false without a
// commit or when lore cannot read it.
func (r *Repo) HeadTree() (tree string, ok bool) {
	_, commit, ok := r.head()
	if !ok {
		return "", false
	}
	return commitTree(r, commit, r.hashSize())
}
