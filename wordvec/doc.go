// Package wordvec owns what words mean beyond their spelling: a table of
// word vectors learned offline from software documentation (Debian's
// documentation packages; README.md and mkvec say how), embedded in the
// binary, and how much of one list of words another says through it. It lets the ranker's gate
// tell a prompt that says what a record says in other words ("ubuntu won't
// let me install globally" against "Debian's system Python is externally
// managed") from one that only shares a word with it.
//
// The table is read in place from the binary's read-only data: a process
// touches only the pages of the words it looks up, and nothing is decoded
// at start-up.
package wordvec
