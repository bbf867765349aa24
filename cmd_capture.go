package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"lore/failures"
	"lore/journal"
	"lore/kinds"
	"lore/patterns"
	"lore/record"
	"lore/secrets"
	"lore/store"
	"lore/transfer"
)

// captureOptions holds every capture flag; each verb registers the ones it
// takes, and capture registers them all and infers the kind.
type captureOptions struct {
	tags         []string
	rationale    string
	alternatives string
	context      string
	solution     string
	anti         bool
	confidence   float64
	errorType    string
	tool         string
	next         []string
	blocked      []string
	files        []string
	again        bool // record it even if this checkout just recorded the same
}

func (o *captureOptions) decisionFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.rationale, "rationale", "", "why this was decided")
	fs.StringVar(&o.alternatives, "alternatives", "", "what else was considered")
}

func (o *captureOptions) patternFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.context, "context", "", "when the pattern applies")
	fs.StringVar(&o.solution, "solution", "", "what to do (for --anti: what to do instead)")
	fs.BoolVar(&o.anti, "anti", false, "an anti-pattern: something not to do")
	fs.Float64Var(&o.confidence, "confidence", patterns.DefaultConfidence, "how sure, 0.0-1.0")
}

func (o *captureOptions) failureFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.tool, "tool", "", "the tool that failed (Bash, Edit, npm, …)")
}

// errorTypeFlag is --error-type, for the verbs that take a failure's error
// type as a flag (lore fail takes it as its first argument).
func (o *captureOptions) errorTypeFlag(fs *pflag.FlagSet) {
	fs.StringVar(&o.errorType, "error-type", "", "the failure's error type")
}

func (o *captureOptions) handoffFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.next, "next", nil, "a next step (repeatable)")
	fs.StringArrayVar(&o.blocked, "blocked", nil, "a blocker (repeatable)")
}

// tagFlag registers the flags every capture verb takes: its tags and the
// files it is about.
func (o *captureOptions) tagFlag(fs *pflag.FlagSet) {
	fs.Var((*tagValues)(&o.tags), "tags", "comma-separated tags")
	fs.StringArrayVar(&o.files, "file", nil, "anchor the record to this file, or these lines of it (repeatable)")
	fs.BoolVar(&o.again, "again", false, "record it even if it repeats a record this checkout just wrote")
}

// tagValues is --tags: each value as given (the flag repeats), which the
// store splits at commas into tags (store.NormalizeTags). pflag's
// StringSlice read it as CSV, where a quote is syntax: 'say"hi' failed.
type tagValues []string

func (t *tagValues) Set(v string) error { *t = append(*t, v); return nil }
func (t *tagValues) String() string     { return strings.Join(*t, ",") }
func (t *tagValues) Type() string       { return "strings" }

// stdinHelp is what every verb that takes a record's text says of "-".
const stdinHelp = `

A lone - in place of the text reads it from stdin, for text too long or
too awkward to quote (after --, - is the text itself).`

// parseText parses flags and joins the positional words into the text.
func (e *env) parseText(fs *pflag.FlagSet, help string, args []string, what string) (string, error) {
	if err := e.parse(fs, help, args); err != nil {
		return "", err
	}
	return e.textArgs(fs, 0, what)
}

// textArgs joins the positional words from the first-th on into the text;
// a lone "-" (not after "--") reads the text from stdin, for text too long
// or too awkward to quote.
func (e *env) textArgs(fs *pflag.FlagSet, first int, what string) (string, error) {
	words := fs.Args()[first:]
	fromStdin := len(words) == 1 && words[0] == "-" && (fs.ArgsLenAtDash() < 0 || fs.ArgsLenAtDash() > first)
	if fromStdin {
		b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdinText+1))
		if err != nil {
			return "", fmt.Errorf("%s: reading the %s from stdin: %v", fs.Name(), what, err)
		}
		if len(b) > maxStdinText {
			return "", usageError("", "%s: the %s on stdin is over %d bytes", fs.Name(), what, maxStdinText)
		}
		// A file saved on Windows: its byte-order mark and CRs are no
		// part of the text (the mark stood invisible before the headline).
		b = bytes.TrimPrefix(b, []byte("\ufeff"))
		words = []string{string(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")))}
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" && fromStdin {
		// A closed stdin reads as empty too: Go opens /dev/null in its place.
		return "", usageError(fmt.Sprintf("pipe the %s in, or give it as arguments in place of -", what), "%s: stdin gave no %s", fs.Name(), what)
	}
	if text == "" {
		return "", usageError(helpHint(fs.Name()), "%s: %s is empty", fs.Name(), what)
	}
	return text, nil
}

