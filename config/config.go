package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"lore/internal/tomlerr"
	"lore/record"
)

// Config is .lore/config.toml. Zero values mean "use the default".
type Config struct {
	Format   int                 `toml:"format"`
	Inject   InjectConfig        `toml:"inject"`
	Loop     LoopConfig          `toml:"loop"`
	Anchors  AnchorsConfig       `toml:"anchors"`
	Weights  map[string]float64  `toml:"weights"`
	Synonyms map[string][]string `toml:"synonyms"`
	// Notes says what lore did not take as written: each setting held to
	// its bound, and each key it does not know (ignored: a newer lore's
	// setting must not stop an older one).
	Notes []ConfigError `toml:"-"`
}

// InjectConfig tunes what the prompt hook injects.
type InjectConfig struct {
	Budget       int     `toml:"budget"`         // tokens, about 4 characters each
	MinRelevance float64 `toml:"min_relevance"`  // how well a record must match to be injected
	Threshold    float64 `toml:"threshold"`      // before min_relevance; read and ignored
	HalfLifeDays float64 `toml:"half_life_days"` // recency decay
	MaxItems     int     `toml:"max_items"`      // whole items at most
}

// LoopConfig tunes how lore asks agents to record what they learn.
type LoopConfig struct {
	Teach      bool `toml:"teach"`       // end the session-start view with how to record
	AskHandoff bool `toml:"ask_handoff"` // ask once for a handoff when a session changed the repository
}

// AnchorsConfig tunes how records are tied to code (lore --file, lore stale).
type AnchorsConfig struct {
	Auto       bool    `toml:"auto"`        // anchor a capture to the tracked files its text names
	GoneWeight float64 `toml:"gone_weight"` // ranking weight of a record whose code is all gone
	NamedBoost float64 `toml:"named_boost"` // evidence boost when the prompt names an anchored file
}

// DefaultConfig is what lore init writes; every value is the built-in default.
const DefaultConfig = `# lore settings. Every value below is the built-in default;
# change one and commit it to change it for everyone on the repository.
format = 1

[inject]
# Token budget of the block injected on each prompt (about 4 characters a token).
# LORE_CONTEXT_BUDGET overrides it for one shell.
budget = 2000
# How well a record must match a prompt to be injected at all: its evidence
# (specific words and phrases of the prompt it holds) times the share of the
# prompt's specific words it matches (lore inject --explain shows both).
# Lower injects more, and more noise; higher injects less.
min_relevance = 1.2
# Days after which a record's recency bonus has halved: a new record gets a
# little more weight than an old one, which keeps most of it (see --explain).
half_life_days = 90
# Whole items at most; the rest become one-line ID summaries.
max_items = 5

[loop]
# End the session-start view (and lore export) with the commands an agent
# uses to record decisions, patterns, failures and a handoff.
teach = true
# When a session changed the repository and recorded no handoff, answer its
# first Stop once, asking the agent to record one.
ask_handoff = true

[anchors]
# Anchor a record to the files its text names (a path git tracks, or a file
# name only one tracked file has), when the capture gives no --file.
auto = true
# Ranking weight of a record whose anchored files are all gone (deleted, not
# moved): below 1 it ranks under records whose code is still there.
gone_weight = 0.5
# How much more a record counts when the prompt names a file it is anchored
# to (invoice.go, internal/billing/).
named_boost = 1.5

[weights]
# The weight of each kind of record in ranking.
pattern = 1.0
decision = 0.9
failure = 0.8
handoff = 0.7
observation = 0.5

[synonyms]
# Words that should also match each other in prompts and records.
deploy = ["ci", "pipeline", "release", "ship", "rollout"]
test = ["spec", "unittest", "testing"]
database = ["db", "sql", "postgres", "sqlite"]
auth = ["login", "signin", "authentication", "oauth"]
money = ["amount", "price", "currency", "cents"]
secrets = ["credentials", "password", "token"]
config = ["configuration", "cfg"]
dependencies = ["deps", "requirements", "lockfile"]
docs = ["documentation", "readme"]
`

