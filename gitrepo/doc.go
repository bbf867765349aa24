// Package gitrepo is lore's one way to git: finding the repository a
// directory belongs to, reading HEAD, the branch and the author without
// running git, and Run, which runs git with flags that keep a
// repository's own config from running programs.
package gitrepo
