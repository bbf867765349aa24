// Package lore owns the core of the memory: the record model and its on-disk
// encodings, record IDs, the store under .lore/ (sharded append-only files,
// locking, reading with warnings), the store's config.toml, and finding the
// store and the git state a record is stamped with.
package lore
