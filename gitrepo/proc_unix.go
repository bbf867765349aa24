//go:build unix

package gitrepo

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// runInGroup runs git as the leader of a process group of its own, and
// makes the context's end kill that whole group: git, and anything git (or
// a wrapper script installed as git) started, which would otherwise live
// on holding git's output open, keeping lore waiting past its deadline.
// Setting the group is one setpgid call in the child between fork and
// exec (see BenchmarkProcessGroup).
//
// In lore's own group, git also received what a terminal sends the group
// in the foreground (Ctrl-C, Ctrl-\, a hangup): relay passes those, and a
// SIGTERM sent to lore alone, on to git's group. git's other ties to the
// terminal do not matter: nothing lore asks of it reads or configures the
// terminal (stdin is /dev/null or lore's pipe, stdout and stderr are
// pipes; prompts, pagers and editors are off, see safeEnv), so git outside
// the foreground group is never stopped for touching it, and a Ctrl-Z
// that stops lore leaves git to finish.
func runInGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group's ID is git's pid, which no other process is given
		// while any member of the group lives (and, the pids being handed
		// out in turn, not soon after either).
		groupErr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		// And git itself, should it have left its group (the error
		// wraps os.ErrProcessDone if it is gone).
		if err := cmd.Process.Kill(); groupErr != nil {
			return err
		}
		return nil
	}
	remove, err := relay.start(cmd)
	if err != nil {
		return err
	}
	defer remove()
	return cmd.Wait()
}

// relayed are the signals that end a process by default and that reached
// git in lore's process group: those a terminal sends, and SIGTERM.
var relayed = []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGTERM}

// relay passes a signal lore receives while git runs on to git's process
// groups, then lets lore die of it as it would have. It starts listening
// with the first git (Notify and Stop for each would cost more than
// starting git in a group of its own) and stops when a signal comes.
var relay = &signalRelay{groups: map[int]bool{}}

type signalRelay struct {
	// starting is held, shared, while a git starts, so that forward sees
	// every git started before it, and none after.
	starting sync.RWMutex
	// dying is the signal that came, once one did: lore is on its way
	// out, and starts no more git. It changes with starting held.
	dying syscall.Signal

	mu        sync.Mutex
	groups    map[int]bool // the groups of the gits running
	listening bool
}

// start starts cmd and relays signals to its group until the function it
// returns is called.
func (r *signalRelay) start(cmd *exec.Cmd) (remove func(), err error) {
	r.starting.RLock()
	defer r.starting.RUnlock()
	if r.dying != 0 {
		return nil, fmt.Errorf("not started: lore received %v", r.dying)
	}
	r.listen()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	group := cmd.Process.Pid
	r.mu.Lock()
	r.groups[group] = true
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.groups, group)
		r.mu.Unlock()
		// A git that ended of a relayed signal ends before lore has sent
		// the signal to itself: wait for forward to have sent it (it
		// holds starting until then), and give it time to land, rather
		// than carry on and exit as if git had failed (seen under the
		// race detector: exit status 1 instead of death by SIGINT).
		r.starting.RLock()
		dying := r.dying
		r.starting.RUnlock()
		if dying != 0 {
			time.Sleep(time.Second)
		}
	}, nil
}

// listen starts listening for the relayed signals, unless it has.
func (r *signalRelay) listen() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.listening {
		return
	}
	r.listening = true
	var sigs []os.Signal
	for _, s := range relayed {
		// One ignored (nohup, a background job) stays ignored: Notify
		// would enable it.
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) > 0 {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, sigs...)
		go r.forward(ch)
	}
}

// forward waits for a signal on ch, passes it on to every git's group,
// stops listening and sends it to lore again, which then dies of it as it
// would have (or handles it, if lore listens for it itself).
func (r *signalRelay) forward(ch chan os.Signal) {
	s := (<-ch).(syscall.Signal)
	r.starting.Lock()
	defer r.starting.Unlock()
	r.dying = s
	r.mu.Lock()
	for g := range r.groups {
		syscall.Kill(-g, s)
	}
	r.mu.Unlock()
	signal.Stop(ch)
	syscall.Kill(os.Getpid(), s)
}
