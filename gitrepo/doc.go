// Package gitrepo is lore's one way to git: finding the repository a
// directory belongs to, reading HEAD, the branch, the author and git's
// index without running git, and Run, which runs git with flags that keep a
// repository's own config from running programs. It never reads the
// process environment itself: git's variables (GIT_CEILING_DIRECTORIES,
// GIT_AUTHOR_NAME, GIT_DIR…) come from the getenv its callers pass, the
// CLI's own.
package gitrepo
