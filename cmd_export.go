package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lore/inject"
	"lore/store"
)

const exportHelp = `Usage: lore export [--format markdown|agents-md] [--budget N] [--out FILE]

The memory as Markdown, for agents without hooks (Aider's --read, a section
of AGENTS.md or CLAUDE.md that Cursor, Codex and others read): where the
last session left off, then the most trusted patterns, live decisions and
recurring failures, while they fit the budget (tokens; default 2000, at
least 128). The budget holds all of it, markers included; a long handoff
is cut to half of it, and the rest goes to the records.

--format agents-md wraps it in lore's markers. With --out, an existing file
keeps everything outside lore's section: the section is replaced if it is
there, appended if not (--out implies agents-md unless --format markdown).
Markers inside fenced code blocks (an example of them) are text. With
--format markdown, --out writes the whole file: only a new file, an empty
one or a previous markdown export and nothing else is replaced. --out -,
a pipe or a device (/dev/stdout) gets the export as it is: there is no
file to merge into.`

func cmdExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags("export")
	format := fs.String("format", "", "markdown or agents-md")
	budget := fs.Int("budget", inject.DefaultBudget, "size in `N` tokens (about 4 characters each)")
	out := fs.String("out", "", "write into `FILE`, replacing only lore's section")
	if err := e.parse(fs, exportHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("export"), "export takes no arguments")
	}
	if fs.Changed("out") && strings.TrimSpace(*out) == "" {
		return usageError(helpHint("export"), "export: --out needs a file (leave it out to print)")
	}
	section := *out != ""
	switch *format {
	case "":
	case "markdown":
		section = false
	case "agents-md":
		section = true
	default:
		return usageError("", "export: unknown format %q (want markdown or agents-md)", *format)
	}
	if err := checkBudget(fs, "export", *budget, inject.ExportMinBudget, "export"); err != nil {
		return err
	}
	s, snap, err := e.snapshot(ctx)
	if err != nil {
		return err
	}
	v := inject.BuildResume(ctx, snap, inject.ResumeOptions{})
	text, redacted := inject.Export(snap, v, inject.ExportOptions{BudgetTokens: *budget, Section: section, Now: s.Clock(), Teach: s.Config.Loop.Teach, From: s.Rel(s.Dir)})
	// What Export redacted is said on stderr as a capture's redactions
	// are (reportRedactions, after the command), once the text is written.
	wrote := func() { s.Redacted = append(s.Redacted, redacted...) }
	if *out == "" || *out == "-" {
		_, err := fmt.Fprint(e.stdout, text)
		if err == nil {
			wrote()
		}
		return err
	}
	path := *out
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.cwd, path)
	}
	if dir := filepath.Dir(path); !isDir(dir) {
		return usageError("create it first, or write elsewhere", "export: --out %s: no directory %s", *out, e.rel(dir))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageError("name a file in it", "export: --out %s is a directory", *out)
	} else if err == nil && !fi.Mode().IsRegular() {
		// Reading a pipe to merge into it waited for its writer: lore
		// itself, when --out named lore's own stdout.
		if err := writeStream(path, text); err != nil {
			return fmt.Errorf("export: --out %s: %w", *out, err)
		}
		wrote()
		return nil
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	doc := text
	if !section {
		if n := inject.ExportForeignLine(string(old)); n > 0 {
			return &cliError{code: exitFailure, msg: fmt.Sprintf("export: --out %s: the file holds text lore did not write (at line %d), and --format markdown replaces the whole file", e.rel(path), n),
				hint: "nothing was written: write to a file of its own, or leave out --format markdown to replace only lore's section (a file that is an earlier lore's export, with nothing of yours, may be deleted first)"}
		}
	}
	if section {
		var me *inject.MarkerError
		doc, err = inject.MergeSection(string(old), text)
		if errors.As(err, &me) {
			hint := cmp.Or(me.Hint, "nothing was written: fix or remove lore's markers by hand, then export again")
			return &cliError{code: exitFailure, msg: fmt.Sprintf("export: %s:%d: %s", e.rel(path), me.Line, me.Msg), hint: hint}
		}
		if err != nil {
			return err
		}
	}
	if err := store.WriteThrough(path, []byte(doc)); err != nil {
		return err
	}
	wrote()
	fmt.Fprintf(e.stderr, "lore: wrote %s\n", lineSafe(e.rel(path)))
	return nil
}

// writeStream writes text to path, a pipe or a device, as it is.
func writeStream(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// isDir says whether path is a directory (following links).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