// againHelp ends the help of every capture verb: what a repeat does.
const againHelp = `

A capture that repeats a record of its kind this checkout wrote since HEAD
last moved, and that is still in force (every field it gives the same,
spacing and case aside), writes nothing: lore prints that record's ID
and says so on stderr. --again records it anyway.`

// maxStdinText bounds a record's text read from stdin.
const maxStdinText = 1 << 20

// captureKind makes a record of kind k from text and tags, lets its kind
// fill its own fields, appends it and prints its short ID.
func (e *env) captureKind(k record.Kind, text string, o *captureOptions, fill func(r *record.Record) error) error {
	s, err := e.openStore()
	if err != nil {
		return err
	}
	r, err := s.New(k, text, o.tags)
	if err == nil {
		err = fill(r)
	}
	if err == nil && !o.again && r.Kind != record.Failure {
		// Before anchoring: a duplicate is not written, so its files
		// need no git run. Its ID is printed as a new one's would be:
		// a script goes on with the record either way.
		if dup := recordedAlready(s, r); dup != nil {
			how := ""
			if len(o.files) > 0 { // the repeat may be for the files: say how to give them
				how = "lore anchor " + dup.Short() + " --file … anchors it; "
			}
			fmt.Fprintf(e.stderr, "%s%s; nothing written (%s--again records it anyway)\n", alreadyPrefix, dup.Short(), how)
			return e.printCaptured(dup, nil)
		}
	}
	if err == nil {
		err = e.anchorTo(s, r, o.files)
	}
	if err == nil {
		err = s.Append(r)
	}
	return e.printCaptured(r, err)
}

// printCaptured prints the new record's short ID: the one line of data.
func (e *env) printCaptured(r *record.Record, err error) error {
	if err != nil {
		var ce *patterns.ConfidenceError
		var et *failures.ErrorTypeError
		var fe *record.FieldError
		if errors.As(err, &ce) || errors.As(err, &et) || errors.As(err, &fe) {
			return usageError("", "%v", err)
		}
		return err
	}
	e.recorded = r.Short()
	fmt.Fprintln(e.stdout, r.Short())
	return nil
}

const rememberHelp = `Usage: lore remember "<decision>" [--rationale R] [--alternatives A] [--tags t1,t2] [--file F]...

Record a decision in the journal and print its short ID.` + stdinHelp + anchorHelp + againHelp

func cmdRemember(_ context.Context, e *env, args []string) error {
	var o captureOptions
	fs := newFlags("remember")
	o.decisionFlags(fs)
	o.tagFlag(fs)
	text, err := e.parseText(fs, rememberHelp, args, "decision")
	if err != nil {
		return err
	}
	return e.captureKind(record.Decision, text, &o, o.decision)
}

const learnHelp = `Usage: lore learn "<pattern>" [--context C] [--solution S] [--anti] [--confidence 0.0-1.0] [--tags t1,t2] [--file F]...

Record a pattern (a lesson: in this context, do this) or, with --anti, an
anti-pattern, and print its short ID. Confidence defaults to 0.7 and rises
with 'lore patterns validate'.` + stdinHelp + anchorHelp + againHelp

func cmdLearn(_ context.Context, e *env, args []string) error {
	var o captureOptions
	fs := newFlags("learn")
	o.patternFlags(fs)
	o.tagFlag(fs)
	text, err := e.parseText(fs, learnHelp, args, "pattern")
	if err != nil {
		return err
	}
	if err := patterns.CheckConfidence(o.confidence); err != nil {
		return usageError("", "learn: %v", err)
	}
	return e.captureKind(record.Pattern, text, &o, o.pattern)
}

// Each kind's own fields, from the flags, filled by the kind's package.
func (o *captureOptions) decision(r *record.Record) error {
	return journal.Make(r, journal.Options{Rationale: o.rationale, Alternatives: o.alternatives})
}

