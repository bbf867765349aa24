// Package record is lore's model: what a record is (its five kinds, IDs,
// fields, versions and which one supersedes another) and its two on-disk
// encodings, a JSONL line and a TOML [[pattern]] table, with the parsers
// that read a shard of either and report what they skip. It knows nothing
// of files, directories or git.
package record
