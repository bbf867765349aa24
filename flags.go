package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"lore/index"
	"lore/internal/spell"

	"github.com/spf13/pflag"
)

// globalFlags are the flags lore takes before the command; --dir and
// --help are also every command's own.
func globalFlags() *pflag.FlagSet {
	fs := newFlags("lore")
	fs.SetInterspersed(false) // the command and its flags are the command's
	addCommonFlags(fs, new(string))
	fs.BoolP("version", "v", false, "print the version")
	return fs
}

// addCommonFlags defines --dir (into dir) and --help, unless fs has them.
func addCommonFlags(fs *pflag.FlagSet, dir *string) {
	if fs.Lookup("dir") == nil {
		fs.StringVar(dir, "dir", "", "use the store at `DIR` (default: .lore at the repository root, or $LORE_DIR)")
	}
	if fs.Lookup("help") == nil {
		fs.BoolP("help", "h", false, "show this help")
	}
}

// newFlags makes a command's flag set: errors are returned, not printed,
// and --help shows the command's help text.
func newFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.Usage = func() {}
	return fs
}

// parse parses args, handling --help (printed, then errHelpShown) and
// turning flag errors into usage errors that name the flag (see flagError).
func (e *env) parse(fs *pflag.FlagSet, help string, args []string) error {
	var dir string
	addCommonFlags(fs, &dir)
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) || (err == nil && fs.Lookup("help").Changed) {
		fmt.Fprintf(e.stdout, "%s\nFlags:\n%s", strings.TrimSpace(help)+"\n", fs.FlagUsages())
		return errHelpShown
	}
	if err != nil {
		return flagError(fs, err)
	}
	return e.setDir(fs)
}

// setDir takes --dir from fs, if given; given empty, it is a usage error.
func (e *env) setDir(fs *pflag.FlagSet) error {
	f := fs.Lookup("dir")
	if !f.Changed {
		return nil
	}
	if f.Value.String() == "" {
		return usageError(flagHint(fs), "%s--dir needs a directory", flagPrefix(fs))
	}
	e.dir = f.Value.String()
	return nil
}

// flagPrefix starts a flag error of a command ("learn: "); the global
// flags' have none.
func flagPrefix(fs *pflag.FlagSet) string {
	if fs.Name() == "lore" {
		return ""
	}
	return fs.Name() + ": "
}

func flagHint(fs *pflag.FlagSet) string {
	if fs.Name() == "lore" {
		return helpHint("") + " for the global flags"
	}
	return helpHint(fs.Name()) + " for its flags"
}

// flagError is a usage error for what pflag reported, in lore's words:
// which flag, and what its value should have been, rather than the
// parser's internals (strconv.ParseFloat: parsing "abc": invalid syntax).
func flagError(fs *pflag.FlagSet, err error) error {
	prefix, hint := flagPrefix(fs), flagHint(fs)
	var (
		missing *pflag.ValueRequiredError
		invalid *pflag.InvalidValueError
		unknown *pflag.NotExistError
	)
	switch {
	case errors.As(err, &missing):
		return usageError(hint, "%s%s needs %s", prefix, flagName(missing.GetFlag(), missing.GetSpecifiedShortnames() != ""), valueNoun(missing.GetFlag()))
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return usageError(hint, "%s--%s: %q %s", prefix, f.Name, invalid.GetValue(), badValue(f, invalid.GetValue(), err))
	case errors.As(err, &unknown) && dashedText(unknown):
		// A message that starts with a dash ("-1 returned", "--verbose
		// prints twice") was read as a flag.
		return usageError("put -- before text that starts with a dash: every word after -- is text", "%s%s", prefix, err)
	case errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() == "":
		name := unknown.GetSpecifiedName()
		var names []string
		fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if s := spell.Closest(name, names, 2); s != "" {
			hint = fmt.Sprintf("did you mean --%s?", s)
		}
		return usageError(hint, "%sunknown flag: --%s", prefix, name)
	}
	return usageError(hint, "%s%s", prefix, err)
}

// dashedText reports whether an unknown flag is text rather than a flag:
// it holds a space, or is a number (-1).
func dashedText(e *pflag.NotExistError) bool {
	name, short := e.GetSpecifiedName(), e.GetSpecifiedShortnames()
	return strings.ContainsAny(name+short, " \t\n") || short != "" && short[0] >= '0' && short[0] <= '9'
}

