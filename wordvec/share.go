package wordvec

import "math"

// A Query is a text prepared for Share: its distinct words, each with
// its weight and its entry in the table (-1: a word the table lacks), and
// what Share has looked up so far, which the next text it is given (the
// next candidate record) mostly shares.
type Query struct {
	t     *Table
	words []string
	ents  []entry
	wts   []float64
	total float64

	known map[string]*known // the words of the texts given so far
}

// known is a word of a text given to Share: its entry and its cosine with
// each word of the query (worked out once, as texts share words).
type known struct {
	entry
	cos []float64 // by query word; nil for a word the table lacks
}

// entry is a word's place in the table (off -1: not there) and the length
// of its vector.
type entry struct {
	off  int
	norm float64
}

func (t *Table) entry(w string) entry {
	off := t.lookup(w)
	if off < 0 {
		return entry{off: -1}
	}
	v := t.vec(off)
	return entry{off, math.Sqrt(float64(dot(v, v)))}
}

// Query prepares words (as Tokens splits a text) for Share.
func (t *Table) Query(words []string) *Query {
	q := &Query{t: t, known: map[string]*known{}}
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		e := t.entry(w)
		wt := 1.0 // a word the table lacks is rarer than any it holds
		if e.off >= 0 {
			wt = t.weight(e.off)
		}
		q.words, q.ents, q.wts = append(q.words, w), append(q.ents, e), append(q.wts, wt)
		q.total += wt
	}
	return q
}

// Share is how much of the query a text's words say, weighted by how
// telling each of the query's words is: a word the text holds counts
// fully, a word whose nearest word in the text is similar counts by how
// similar (nothing at a cosine of floor or below, all of it at 1), any
// other word not at all. It is 0 to 1, and 0 for a query without words.
func (q *Query) Share(words []string, floor float64) float64 {
	if q.total == 0 {
		return 0
	}
	has := map[string]bool{}
	best := make([]float64, len(q.words))
	for k := range best {
		best[k] = -1
	}
	for _, w := range words {
		if has[w] {
			continue
		}
		has[w] = true
		for k, c := range q.cosines(w) {
			best[k] = max(best[k], c)
		}
	}
	var got float64
	for k, w := range q.words {
		switch {
		case has[w]:
			got += q.wts[k]
		case best[k] > floor:
			got += q.wts[k] * (best[k] - floor) / (1 - floor)
		}
	}
	return got / q.total
}

// cosines are the cosines of w with each word of the query (nil when
// the table lacks w).
func (q *Query) cosines(w string) []float64 {
	kn, ok := q.known[w]
	if !ok {
		kn = &known{entry: q.t.entry(w)}
		if kn.off >= 0 && kn.norm > 0 {
			kn.cos = make([]float64, len(q.words))
			v := q.t.vec(kn.off)
			for k, e := range q.ents {
				kn.cos[k] = -1
				if e.off >= 0 && e.norm > 0 {
					kn.cos[k] = float64(dot(q.t.vec(e.off), v)) / (e.norm * kn.norm)
				}
			}
		}
		q.known[w] = kn
	}
	return kn.cos
}

// dot is the dot product of two vectors of int8s.
func dot(a, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(int8(a[i])) * int32(int8(b[i]))
		s1 += int32(int8(a[i+1])) * int32(int8(b[i+1]))
		s2 += int32(int8(a[i+2])) * int32(int8(b[i+2]))
		s3 += int32(int8(a[i+3])) * int32(int8(b[i+3]))
	}
	for ; i < len(a); i++ {
		s0 += int32(int8(a[i])) * int32(int8(b[i]))
	}
	return s0 + s1 + s2 + s3
}
