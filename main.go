// Command lore gives coding agents a memory that lives in the repository.
// See README.md; every command documents itself with --help.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
