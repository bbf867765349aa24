// Package index is the derived, rebuildable index over a store's records:
// the current version of every record, its search terms and an inverted
// index, kept in .lore/.local (never committed) and checked against the
// shards before it is trusted. Deleting it loses nothing.
package index
