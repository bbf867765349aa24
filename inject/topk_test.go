package inject

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The first-pass shortlist keeps the same candidates whatever order they
// come in: ties go by ID, as the order follows where records sit in the
// index's files (one file or several for the same store).
func TestTopKKeepsTiesByIDWhateverTheOrder(t *testing.T) {
	ids := []string{"dec-e", "dec-a", "dec-d", "dec-b", "dec-c", "dec-f"}
	scores := []float64{2, 1, 1, 1, 1, 3}
	kept := func(order []int) []string {
		top := newTopK(4, func(a, b int) int { return strings.Compare(ids[a], ids[b]) })
		for _, i := range order {
			top.offer(i, scores[i])
		}
		var out []string
		for _, it := range top.items {
			out = append(out, ids[it.d])
		}
		slices.Sort(out)
		return out
	}
	want := []string{"dec-a", "dec-b", "dec-e", "dec-f"} // 3, 2, then the two first IDs of score 1
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		order := rng.Perm(len(ids))
		if got := kept(order); !slices.Equal(got, want) {
			t.Fatalf("offered in order %v: kept %v, want %v", order, got, want)
		}
	}
}
