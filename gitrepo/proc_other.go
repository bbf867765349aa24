//go:build !unix

package gitrepo

import "os/exec"

// runInGroup runs git as it is: where there are no process groups, the
// context's end kills git alone, and WaitDelay bounds the wait for what
// it started.
func runInGroup(cmd *exec.Cmd) error { return cmd.Run() }
