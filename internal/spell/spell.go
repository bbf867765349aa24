// Package spell finds the word a user probably meant: the one name among
// those lore knows that a typo is closest to, for "did you mean" hints.
package spell

import "sort"

// Closest returns the candidate within edit distance maxDist of s, if any:
// the nearest, and of equally near ones the first in sorted order, so the
// hint does not depend on the order cands come in.
func Closest(s string, cands []string, maxDist int) string {
	best, bestD := "", maxDist+1
	sorted := append([]string(nil), cands...)
	sort.Strings(sorted)
	for _, c := range sorted {
		if d := distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
