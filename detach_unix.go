//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach makes cmd a session of its own, with no terminal and its standard
// streams on the null device, so that the host's end of the hook (its
// process group, its pipes) is not its end.
func detach(cmd *exec.Cmd) bool {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return true
}
