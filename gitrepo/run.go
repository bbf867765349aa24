package gitrepo

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Timeout bounds a git command whose context has no deadline of its own.
const Timeout = 2 * time.Second

// safeArgs go before every command lore runs. --no-optional-locks keeps a
// read (git status) from taking the index lock another git holds;
// core.fsmonitor names a program the repository's own config could make
// git run, and lore never lets a repository run programs through it.
var safeArgs = []string{"--no-optional-locks", "-c", "core.fsmonitor=false"}

// Error is a git command that failed: the first line git wrote to stderr,
// or how it failed when it wrote nothing.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Run runs git in dir and returns its standard output. It is the one way
// lore runs git.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	argv := append(append([]string{"-C", dir}, safeArgs...), args...)
	cmd := exec.CommandContext(ctx, "git", argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			first, _, _ := strings.Cut(msg, "\n")
			return "", &Error{first}
		}
		return "", &Error{"git " + args[0] + ": " + err.Error()}
	}
	return stdout.String(), nil
}

// Start runs git in the background and returns the function that waits
// for its result, so that independent git commands run side by side.
func Start(ctx context.Context, dir string, args ...string) func() (string, error) {
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := Run(ctx, dir, args...)
		done <- result{out, err}
	}()
	return sync.OnceValues(func() (string, error) {
		r := <-done
		return r.out, r.err
	})
}
