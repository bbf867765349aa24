package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"lore/internal/spell"
)

// FormatVersion is the on-disk format this build writes. A record or store
// with a larger major version is refused rather than guessed at. Raise it
// with any value an older lore would misread, not only a new layout: a
// status, kind or field whose meaning changes which version is served.
// The purge's tombstone ("status":"purged") came at 1, and lores from
// before it skip the tombstone as a bad line and serve the purged record's
// earlier version again (run 26); at 2 they would have said "upgrade lore".
const FormatVersion = 1

// Statuses a version can carry. The empty status means active.
const (
	StatusActive     = ""
	StatusAbandoned  = "abandoned"  // decision given up
	StatusDeprecated = "deprecated" // pattern no longer advised
	StatusPromoted   = "promoted"   // observation turned into another record
	StatusDismissed  = "dismissed"  // observation triaged away
	// StatusPurged marks a tombstone: the version lore forget --purge
	// leaves of a record it removed, with nothing the record said. It
	// supersedes every other version, so a version a merge brings back
	// from another branch stays hidden (and doctor reports it).
	StatusPurged = "purged"
)

// Record is one version of one record. Every kind shares the envelope (V to
// Commit); the kind fields below it are used by the kinds that own them.
// Fields this build does not know are kept in Extra and written back
// unchanged when a new version is derived from this one.
type Record struct {
	V       int       `json:"v" toml:"v"`
	ID      string    `json:"id" toml:"id"`
	Kind    Kind      `json:"kind" toml:"kind"`
	Time    time.Time `json:"ts" toml:"ts"`           // when this version was written
	Created time.Time `json:"created" toml:"created"` // when the first version was written
	Status  string    `json:"status,omitempty" toml:"status,omitempty"`
	Text    string    `json:"text" toml:"text"` // decision, pattern name, failure message, handoff summary, observation
	Tags    []string  `json:"tags,omitempty" toml:"tags,omitempty"`
	Author  string    `json:"author,omitempty" toml:"author,omitempty"`
	Branch  string    `json:"branch,omitempty" toml:"branch,omitempty"`
	Commit  string    `json:"commit,omitempty" toml:"commit,omitempty"`

	// decision
	Rationale    string `json:"rationale,omitempty" toml:"rationale,omitempty"`
	Alternatives string `json:"alternatives,omitempty" toml:"alternatives,omitempty"`
	// pattern
	Context     string   `json:"context,omitempty" toml:"context,omitempty"`
	Solution    string   `json:"solution,omitempty" toml:"solution,omitempty"`
	Anti        bool     `json:"anti,omitempty" toml:"anti,omitempty"`
	Confidence  *float64 `json:"confidence,omitempty" toml:"confidence,omitempty"`
	Validations int      `json:"validations,omitempty" toml:"validations,omitzero"`
	// failure
	ErrorType string `json:"error_type,omitempty" toml:"error_type,omitempty"`
	Tool      string `json:"tool,omitempty" toml:"tool,omitempty"`
	// handoff
	Next    []string `json:"next,omitempty" toml:"next,omitempty"`
	Blocked []string `json:"blocked,omitempty" toml:"blocked,omitempty"`
	// lineage: an observation promoted to another record, and back
	PromotedTo string `json:"promoted_to,omitempty" toml:"promoted_to,omitempty"`
	From       string `json:"from,omitempty" toml:"from,omitempty"`
	// the code the record is about (see anchor.go)
	Anchors []Anchor `json:"anchors,omitempty" toml:"anchors,omitempty"`

	Extra map[string]any `json:"-" toml:"-"`

	// Where this version was read from; not stored.
	Source Pos `json:"-" toml:"-"`
}