// ConfigError is a problem in config.toml at a line.
type ConfigError struct {
	File string
	Line int
	Msg  string
	// Unknown: a key this lore does not know, most often a newer lore's
	// setting (a note): the others are values it cannot use as written.
	Unknown bool
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// LoadConfig reads dir/config.toml over the defaults. A missing file means
// the defaults; a malformed one is an error naming file, line and key.
func LoadConfig(dir string) (*Config, error) {
	path := filepath.Join(dir, "config.toml")
	cfg := defaults()
	data, err := readConfig(path)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, err
	}
	if string(data) == DefaultConfig {
		// As lore init wrote it (TestDefaultConfigMatchesDefaults holds the
		// two equal): decoding it would cost every hook a quarter of a
		// millisecond for the same values.
		return cfg, nil
	}
	md, err := toml.Decode(string(data), cfg)
	if err != nil {
		if line := conflictLine(data); line > 0 {
			return nil, &ConfigError{File: path, Line: line, Msg: conflictMsg}
		}
		line, key, msg := tomlerr.Where(string(data), err)
		if key != "" {
			msg = fmt.Sprintf("key %q: %s", key, msg)
		}
		return nil, &ConfigError{File: path, Line: line, Msg: msg}
	}
	unknown := md.Undecoded()
	for _, k := range unknown {
		if slices.ContainsFunc(unknown, func(t toml.Key) bool { return len(t) < len(k) && slices.Equal(t, k[:len(t)]) }) {
			continue // in an unknown table, which is named
		}
		line := keyLine(data, strings.Join(k[:len(k)-1], "."), k[len(k)-1])
		if line == 0 { // a table: its header
			line = keyLine(data, k.String(), "")
		}
		cfg.Notes = append(cfg.Notes, ConfigError{File: path, Line: line,
			Msg: fmt.Sprintf("unknown key %q: ignored (a newer lore's setting, or a typo)", k.String()), Unknown: true})
	}
	if cfg.Format > record.FormatVersion {
		return nil, fmt.Errorf("%s:%d: %w", path, keyLine(data, "", "format"), &record.ErrNewerFormat{Version: cfg.Format})
	}
	if err := tablesAreTables(path, data, md); err != nil {
		return nil, err
	}
	if err := cfg.validate(path, data); err != nil {
		return nil, err
	}
	cfg.clamp(path, data, md)
	return cfg, nil
}

// MaxConfigBytes bounds the config.toml lore reads: every process, the
// prompt hook included, decodes it, and the file comes with the clone. Its
// defaults take 2 KB; a 5.6 MB table of synonyms cost every prompt hook
// 0.44 s.
const MaxConfigBytes = 256 << 10

