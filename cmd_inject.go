package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"lore/inject"
)

const injectHelp = `Usage:
  lore inject --stdin [--budget N]              hook mode: answer an agent's hook JSON
  lore inject "<free text>" [--budget N] [--explain] [--json]   preview

With --stdin, lore reads the hook JSON an agent sends (Claude Code and Codex
UserPromptSubmit and SessionStart, Gemini CLI BeforeAgent and SessionStart)
and prints the answer the agent expects: the records relevant to the prompt,
or the resume view at session start, inside the token budget. Nothing
relevant, bad input or any error prints nothing and exits 0, so the prompt is
never blocked; LORE_DEBUG=1 prints the reason on stderr.

With text, lore prints the block it would inject for that prompt; --explain
shows every candidate's score and the factors behind it, --json the hook's
JSON answer.

The budget is in tokens (about 4 characters each): --budget, then
$LORE_CONTEXT_BUDGET, then [inject] budget in config.toml, then 2000. The
block never exceeds 10,000 characters; --budget takes at least 64, the
smallest block (a smaller budget from the environment or config.toml
injects nothing).`

func cmdInject(ctx context.Context, e *env, args []string) error {
	fs := newFlags("inject")
	stdin := fs.Bool("stdin", false, "hook mode: read the hook JSON from stdin")
	budget := fs.Int("budget", 0, "token budget (`N` tokens of about 4 characters)")
	explain := fs.Bool("explain", false, "show each candidate's score and factors")
	asJSON := fs.Bool("json", false, "print the hook's JSON answer (with --explain: the candidates as JSON)")
	hostTrusted := fs.Bool("host-trusted", false, "hook mode: the hook is in the repository's own settings (see lore trust --help)")
	// Hook mode never fails the prompt: Claude Code and Codex read exit
	// code 2 as "block the prompt" (or, for Stop, "keep going"). A hook
	// command committed by a teammate's newer lore may carry a flag this
	// lore does not know: it is skipped, and any other flag error is
	// silent, as every hook failure is.
	hook := slices.Contains(args, "--stdin")
	e.hook = hook
	fs.ParseErrorsAllowlist.UnknownFlags = hook
	if err := e.parse(fs, injectHelp, args); err != nil {
		if hook && err != errHelpShown {
			e.hookDebug(err)
			return nil
		}
		return err
	}
	if *stdin {
		err := inject.RunHook(ctx, e.stdin, e.stdout, inject.HookEnv{
			Getenv: e.getenv, Cwd: e.cwd, StoreDir: e.dir, BudgetFlag: *budget, HostTrusted: *hostTrusted,
			CatchUp: e.catchUpInBackground,
		})
		e.hookDebug(err)
		return nil // hook mode never fails the prompt
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "" {
		return usageError(helpHint("inject"), "inject: want --stdin or the text of a prompt")
	}
	if err := checkBudget(fs, "inject", *budget, inject.MinBudget, "block"); err != nil {
		return err
	}
	s, snap, err := e.snapshot(ctx)
	if err != nil {
		return err
	}
	ix := inject.NewIndex(snap, s.Config).CheckAnchors(e.codeChecker(s))
	if *explain {
		return e.explain(ix, text, s.Config.Inject.MinRelevance, s.Clock, *asJSON)
	}
	if v := e.getenv("LORE_CONTEXT_BUDGET"); v != "" && !fs.Changed("budget") {
		if n, err := strconv.Atoi(v); err != nil || n <= 0 {
			e.warn("LORE_CONTEXT_BUDGET=%q is not a number of tokens above 0: ignored", v)
		}
	}
	tokens := inject.Budget(*budget, e.getenv, s.Config)
	if tokens < inject.MinBudget { // from the environment or config.toml: --budget is checked above
		e.warn("the budget, %d tokens, is below %d, the smallest block: nothing is injected", tokens, inject.MinBudget)
		return nil
	}
	r := inject.PromptContext(ix, s.Config, text, tokens, s.Clock(), nil)
	if r.Text == "" {
		fmt.Fprintln(e.stderr, "lore: nothing relevant to inject")
		return nil
	}
	if *asJSON {
		b, err := inject.MarshalHookOutput(inject.EventUserPrompt, r.Text)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(b)
		return err
	}
	fmt.Fprintln(e.stdout, r.Text)
	return nil
}

// explain prints the strongest candidates, injected or not, with every
// factor of their score and the gate's reason.
// With asJSON, the same as one JSON object, each candidate's factors under
// the names the text gives them.
func (e *env) explain(ix *inject.Index, text string, minRelevance float64, clock func() time.Time, asJSON bool) error {
	res := ix.Rank(text, inject.Options{Now: clock(), Limit: explainLimit})
	if asJSON {
		type candidate struct {
			ID      string `json:"id"`
			Short   string `json:"short"`
			Summary string `json:"summary"`
			inject.Scored
		}
		cands := []candidate{}
		for _, sc := range res {
			cands = append(cands, candidate{sc.Rec.ID, sc.Rec.Short(), inject.Summary(sc.Rec), sc})
		}
		return e.printJSON(map[string]any{"keywords": append([]string{}, inject.Words(text)...),
			"gate": inject.GateRule(minRelevance), "score": inject.ScoreRule(), "candidates": cands})
	}
	fmt.Fprintf(e.stdout, "keywords: %s\n", termSafe(strings.Join(inject.Words(text), " ")))
	fmt.Fprintf(e.stdout, "gate: %s\n", inject.GateRule(minRelevance))
	fmt.Fprintln(e.stdout, inject.ScoreRule())
	fmt.Fprintln(e.stdout)
	if len(res) == 0 {
		fmt.Fprintln(e.stdout, "no record matches any keyword")
		return nil
	}
	for _, sc := range res {
		mark := "inject"
		if !sc.Inject {
			mark = "held back"
		}
		fmt.Fprintf(e.stdout, "%.3f  %-9s %s\n", sc.Score, mark, termSafe(inject.Summary(sc.Rec)))
		fmt.Fprintf(e.stdout, "       evidence %.2f = (terms %.2f + phrases %.2f + near %.2f), coverage %.2f; share %.2f; meaning %s; × kind %.2f × recency %.2f × status %.2f\n",
			sc.Evidence, sc.Terms, sc.Phrases, sc.Near, sc.Coverage, sc.Share, sc.MeaningText(), sc.Kind, sc.Recency, sc.Status)
		fmt.Fprintf(e.stdout, "       matched: %s\n", termSafe(strings.Join(sc.Matched, ", ")))
		if sc.Resume != 1 {
			fmt.Fprintf(e.stdout, "       a handoff, and the prompt picks up earlier work: relevance × %g\n", sc.Resume)
		}
		if sc.Superseded != "" {
			fmt.Fprintf(e.stdout, "       a handoff %s followed on its branch: status × %g\n", sc.Superseded, inject.SupersededFactor)
		}
		if sc.Named != 1 || sc.Code != 1 || sc.Stale != "" {
			fmt.Fprintf(e.stdout, "       code: named file × %.2f, code × %.2f%s\n", sc.Named, sc.Code, termSafe(parenthesised(sc.Stale)))
		}
		fmt.Fprintf(e.stdout, "       %s\n", termSafe(sc.Why))
	}
	return nil
}

// parenthesised is " (s)", or "" for no s.
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// explainLimit is how many candidates --explain shows.
const explainLimit = 15

// hookDebug prints why the hook said nothing, with LORE_DEBUG set.
func (e *env) hookDebug(err error) {
	if err != nil && e.getenv("LORE_DEBUG") != "" {
		fmt.Fprintf(e.stderr, "lore: inject: %v\n", err)
	}
}