// flagName is how the user spelled f: -n or --limit.
func flagName(f *pflag.Flag, short bool) string {
	if short {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}

// valueNoun is what f's value is, for "--limit needs a number".
func valueNoun(f *pflag.Flag) string {
	switch t := f.Value.Type(); {
	case f.Name == "dir":
		return "a directory"
	case t == "duration":
		return "a duration"
	case isNumberType(t):
		return "a number"
	}
	return "a value"
}

func isNumberType(t string) bool {
	return strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint") || strings.HasPrefix(t, "float")
}

// badValue says what is wrong with value v of flag f.
func badValue(f *pflag.Flag, v string, err error) string {
	t := f.Value.Type()
	outOfRange := errors.Is(err, strconv.ErrRange)
	switch {
	case t == "duration":
		return "is not a duration (such as 90s, 15m or 2h)"
	case isNumberType(t) && outOfRange:
		return "is out of range"
	case strings.HasPrefix(t, "uint") && strings.HasPrefix(v, "-"):
		return "is not a number of 0 or more"
	case (strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint")) && isFloat(v):
		return "is not a whole number"
	case isNumberType(t):
		return "is not a number"
	case t == "bool":
		return "is not true or false"
	}
	// A flag of lore's own type: its error is written for people.
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) && invalid.Unwrap() != nil {
		return "is not valid: " + invalid.Unwrap().Error()
	}
	return "is not valid"
}

func isFloat(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

// errHelpShown ends a command after --help, with exit 0.
var errHelpShown = &cliError{code: exitOK}

// checkBudget refuses a --budget given below min, the smallest output
// (what) lore writes (0 included: the flag's default means "not given"
// only when it was not).
func checkBudget(fs *pflag.FlagSet, cmd string, budget, min int, what string) error {
	if fs.Changed("budget") && budget < min {
		return usageError("", "%s: --budget %d is below %d tokens, the smallest %s lore writes", cmd, budget, min, what)
	}
	return nil
}

// recordFilter is --author and --since of lore list and lore search. They
// match versions, as git log's match commits: a record is kept when one of
// its versions (the first, or a revision, an abandonment…) was written by
// that person from that time on. "What did Grace record this week" is
// then what she created and what she changed.
type recordFilter struct {
	author string
	since  string
	from   time.Time // since, read
}

// filterHelp ends the help of the commands that take recordFilter's flags.
const filterHelp = `

--author and --since keep a record when one of its versions (the first,
or a revision) was written by that person (any part of the name or email,
case aside; plain text, where git log --author takes a pattern) from that
date (2026-11-01, UTC) or age (7d, 12h) on. The date listed is the
record's first; the version that matched may be later. A record whose
latest version another person wrote ends with (by NAME on BRANCH), after
the columns.`

func (f *recordFilter) flags(fs *pflag.FlagSet) {
	fs.StringVar(&f.author, "author", "", "only records `NAME` wrote a version of (any part of the name or email)")
	fs.StringVar(&f.since, "since", "", "only records with a version from this `date` (2026-11-01) or age (7d, 12h) on")
}

// check reads the flags, as lore stats reads its --since; now is the
// store's clock.
func (f *recordFilter) check(fs *pflag.FlagSet, now time.Time) error {
	f.author = strings.TrimSpace(f.author)
	if fs.Changed("author") && f.author == "" {
		return usageError("", "%s--author needs a name or email", flagPrefix(fs))
	}
	from, err := parseSince(f.since, now)
	if err != nil {
		return usageError("", "%s--since: %v", flagPrefix(fs), err)
	}
	f.from = from
	return nil
}

// active reports whether a flag narrows the records.
func (f *recordFilter) active() bool { return f.author != "" || !f.from.IsZero() }

// versions is the filter as the index asks it of each version: nil when
// it keeps every record.
func (f *recordFilter) versions() *index.Versions {
	if !f.active() {
		return nil
	}
	v := &index.Versions{From: f.from}
	if f.author != "" {
		author := strings.ToLower(f.author)
		v.Author = func(by string) bool { return strings.Contains(strings.ToLower(by), author) }
	}
	return v
}

// String is the filter as it was asked for, for "nothing matches".
func (f *recordFilter) String() string {
	var parts []string
	if f.author != "" {
		parts = append(parts, "--author "+strconv.Quote(f.author))
	}
	if f.since != "" {
		parts = append(parts, "--since "+strconv.Quote(f.since))
	}
	return strings.Join(parts, " ")
}