// readConfig reads path if it is a regular file of at most MaxConfigBytes.
// A committed symbolic link is checked out as a link: one to /dev/zero had
// every command, and the hook of a clone nobody trusted, read until memory
// ran out.
func readConfig(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &ConfigError{File: path, Msg: "not a regular file: lore does not follow a symbolic link here, nor read a device or a directory"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// What was opened is what was checked, not a link swapped in since.
	if opened, err := f.Stat(); err != nil || !os.SameFile(fi, opened) {
		return nil, &ConfigError{File: path, Msg: "changed while lore opened it"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxConfigBytes {
		return nil, &ConfigError{File: path, Msg: fmt.Sprintf("over the %d KiB lore reads (the defaults take 2 KB): move what it holds elsewhere", MaxConfigBytes>>10)}
	}
	return data, nil
}

// conflictMsg is the error for a config.toml a merge left with git's
// conflict markers: the TOML parser's own message about the marker's '<'
// says nothing of the merge, and every command would fail with it.
const conflictMsg = "git conflict marker: a merge left this file unresolved; keep what each side meant and drop the marker lines (<<<<<<<, =======, >>>>>>>)"

// conflictLine is the line (1-based) of the first git conflict marker in
// data, or 0. It is asked only of a file that does not parse: a marker
// outside a multi-line string never does, and one inside is text.
func conflictLine(data []byte) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if record.IsConflictMarker(l) {
			return i + 1
		}
	}
	return 0
}

// Bounds a repository's config.toml cannot go past: it is committed by
// whoever can push, and these settings decide how much of the store an
// agent is shown. Values past them are used at the bound, and Notes says
// so (lore doctor reports it).
const (
	MinRelevanceFloor = 0.5 // below it nearly every record passes the gate
	MaxItemsCap       = 10  // whole items in one block
	WeightCap         = 2.0 // a kind weight
	SynonymsCap       = 100 // synonym groups
	SynonymWordsCap   = 20  // words in one group
)

// clamp holds the settings to the bounds above, noting each change.
func (c *Config) clamp(path string, data []byte, md toml.MetaData) {
	note := func(table, key, msg string) {
		c.Notes = append(c.Notes, ConfigError{File: path, Line: keyLine(data, table, key), Msg: fmt.Sprintf("key %q: %s", dotted(table, key), msg)})
	}
	if c.Inject.Budget == 0 && md.IsDefined("inject", "budget") {
		note("inject", "budget", "0 sets no budget, so lore uses its default (see lore inject --help)")
	}
	if c.Inject.MinRelevance < MinRelevanceFloor {
		note("inject", "min_relevance", fmt.Sprintf("%g is below %g, so lore uses %g", c.Inject.MinRelevance, MinRelevanceFloor, MinRelevanceFloor))
		c.Inject.MinRelevance = MinRelevanceFloor
	}
	if c.Anchors.NamedBoost > WeightCap {
		note("anchors", "named_boost", fmt.Sprintf("%g is above %g, so lore uses %g", c.Anchors.NamedBoost, WeightCap, WeightCap))
		c.Anchors.NamedBoost = WeightCap
	}
	if c.Inject.MaxItems == 0 {
		note("inject", "max_items", "0 would show no record whole, so lore uses 1 (to stop injecting, remove lore's hooks: lore hooks uninstall)")
		c.Inject.MaxItems = 1
	}
	if c.Inject.MaxItems > MaxItemsCap {
		note("inject", "max_items", fmt.Sprintf("%d is above %d, so lore uses %d", c.Inject.MaxItems, MaxItemsCap, MaxItemsCap))
		c.Inject.MaxItems = MaxItemsCap
	}
	for _, k := range slices.Sorted(maps.Keys(c.Weights)) {
		if w := c.Weights[k]; w > WeightCap {
			note("weights", k, fmt.Sprintf("weight %g is above %g, so lore uses %g", w, WeightCap, WeightCap))
			c.Weights[k] = WeightCap
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Synonyms)) {
		if ws := c.Synonyms[k]; len(ws) > SynonymWordsCap {
			note("synonyms", k, fmt.Sprintf("%d synonyms, more than %d: lore uses the first %d", len(ws), SynonymWordsCap, SynonymWordsCap))
			c.Synonyms[k] = ws[:SynonymWordsCap]
		}
	}
	if len(c.Synonyms) > SynonymsCap {
		keys := slices.Sorted(maps.Keys(c.Synonyms))
		note("synonyms", "", fmt.Sprintf("%d groups, more than %d: lore uses the first %d in alphabetical order", len(keys), SynonymsCap, SynonymsCap))
		for _, k := range keys[SynonymsCap:] {
			delete(c.Synonyms, k)
		}
	}
}

// tablesAreTables refuses [[weights]] where [weights] is meant: decoded,
// an array of tables fills nothing and every key in it reads as unknown.
func tablesAreTables(path string, data []byte, md toml.MetaData) error {
	for _, table := range []string{"inject", "loop", "anchors", "weights", "synonyms"} {
		if md.Type(table) == "ArrayHash" {
			return &ConfigError{File: path, Line: keyLine(data, table, ""), Msg: fmt.Sprintf("key %q: is an array of tables ([[%s]]), where a table ([%s]) is expected", table, table, table)}
		}
	}
	return nil
}

func (c *Config) validate(path string, data []byte) error {
	bad := func(table, key, msg string) error {
		return &ConfigError{File: path, Line: keyLine(data, table, key), Msg: fmt.Sprintf("key %q: %s", dotted(table, key), msg)}
	}
	if c.Format < 1 {
		return bad("", "format", fmt.Sprintf("%d is not a format lore has written (the first is 1; this lore writes %d)", c.Format, record.FormatVersion))
	}
	if c.Inject.Budget < 0 {
		return bad("inject", "budget", "must not be negative")
	}
	if c.Inject.MinRelevance < 0 {
		return bad("inject", "min_relevance", "must not be negative")
	}
	if c.Inject.MaxItems < 0 {
		return bad("inject", "max_items", "must not be negative")
	}
	if c.Inject.HalfLifeDays <= 0 {
		return bad("inject", "half_life_days", "must be positive")
	}
	// TOML has nan and inf: nan would turn every score into NaN, and an
	// infinite min_relevance would inject nothing, ever, without a word.
	if !finite(c.Inject.MinRelevance) {
		return bad("inject", "min_relevance", "must be a finite number")
	}
	if !finite(c.Inject.HalfLifeDays) {
		return bad("inject", "half_life_days", "must be a finite number")
	}
	for _, a := range []struct {
		key string
		v   float64
	}{{"gone_weight", c.Anchors.GoneWeight}, {"named_boost", c.Anchors.NamedBoost}} {
		if a.v < 0 {
			return bad("anchors", a.key, "must not be negative")
		} else if !finite(a.v) {
			return bad("anchors", a.key, "must be a finite number")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Weights)) {
		if _, err := record.ParseKind(k); err != nil {
			return bad("weights", k, "not a kind")
		}
		if w := c.Weights[k]; w < 0 {
			return bad("weights", k, "weight must not be negative")
		} else if math.IsNaN(w) {
			return bad("weights", k, "weight must be a number")
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// defaults is the one place the built-in settings are written in Go; the
// DefaultConfig template must set every one of them to the same value, with
// a comment (TestDefaultConfigMatchesDefaults, TestDefaultConfigDocumentsEveryKey).
func defaults() *Config {
	return &Config{
		Format:  record.FormatVersion,
		Inject:  InjectConfig{Budget: 2000, MinRelevance: 1.2, HalfLifeDays: 90, MaxItems: 5},
		Loop:    LoopConfig{Teach: true, AskHandoff: true},
		Anchors: AnchorsConfig{Auto: true, GoneWeight: 0.5, NamedBoost: 1.5},
		Weights: map[string]float64{
			"pattern": 1.0, "decision": 0.9, "failure": 0.8, "handoff": 0.7, "observation": 0.5,
		},
		Synonyms: defaultSynonyms(),
	}
}

// Weight is the ranking weight of kind k.
func (c *Config) Weight(k record.Kind) float64 {
	if w, ok := c.Weights[string(k)]; ok {
		return w
	}
	return defaults().Weights[string(k)]
}

// keyLine is the line (1-based) that sets key in table ("" for the top
// level), or the line of the table's own header when key is "" or not set
// there; 0 if none. The same key may be set in several tables
// ([synonyms] budget, [inject] budget): only the one in table is the one
// the message is about.
func keyLine(data []byte, table, key string) int {
	cur, header := "", 0
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			name, _, _ := strings.Cut(l, "#")
			cur = strings.Trim(strings.TrimSpace(name), "[] ")
			if cur == table {
				header = i + 1
			}
			continue
		}
		if cur != table || key == "" {
			continue
		}
		for _, k := range []string{key, `"` + key + `"`} {
			if rest, ok := strings.CutPrefix(l, k); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
				return i + 1
			}
		}
	}
	return header
}

// dotted is how messages name key in table: inject.budget.
func dotted(table, key string) string {
	if table == "" || key == "" {
		return table + key
	}
	return table + "." + key
}

// defaultSynonyms must say what DefaultConfig's [synonyms] says; a test
// holds them together.
func defaultSynonyms() map[string][]string {
	return map[string][]string{
		"deploy":       {"ci", "pipeline", "release", "ship", "rollout"},
		"test":         {"spec", "unittest", "testing"},
		"database":     {"db", "sql", "postgres", "sqlite"},
		"auth":         {"login", "signin", "authentication", "oauth"},
		"money":        {"amount", "price", "currency", "cents"},
		"secrets":      {"credentials", "password", "token"},
		"config":       {"configuration", "cfg"},
		"dependencies": {"deps", "requirements", "lockfile"},
		"docs":         {"documentation", "readme"},
	}
}
