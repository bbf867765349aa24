// Package store owns the .lore directory on disk: finding and creating it,
// the sharded append-only files and how a writer picks its shard, the write
// lock, appending a record (scrubbed first), deriving a new version under
// the lock, reading every version back (Set), and the few rewrites lore
// allows: doctor's repairs and an explicit purge. What is derived from the
// store (the index) lives in package index.
package store