// Pos is a place in a store file, for messages.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.File == "" {
		return "(new)"
	}
	if p.Line == 0 { // the whole file
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Active reports whether the record is current and in force.
func (r *Record) Active() bool { return r.Status == StatusActive }

// Short is the record's short ID.
func (r *Record) Short() string { return ShortID(r.ID) }

// Purged reports whether this version is a purge's tombstone.
func (r *Record) Purged() bool { return r.Status == StatusPurged }

// Tombstone is the version a purge leaves of r, stamped now by o: its
// envelope, and none of what it said.
func Tombstone(r *Record, now time.Time, o Origin) *Record {
	return &Record{V: FormatVersion, ID: r.ID, Kind: r.Kind, Time: now.UTC(), Created: r.Created,
		Status: StatusPurged, Author: o.Author, Branch: o.Branch, Commit: o.Commit}
}

// CheckTombstone is what a tombstone must satisfy: past its envelope (and
// fields this build does not know), it says nothing.
func CheckTombstone(r *Record) error {
	c := *r
	c.V, c.ID, c.Kind, c.Time, c.Created, c.Status = 0, "", "", time.Time{}, time.Time{}, ""
	c.Author, c.Branch, c.Commit, c.Extra, c.Source = "", "", "", nil, Pos{}
	if !reflect.DeepEqual(c, Record{}) {
		return &FieldError{Field: "status", Value: r.Status, Want: "a purged record's version carries no content"}
	}
	return nil
}

// Derive returns a copy of r to be appended as its next version: same ID,
// same creation time and unknown fields, a fresh timestamp and origin.
func (r *Record) Derive(now time.Time, o Origin) *Record {
	n := *r
	n.V = FormatVersion
	n.Time = now.UTC()
	n.Author, n.Branch, n.Commit = o.Author, o.Branch, o.Commit
	n.Tags = FoldTags(r.Tags)
	n.Next = append([]string(nil), r.Next...)
	n.Blocked = append([]string(nil), r.Blocked...)
	n.Anchors = append([]Anchor(nil), r.Anchors...)
	if r.Confidence != nil {
		c := *r.Confidence
		n.Confidence = &c
	}
	n.Source = Pos{}
	return &n
}

// SameAuthor reports whether two "Name <email>" identities are one
// person: the same address, case aside (one name spelled two ways), or,
// without an address, the same identity.
func SameAuthor(a, b string) bool {
	return authorKey(a) == authorKey(b)
}

func authorKey(author string) string {
	if _, mail, ok := strings.Cut(author, "<"); ok {
		return strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(mail), ">")))
	}
	return strings.ToLower(strings.TrimSpace(author))
}

// Origin is where a record is made: the git author, branch and HEAD.
type Origin struct {
	Author string
	Branch string
	Commit string
}

// knownJSONFields are the JSON names of Record's fields, read from its tags
// once; nothing writes to it afterwards.
var knownJSONFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeOf(Record{})
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}()

// MistypedField returns the field that key, a field this build does not
// know, is probably a typo of ("soluton": "solution"), or "": one letter
// off, or two in a name of seven letters or more. A name farther from
// every field ("mood" is two letters from "tool") may be a newer lore's
// field or the team's own, and gets no guess.
func MistypedField(key string) string {
	if len(key) < 4 {
		return ""
	}
	maxDist := 1
	if len(key) >= 7 {
		maxDist = 2
	}
	names := make([]string, 0, len(knownJSONFields))
	for n := range knownJSONFields {
		names = append(names, n)
	}
	return spell.Closest(strings.ToLower(key), names, maxDist)
}

