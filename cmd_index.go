package main

import (
	"context"
	"fmt"
	"os/exec"

	"lore/index"
	"lore/inject"
)

const indexHelp = `Usage: lore index [--json]

Bring the index in .lore/.local up to date: read every shard it lacks and
merge its files into one. Every command keeps the index current as it
reads; a hook reads changed shards for a few milliseconds a prompt, so a
fresh clone of a large store, or a large pull, leaves shards unread, and
the hook then starts 'lore index' in the background (as git starts gc),
once per store at a time. Run it to have that done now. LORE_NO_BACKGROUND=1
keeps hooks from starting it.`

func cmdIndex(ctx context.Context, e *env, args []string) error {
	fs := newFlags("index")
	asJSON := fs.Bool("json", false, "print JSON")
	background := fs.Bool("background", false, "started by a hook: see index.CatchUp")
	_ = fs.MarkHidden("background")
	if err := e.parse(fs, indexHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("index"), "index: takes no arguments")
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	snap, err := index.CatchUp(ctx, s, inject.Tokenizer(), *background)
	if err != nil || snap == nil {
		return err // nil, nil: another process is at it
	}
	e.reportWarnings(snap.Warnings)
	if snap.Unsaved != nil {
		return fmt.Errorf("index: cannot write the index: %w", snap.Unsaved)
	}
	out := map[string]any{"records": snap.Count(), "shards_read": snap.Read(), "files": snap.Segments()}
	if *asJSON {
		return e.printJSON(out)
	}
	e.structured(out)
	fmt.Fprintf(e.stderr, "lore: index: %d record%s, %d shard%s read, in %d file%s\n",
		snap.Count(), plural(snap.Count()), snap.Read(), plural(snap.Read()), snap.Segments(), plural(snap.Segments()))
	return nil
}

// catchUpInBackground starts 'lore index --background' for the store at dir,
// detached from the hook, which has answered: shards the hook left unread
// for want of time are read in one pass outside any prompt, not a few
// hundred a prompt over the next dozens; none is started while one is at
// work. Nothing is said of a failure: the next prompts read them anyway.
// The binary is this one, never one a repository names.
func (e *env) catchUpInBackground(dir string) {
	if e.getenv("LORE_NO_BACKGROUND") != "" || index.CatchingUp(dir, inject.Tokenizer()) {
		return
	}
	bin, err := e.selfPath()
	if err != nil {
		return
	}
	cmd := exec.Command(bin, "--dir", dir, "index", "--background")
	cmd.Dir = dir
	if !detach(cmd) {
		return
	}
	if cmd.Start() == nil {
		_ = cmd.Process.Release()
	}
}
