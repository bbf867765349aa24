// Package topk keeps the first k of a stream in an order, without sorting
// the whole stream: what "newest 20 of 100,000" needs.
package topk

import "slices"

// Top holds the first k items offered, by cmp, in order.
type Top[T any] struct {
	k     int
	cmp   func(a, b T) int
	items []T
}

// New keeps the first k items by cmp; k <= 0 keeps them all.
func New[T any](k int, cmp func(a, b T) int) *Top[T] { return &Top[T]{k: k, cmp: cmp} }

// Offer considers x.
func (t *Top[T]) Offer(x T) {
	if t.k > 0 && len(t.items) == t.k && t.cmp(x, t.items[t.k-1]) >= 0 {
		return // not before the last kept: the common case costs one compare
	}
	if t.k <= 0 {
		t.items = append(t.items, x)
		return
	}
	i, _ := slices.BinarySearchFunc(t.items, x, t.cmp)
	for i < len(t.items) && t.cmp(t.items[i], x) == 0 {
		i++ // equal items keep the order they were offered in
	}
	t.items = slices.Insert(t.items, i, x)
	if len(t.items) > t.k {
		t.items = t.items[:t.k]
	}
}

// Items are the kept items, in order.
func (t *Top[T]) Items() []T {
	if t.k <= 0 {
		slices.SortStableFunc(t.items, t.cmp)
	}
	return t.items
}
