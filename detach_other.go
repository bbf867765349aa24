//go:build !unix

package main

import "os/exec"

// detach is not done here: hooks leave the catching up to the next
// prompts and commands.
func detach(*exec.Cmd) bool { return false }