func (o *captureOptions) pattern(r *record.Record) error {
	c := o.confidence
	return patterns.Make(r, patterns.Options{Context: o.context, Solution: o.solution, Anti: o.anti, Confidence: &c})
}

func (o *captureOptions) failure(r *record.Record) error {
	return failures.Make(r, failures.Options{ErrorType: o.errorType, Tool: o.tool})
}

func (o *captureOptions) handoff(r *record.Record) error {
	return transfer.Make(r, transfer.Options{Next: o.next, Blocked: o.blocked})
}

func observation(*record.Record) error { return nil }

const failHelp = `Usage: lore fail <ErrorType> "<message>" [--tool T] [--tags t1,t2] [--file F]...

Record a failure and print its short ID. ErrorType is one word, such as
NonZeroExit, TypeError or ImportError; 'lore failures triggers' counts them,
so the same failure recorded again is a second record: it happened again.` + stdinHelp + anchorHelp

func cmdFail(_ context.Context, e *env, args []string) error {
	var o captureOptions
	fs := newFlags("fail")
	o.failureFlags(fs)
	o.tagFlag(fs)
	_ = fs.MarkHidden("again") // a failure is always recorded: see failHelp
	if err := e.parse(fs, failHelp, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usageError(helpHint("fail"), "fail: want an error type and a message, as in: lore fail NonZeroExit \"deploy.sh fails\"")
	}
	if err := failures.CheckNewErrorType(fs.Arg(0)); err != nil {
		return usageError("", "fail: %v", err)
	}
	o.errorType = fs.Arg(0)
	msg, err := e.textArgs(fs, 1, "message")
	if err != nil {
		return err
	}
	return e.captureKind(record.Failure, msg, &o, o.failure)
}

const handoffHelp = `Usage: lore handoff "<summary>" [--next N]... [--blocked B]... [--tags t1,t2] [--file F]...

Record where this session leaves off, and print its short ID. 'lore resume'
shows the latest handoff to the next session.` + stdinHelp + anchorHelp + againHelp

func cmdHandoff(_ context.Context, e *env, args []string) error {
	var o captureOptions
	fs := newFlags("handoff")
	o.handoffFlags(fs)
	o.tagFlag(fs)
	text, err := e.parseText(fs, handoffHelp, args, "summary")
	if err != nil {
		return err
	}
	return e.captureKind(record.Handoff, text, &o, o.handoff)
}

const observeHelp = `Usage: lore observe "<text>" [--tags t1,t2] [--file F]...

Note an observation in the inbox, to triage later with 'lore inbox promote'
or 'lore inbox dismiss'. Prints its short ID.` + stdinHelp + anchorHelp + againHelp

func cmdObserve(_ context.Context, e *env, args []string) error {
	var o captureOptions
	fs := newFlags("observe")
	o.tagFlag(fs)
	text, err := e.parseText(fs, observeHelp, args, "observation")
	if err != nil {
		return err
	}
	return e.captureKind(record.Observation, text, &o, observation)
}

const captureHelp = `Usage: lore capture "<text>" [flags]

Record anything; the kind follows from the flags:
  --rationale or --alternatives          a decision
  --solution, --context, --anti or
  --confidence                           a pattern
  --error-type (and --tool)              a failure
  --next or --blocked                    a handoff
  none of these                          an observation
Flags of two different kinds are refused.` + stdinHelp + anchorHelp + againHelp

func cmdCapture(_ context.Context, e *env, args []string) error {
	var o captureOptions
	fs := newFlags("capture")
	o.decisionFlags(fs)
	o.patternFlags(fs)
	o.errorTypeFlag(fs)
	o.failureFlags(fs)
	o.handoffFlags(fs)
	o.tagFlag(fs)
	text, err := e.parseText(fs, captureHelp, args, "text")
	if err != nil {
		return err
	}
	kind, err := inferKind(fs)
	if err != nil {
		return err
	}
	fill := map[record.Kind]func(*record.Record) error{
		record.Decision: o.decision, record.Pattern: o.pattern, record.Failure: o.failure,
		record.Handoff: o.handoff, record.Observation: observation,
	}[kind]
	if kind == record.Pattern {
		if err := patterns.CheckConfidence(o.confidence); err != nil {
			return usageError("", "capture: %v", err)
		}
	}
	if kind == record.Failure {
		if err := failures.CheckNewErrorType(o.errorType); err != nil {
			return usageError("", "capture: %v", err)
		}
	}
	return e.captureKind(kind, text, &o, fill)
}

