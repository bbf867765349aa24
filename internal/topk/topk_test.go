package topk

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTopMatchesSortAndCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{0, 1, 3, 20, 1000} {
		xs := make([]int, 500)
		for i := range xs {
			xs[i] = rng.IntN(50)
		}
		top := New(k, cmp.Compare[int])
		for _, x := range xs {
			top.Offer(x)
		}
		want := slices.Clone(xs)
		slices.Sort(want)
		if k > 0 && k < len(want) {
			want = want[:k]
		}
		if got := top.Items(); !slices.Equal(got, want) {
			t.Fatalf("k=%d: %v, want %v", k, got, want)
		}
	}
}
