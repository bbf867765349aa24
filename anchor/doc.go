// Package anchor ties records to the code they are about, and tells from
// git alone, offline, whether that code is still as it was.
//
// At capture, Resolve turns --file values into anchors (a path, the git
// object ID of its content, a line range) and Named finds the files a
// record's text names; both write the content to git's object database,
// so that it can be compared with later even if it was never committed.
// Later, a Checker derives each anchor's state: fresh while the file
// still hashes to the anchored ID, changed (with how many lines, in the
// anchored range and elsewhere, the file taken as git would store it)
// when it does not, moved when git's rename detection finds it under
// another path, gone when it is not in the working tree any more.
// States are derived, never stored in records: they are cached under the
// store's .local directory, each entry keyed by what it depends on (a
// file's stat, a pair of object IDs, HEAD and the git index), so a warm
// check costs a stat per file, and one per directory they are in.
package anchor