// MarshalLine encodes r as one JSONL line (with the trailing newline),
// unknown fields included. Control characters are escaped by encoding/json,
// so a record can never span lines.
func (r *Record) MarshalLine() ([]byte, error) {
	type plain Record
	b, err := marshalNoEscape((*plain)(r))
	if err != nil {
		return nil, err
	}
	if len(r.Extra) > 0 {
		keys := make([]string, 0, len(r.Extra))
		for k := range r.Extra {
			if !knownJSONFields[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var buf bytes.Buffer
		buf.Write(b[:len(b)-1])
		for _, k := range keys {
			v, err := json.Marshal(r.Extra[k])
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", k, err)
			}
			kb, _ := json.Marshal(k)
			buf.WriteByte(',')
			buf.Write(kb)
			buf.WriteByte(':')
			buf.Write(v)
		}
		buf.WriteByte('}')
		b = buf.Bytes()
	}
	return append(b, '\n'), nil
}

// marshalNoEscape is json.Marshal without HTML escaping, so "<" stays
// readable and greppable in the files.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Marshal encodes r as its kind is stored: a [[pattern]] table for a
// pattern, a JSON line for the rest.
func (r *Record) Marshal() ([]byte, error) {
	if r.Kind == Pattern {
		return r.MarshalTable()
	}
	return r.MarshalLine()
}

// UnmarshalLine decodes one JSONL line and checks the envelope.
func UnmarshalLine(line []byte) (*Record, error) {
	var r Record
	if decodeFast(line, &r) {
		return &r, r.validateStored()
	}
	return unmarshalLineReflect(line)
}

// unmarshalLineReflect decodes any line with encoding/json.
func unmarshalLineReflect(line []byte) (*Record, error) {
	type plain Record
	var r plain
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, lineError(line, err)
	}
	rec := (*Record)(&r)
	var all map[string]json.RawMessage
	if hasUnknownKey(line) && json.Unmarshal(line, &all) == nil {
		for k, v := range all {
			if !knownJSONFields[k] {
				if rec.Extra == nil {
					rec.Extra = map[string]any{}
				}
				rec.Extra[k] = v
			}
		}
	}
	return rec, rec.validateStored()
}

// ErrNewerFormat marks a record or store written by a newer lore; At is
// where the record is, when it was read from a shard.
type ErrNewerFormat struct {
	Version int
	At      Pos
}

func (e *ErrNewerFormat) Error() string {
	return fmt.Sprintf("written by a newer lore (format %d, this lore reads up to %d)", e.Version, FormatVersion)
}

// Validate checks what a record needs to be written: what every stored
// record needs (validateStored), and tags that are one line of text each
// (CheckTag). Records read from shards are held only to validateStored: a
// rule added since a version was written, or a version written by hand,
// must not drop it (nothing is ever lost).
func (r *Record) Validate() error {
	if err := r.validateStored(); err != nil {
		return err
	}
	for _, t := range r.Tags {
		if err := CheckTag(t); err != nil {
			return err
		}
	}
	return nil
}

// CheckTag refuses a tag that is not one line of text: a newline, a tab,
// or any other control character (C0, DEL, C1), or a line or paragraph
// separator, would lay out lines of its own wherever tags are listed.
func CheckTag(t string) error {
	if strings.IndexFunc(t, tagBreaker) >= 0 {
		return &FieldError{"tags", t, "a tag is one line of text, without a newline or other control character"}
	}
	return nil
}

func tagBreaker(c rune) bool { return unicode.IsControl(c) || c == '\u2028' || c == '\u2029' }

