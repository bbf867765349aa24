package main

import (
	"context"
	"fmt"

	"lore/gitrepo"
	"lore/trust"
)

const trustHelp = `Usage: lore trust [--revoke | --list [--json]]

Lets lore's hooks inject this repository's memory. .lore/ arrives with every
clone and is written by whoever could push; what it says reaches an agent
that runs commands, so lore injects a store only where you said so:

  - a store you created here with lore init;
  - a repository you trusted with lore trust;
  - a hook or MCP server lore wrote into the repository's own settings
    (--scope project, marked --host-trusted): wherever the agent runs that
    repository's settings, its authors could put a hook of their own there
    and have it say anything, so a trust list would add nothing. Codex and
    Gemini CLI run them only in folders you trusted, as Claude Code does
    interactively; claude -p and opencode run them in any folder. Where the
    agent names the session's project (Claude Code, Gemini CLI), this
    covers the project's own store only, not a submodule's or another
    repository's the session moves to.

With a hook at user scope, a repository you have not trusted gets one line
at session start saying it has memory, and nothing on prompts. lore's own
commands (resume, search, show) read any store: you ran them.

The list is kept outside every repository, in lore's directory of your
configuration directory ($XDG_CONFIG_HOME/lore/trusted, or
~/.config/lore/trusted), one store per line. Trust follows the path, as the
agents' own folder trust does: a repository cloned later to a trusted
path is trusted too, so revoke before reusing one.

A linked worktree (git worktree add) of a repository trusted in its main
worktree is trusted with it. In a linked worktree, lore trust and --revoke
act on the main worktree's store, which covers every worktree and outlives
them; lore init there lists the main worktree's store while it has none
yet (the new one reaches it with the first merge).`

func cmdTrust(_ context.Context, e *env, args []string) error {
	fs := newFlags("trust")
	revoke := fs.Bool("revoke", false, "stop trusting this repository's memory")
	list := fs.Bool("list", false, "print the trusted stores")
	asJSON := fs.Bool("json", false, "with --list: print JSON")
	if err := e.parse(fs, trustHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("trust"), "trust takes no arguments")
	}
	if *revoke && *list {
		return usageError("", "trust: --revoke and --list do not go together")
	}
	if *asJSON && !*list {
		return usageError("", "trust: --json goes with --list")
	}
	if *list {
		stores, err := trust.List(e.getenv)
		if err != nil {
			return err
		}
		if *asJSON {
			type trusted struct {
				Store string `json:"store"`
			}
			out := []trusted{}
			for _, s := range stores {
				out = append(out, trusted{s})
			}
			return e.printJSON(out)
		}
		for _, s := range stores {
			fmt.Fprintln(e.stdout, s)
		}
		return nil
	}
	s, err := e.openStore()
	if err != nil {
		return err
	}
	if *revoke {
		removed, err := trust.Remove(e.getenv, s.Dir)
		if err != nil {
			return err
		}
		if len(removed) == 0 {
			fmt.Fprintf(e.stderr, "lore: %s was not trusted\n", lineSafe(s.Dir))
			return nil
		}
		for _, r := range removed {
			fmt.Fprintf(e.stderr, "lore: hooks no longer inject %s\n", lineSafe(r))
		}
		return nil
	}
	listed, added, err := trust.Add(e.getenv, s.Dir)
	if err != nil {
		return err
	}
	if !gitrepo.SamePath(listed, s.Dir) {
		listed += " (the main worktree's store, which covers this worktree)"
	}
	if !added {
		fmt.Fprintf(e.stderr, "lore: %s is already trusted\n", lineSafe(listed))
		return nil
	}
	fmt.Fprintf(e.stderr, "lore: hooks now inject %s\n", lineSafe(listed))
	return nil
}
