// Package mmapfile maps files read-only, for readers that touch only a
// few pages of a large file (an index segment, the anchors cache): a fresh
// process pays for every page it copies into its heap.
package mmapfile