// FoldTags is tags made writable: each one's control characters and
// separators become spaces, its spaces are folded (OneLine), and blanks
// and repeats are dropped. A later version of a record (Derive) keeps
// its tags this way, so that a record written before CheckTag's rule,
// or by hand, can still be revised or abandoned; whatever carries a
// stored record's tags to a new record should pass them through it.
func FoldTags(tags []string) []string {
	if !slices.ContainsFunc(tags, func(t string) bool { return strings.IndexFunc(t, tagBreaker) >= 0 }) {
		return append([]string(nil), tags...)
	}
	var out []string
	for _, t := range tags {
		t = OneLine(strings.Map(func(c rune) rune {
			if tagBreaker(c) {
				return ' '
			}
			return c
		}, t))
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// validateStored checks what every record needs, written or read: format
// version, an ID of its kind, timestamps, and well-formed anchors.
func (r *Record) validateStored() error {
	if r.V > FormatVersion {
		return &ErrNewerFormat{Version: r.V}
	}
	// Every envelope field missing at once: a hand-written table may lack
	// them all, and fixing one at a time costs a run each.
	var missing []string
	if r.V < 1 {
		missing = append(missing, `format version "v"`)
	}
	if r.ID == "" {
		missing = append(missing, `"id"`)
	}
	if r.Time.IsZero() {
		missing = append(missing, `timestamp "ts"`)
	}
	switch {
	case len(missing) > 0:
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	case !ValidID(r.ID):
		return fmt.Errorf("bad id %q", r.ID)
	}
	k, _ := KindOfID(r.ID)
	if r.Kind == "" {
		r.Kind = k
	}
	if r.Kind != k {
		return fmt.Errorf("kind %q does not match id %s", r.Kind, r.ID)
	}
	if r.Created.IsZero() {
		r.Created = r.Time
	}
	for _, a := range r.Anchors {
		if err := a.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Newer reports whether a supersedes b: a purge's tombstone wins, then the
// later timestamp, never the position in a file. Equal timestamps are
// broken by content so every clone picks the same winner; lore doctor
// reports such ties.
func Newer(a, b *Record) bool {
	if a.Purged() != b.Purged() {
		return a.Purged() // a purge holds, whatever a merge brings back
	}
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	la, _ := a.MarshalLine()
	lb, _ := b.MarshalLine()
	return string(la) > string(lb)
}

// SortOldestFirst orders versions of one record as Newer does, the one in
// force last.
func SortOldestFirst(h []*Record) {
	slices.SortStableFunc(h, func(a, b *Record) int {
		switch {
		case Newer(b, a):
			return -1
		case Newer(a, b):
			return 1
		}
		return 0
	})
}

// Title is the record's one-line headline.
func (r *Record) Title() string {
	if r.Kind == Failure && r.ErrorType != "" {
		return r.ErrorType + ": " + r.Text
	}
	return r.Text
}

// SearchText is every text field of the record, for matching.
func (r *Record) SearchText() string {
	parts := []string{r.Text, r.Rationale, r.Alternatives, r.Context, r.Solution, r.ErrorType, r.Tool}
	parts = append(parts, r.Next...)
	parts = append(parts, r.Blocked...)
	parts = append(parts, r.Tags...)
	return strings.Join(parts, " ")
}

// lineError words encoding/json's error for a line in the record's terms:
// the field and what it holds, never a Go type ("cannot unmarshal string
// into Go value of type record.plain" told a person nothing).
func lineError(line []byte, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("the line is %s, not a JSON object", jsonValue(te.Value))
		}
		return fmt.Errorf("%s: is %s, where %s is expected", te.Field, jsonValue(te.Value), goValue(te.Type))
	}
	var pe *time.ParseError
	if errors.As(err, &pe) || strings.HasPrefix(err.Error(), "Time.") {
		var all map[string]json.RawMessage
		_ = json.Unmarshal(line, &all)
		for _, k := range []string{"ts", "created"} {
			var t time.Time
			if v, ok := all[k]; ok && t.UnmarshalJSON(v) != nil {
				if len(v) > 40 {
					v = append([]byte(Prefix(string(v), 40)), "…"...)
				}
				return fmt.Errorf("%s: %s is not %s", k, v, timeWords)
			}
		}
		return errors.New("a time is not " + timeWords)
	}
	return err
}

// timeWords is what a time must be, in a reader's error.
const timeWords = "a time as lore writes it (RFC 3339, like 2026-11-21T08:49:51.5Z)"

// jsonValue names what encoding/json found ("string", "number 1.5").
func jsonValue(v string) string {
	switch {
	case v == "array", v == "object":
		return "an " + v
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number "):
		return "the number " + v[len("number "):]
	}
	return "a " + v
}

// goValue names what a field of Go type t takes, in JSON's words.
func goValue(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return goValue(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		switch t.Elem().Kind() {
		case reflect.String:
			return "a list of strings"
		case reflect.Struct, reflect.Map:
			return "a list of objects"
		}
		return "a list"
	}
	return "an object"
}