// flagKinds is the kind each kind's own capture flag fills a field of.
var flagKinds = map[string]record.Kind{
	"rationale": record.Decision, "alternatives": record.Decision,
	"solution": record.Pattern, "context": record.Pattern, "anti": record.Pattern, "confidence": record.Pattern,
	"error-type": record.Failure, "tool": record.Failure,
	"next": record.Handoff, "blocked": record.Handoff,
}

// inferKind picks the kind from the flags that were set.
func inferKind(fs *pflag.FlagSet) (record.Kind, error) {
	kind, first := record.Observation, ""
	var err error
	fs.Visit(func(f *pflag.Flag) {
		k, ok := flagKinds[f.Name]
		if !ok || err != nil {
			return
		}
		if first != "" && k != kind {
			err = usageError("use one kind's flags, or the kind's own verb", "capture: --%s (%s) and --%s (%s) belong to different kinds", first, kind, f.Name, k)
			return
		}
		kind, first = k, f.Name
	})
	if err == nil && kind == record.Failure && fs.Lookup("error-type").Value.String() == "" {
		err = usageError("", "capture: --tool makes a failure, which needs --error-type")
	}
	return kind, err
}

// recordedAlready is the record this checkout wrote since HEAD last moved
// that r would repeat: of r's kind, active in its latest version there,
// and saying the same (captureKey). An agent that retries a capture, or
// records the same lesson twice in a session, would otherwise leave two
// records that split every later revision and use between them. Only the
// kind's current shard is read, under the store's lock (no half-written
// line): the cost follows this checkout's recent records, not the
// store's, and no index is opened. A shard that does not read finds
// nothing: the check only spares a second copy, and must not stop the
// capture (whose append reports what is wrong).
func recordedAlready(s *store.Store, r *record.Record) *record.Record {
	rel := store.CurrentShard(s, r.Kind)
	if rel == "" {
		return nil
	}
	want := captureKey(r)
	for i, f := range want {
		want[i], _ = secrets.Scrub(f) // as it would be written
	}
	var dup *record.Record
	_ = s.Transact(func(*store.Tx) error {
		abs := filepath.Join(s.Dir, rel)
		data, err := os.ReadFile(abs)
		if err != nil {
			return err // gone (a checkout removed it): the next append starts another
		}
		recs, _, err := kinds.ParseShard(s.Rel(abs), data)
		if err != nil {
			return err
		}
		latest := map[string]*record.Record{}
		for _, v := range recs {
			if cur := latest[v.ID]; cur == nil || record.Newer(v, cur) {
				latest[v.ID] = v
			}
		}
		for _, v := range latest {
			if v.Kind == r.Kind && v.Active() && slices.EqualFunc(captureKey(v), want, sameWords) && (dup == nil || record.Newer(v, dup)) {
				dup = v
			}
		}
		return nil
	})
	return dup
}

// captureKey is what makes two captures of a kind the same record: every
// field a capture gives (the text, a rationale, a solution, next steps,
// blockers, tags, a pattern's confidence and whether it is an
// anti-pattern). A repeat that corrects any of them is recorded: what
// looks like the same capture may carry the fix to the first (run 25).
// Failures are not compared: one recorded again happened again, and is
// counted.
func captureKey(r *record.Record) []string {
	confidence := ""
	if r.Confidence != nil {
		confidence = strconv.FormatFloat(*r.Confidence, 'f', -1, 64)
	}
	key := []string{r.Text, r.Rationale, r.Alternatives, r.Context, r.Solution, confidence, strconv.FormatBool(r.Anti)}
	for _, l := range [][]string{r.Next, r.Blocked, record.FoldTags(r.Tags)} {
		key = append(key, strconv.Itoa(len(l)))
		key = append(key, l...)
	}
	return key
}

// sameWords: the same words, whitespace and case aside.
func sameWords(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}
