package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// The commented config that init writes must say exactly the built-in
// defaults, or a fresh store would behave differently from no config. It is
// decoded into a zero Config, not over the defaults, so a key missing from
// the template, or a default changed on one side only, fails.
func TestDefaultConfigMatchesDefaults(t *testing.T) {
	var fromTemplate Config
	md, err := toml.Decode(DefaultConfig, &fromTemplate)
	if err != nil {
		t.Fatalf("DefaultConfig does not parse: %v", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		t.Errorf("DefaultConfig sets keys Config does not have: %v", und)
	}
	want := defaults()
	if !reflect.DeepEqual(&fromTemplate, want) {
		for _, d := range configDiff("", reflect.ValueOf(fromTemplate), reflect.ValueOf(*want)) {
			t.Errorf("DefaultConfig and defaults() differ: %s", d)
		}
	}

	// Loaded the way lore loads it, the template is the defaults too, and
	// within every bound: as written (LoadConfig skips decoding it) and
	// with a comment added, which has it decoded, validated and clamped.
	for _, text := range []string{DefaultConfig, DefaultConfig + "# edited\n"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		loaded, err := LoadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(loaded.Notes) > 0 {
			t.Errorf("DefaultConfig is past a bound: %v", loaded.Notes)
		}
		if !reflect.DeepEqual(loaded, want) {
			t.Errorf("DefaultConfig loads as\n%+v\nnot the defaults\n%+v", loaded, want)
		}
	}
}

// ignoredKeys are read for old config files and otherwise ignored: the
// template leaves them out and their default is the zero value.
var ignoredKeys = map[string]bool{"inject.threshold": true}

// Every setting Config has (every toml tag, walked by reflection) is in the
// template, explained by a comment right above it, so a new setting cannot
// be added to Config without being written down for users. Maps ([weights],
// [synonyms]) are one setting: their table opens with a comment.
func TestDefaultConfigDocumentsEveryKey(t *testing.T) {
	var template Config
	md, err := toml.Decode(DefaultConfig, &template)
	if err != nil {
		t.Fatal(err)
	}
	keys := configKeys("", reflect.TypeOf(Config{}))
	if len(keys) < 10 {
		t.Fatalf("found only %d keys in Config: %v", len(keys), keys)
	}
	for _, key := range keys {
		path := strings.Split(key.path, ".")
		if ignoredKeys[key.path] {
			if md.IsDefined(path...) {
				t.Errorf("DefaultConfig sets %s, which lore ignores", key.path)
			}
			continue
		}
		if !md.IsDefined(path...) {
			t.Errorf("DefaultConfig does not set %s", key.path)
			continue
		}
		table, name := "", key.path
		if i := strings.LastIndexByte(key.path, '.'); i >= 0 {
			table, name = key.path[:i], key.path[i+1:]
		}
		if key.isTable {
			table, name = key.path, ""
		}
		if !commentedInTemplate(DefaultConfig, table, name) {
			t.Errorf("DefaultConfig sets %s without a comment right above it", key.path)
		}
	}
	for k := range ignoredKeys {
		if !slices.ContainsFunc(keys, func(c configKey) bool { return c.path == k }) {
			t.Errorf("ignoredKeys names %s, which Config does not have", k)
		}
	}
	v := reflect.ValueOf(*defaults())
	for _, key := range keys {
		if ignoredKeys[key.path] && !configField(v, key.path).IsZero() {
			t.Errorf("%s is ignored but has a default", key.path)
		}
	}
}

type configKey struct {
	path    string // dotted TOML path: inject.budget
	isTable bool   // a map, written as a [table] of its own
}

// configKeys lists the settings of struct type t by their toml tags:
// scalars and lists as keys, maps as tables, structs walked into.
func configKeys(prefix string, t reflect.Type) []configKey {
	var keys []configKey
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		path := prefix + tag
		switch f.Type.Kind() {
		case reflect.Struct:
			keys = append(keys, configKeys(path+".", f.Type)...)
		case reflect.Map:
			keys = append(keys, configKey{path: path, isTable: true})
		default:
			keys = append(keys, configKey{path: path})
		}
	}
	return keys
}

// configField is the field of struct value v at the dotted TOML path.
func configField(v reflect.Value, path string) reflect.Value {
	for name := range strings.SplitSeq(path, ".") {
		for i := range v.NumField() {
			if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("toml"), ","); tag == name {
				v = v.Field(i)
				break
			}
		}
	}
	return v
}

// commentedInTemplate reports whether, in the TOML text, key name of table
// (name "" for the table's own header; table "" for the top level) is
// preceded directly by a comment line.
func commentedInTemplate(text, table, name string) bool {
	current, prev := "", ""
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			current = strings.Trim(line, "[] ")
			prev = line
			continue
		}
		if current == table {
			if name == "" && strings.HasPrefix(prev, "[") {
				return strings.HasPrefix(line, "#")
			}
			if k, _, ok := strings.Cut(line, "="); ok && name != "" && strings.TrimSpace(k) == name {
				return strings.HasPrefix(prev, "#")
			}
		}
		prev = line
	}
	return false
}

// configDiff names the fields where a and b differ.
func configDiff(path string, a, b reflect.Value) []string {
	if reflect.DeepEqual(a.Interface(), b.Interface()) {
		return nil
	}
	if a.Kind() == reflect.Struct {
		var out []string
		for i := range a.NumField() {
			if f := a.Type().Field(i); f.IsExported() {
				out = append(out, configDiff(path+"."+f.Name, a.Field(i), b.Field(i))...)
			}
		}
		return out
	}
	if a.Kind() == reflect.Map {
		var out []string
		seen := map[string]bool{}
		for _, m := range []reflect.Value{a, b} {
			for _, k := range m.MapKeys() {
				ks := fmt.Sprint(k.Interface())
				if seen[ks] {
					continue
				}
				seen[ks] = true
				av, bv := a.MapIndex(k), b.MapIndex(k)
				if !av.IsValid() || !bv.IsValid() || !reflect.DeepEqual(av.Interface(), bv.Interface()) {
					out = append(out, fmt.Sprintf("%s[%s]: template %s, defaults() %s", strings.TrimPrefix(path, "."), ks, show(av), show(bv)))
				}
			}
		}
		slices.Sort(out)
		return out
	}
	return []string{fmt.Sprintf("%s: template %s, defaults() %s", strings.TrimPrefix(path, "."), show(a), show(b))}
}

func show(v reflect.Value) string {
	if !v.IsValid() {
		return "missing"
	}
	return fmt.Sprintf("%v", v.Interface())
}

// A key lore does not know (a newer lore's, or a typo) is noted, with its
// line, and the rest of the file is used: it must not stop every command
// and silence the hooks for the whole team.
func TestUnknownKeysAreNotedNotFatal(t *testing.T) {
	cfg := loadText(t, "[inject]\n\nbudgte = 1\nmax_items = 4\n[bogus]\nx = 1\n")
	if cfg.Inject.MaxItems != 4 {
		t.Errorf("the known keys beside an unknown one are not used: max_items %d", cfg.Inject.MaxItems)
	}
	var notes []string
	for _, n := range cfg.Notes {
		notes = append(notes, n.Error())
	}
	want := []string{`config.toml:3: unknown key "inject.budgte": ignored`, `config.toml:5: unknown key "bogus": ignored`}
	for _, w := range want {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, w) }) {
			t.Errorf("notes %q, want one saying %q", notes, w)
		}
	}
}

// loadText loads a config.toml holding body, which must load.
func loadText(t *testing.T, body string) *Config {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte(body), 0o644)
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestMaxItemsZeroIsNotedAndUsesOne(t *testing.T) {
	cfg := loadText(t, "[inject]\nmax_items = 0\n")
	if cfg.Inject.MaxItems != 1 || len(cfg.Notes) != 1 || !strings.Contains(cfg.Notes[0].Error(), `config.toml:2: key "inject.max_items": 0 would show no record whole`) {
		t.Errorf("max_items = 0: uses %d, notes %v", cfg.Inject.MaxItems, cfg.Notes)
	}
}

// An unknown table is named once, not again for each of its keys.
func TestNotesNameTheLineOfTheirKeyOrTable(t *testing.T) {
	cfg := loadText(t, "[synonyms]\nbudget = [\"cost\"]\n\n[injct]\nbudget = 5\n[inject]\nbudgt = 3\nbudget = 0\n")
	var got []string
	for _, n := range cfg.Notes {
		got = append(got, fmt.Sprintf("%d %s", n.Line, n.Msg))
	}
	want := []string{
		`4 unknown key "injct": ignored (a newer lore's setting, or a typo)`,
		`7 unknown key "inject.budgt": ignored (a newer lore's setting, or a typo)`,
		`8 key "inject.budget": 0 sets no budget, so lore uses its default (see lore inject --help)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConfigErrorsNameFileLineAndKey(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"[inject]\nbudget = \"x\"\n", `config.toml:2: key "inject.budget": is a string, where an integer is expected`},
		{"[inject]\nbudget = [1]\n", `config.toml:2: key "inject.budget": is an array, where an integer is expected`},
		{"[weights]\nwidget = 1.0\n", `config.toml:2: key "weights.widget": not a kind`},
		{"format = 1\n[inject\n", `config.toml:2: expected '.' or ']' to end table name`},
		{"[inject]\nmin_relevance = nan\n", `config.toml:2: key "inject.min_relevance": must be a finite number`},
		{"[inject]\nmin_relevance = inf\n", `config.toml:2: key "inject.min_relevance": must be a finite number`},
		{"[inject]\nhalf_life_days = inf\n", `config.toml:2: key "inject.half_life_days": must be a finite number`},
		{"[inject]\nhalf_life_days = nan\n", `config.toml:2: key "inject.half_life_days": must be a finite number`},
		{"[anchors]\nnamed_boost = inf\n", `config.toml:2: key "anchors.named_boost": must be a finite number`},
		{"[anchors]\ngone_weight = -1\n", `config.toml:2: key "anchors.gone_weight": must not be negative`},
		{"format = 0\n", `config.toml:1: key "format": 0 is not a format lore has written (the first is 1; this lore writes 1)`},
		{"format = -1\n", `config.toml:1: key "format": -1 is not a format lore has written`},
		{"[inject]\nbudget = 5\n[[weights]]\npattern = 1.0\n", `config.toml:3: key "weights": is an array of tables ([[weights]]), where a table ([weights]) is expected`},
		{"[weights]\npattern = nan\n", `config.toml:2: key "weights.pattern": weight must be a number`},
		{"[inject]\nmax_items = -3\n", `config.toml:2: key "inject.max_items": must not be negative`},
		// the same key in an earlier table is not the one meant
		{"[synonyms]\nbudget = [\"cost\"]\n[inject]\nbudget = -5\n", `config.toml:4: key "inject.budget": must not be negative`},
		// a table given a value: TOML's words, not Go's types
		{"inject = 5\n", `config.toml:1: key "inject": is an integer, where a table is expected`},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "config.toml"), []byte(c.body), 0o644)
		_, err := LoadConfig(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %q: error %v, want %q", c.body, err, c.want)
		}
	}
}

// A config.toml a merge left with git's conflict markers is refused with
// the line of the first marker and what to do, not the parser's complaint
// about a '<'; a marker line inside a multi-line string is text.
func TestConflictMarkersAreNamed(t *testing.T) {
	conflict := "format = 1\n\n[inject]\n<<<<<<< HEAD\nbudget = 1500\n=======\nbudget = 3000\n>>>>>>> other\nmax_items = 5\n"
	diff3 := "[inject]\r\nbudget = 1500\r\n||||||| base\r\nbudget = 2000\r\n=======\r\nbudget = 3000\r\n>>>>>>> other\r\n"
	for _, c := range []struct {
		body string
		line int
	}{{conflict, 4}, {diff3, 3}, {"=======\n", 1}} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "config.toml"), []byte(c.body), 0o644)
		_, err := LoadConfig(dir)
		want := fmt.Sprintf("config.toml:%d: git conflict marker: a merge left this file unresolved; keep what each side meant and drop the marker lines", c.line)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("config %q: error %v, want %q", c.body, err, want)
		}
	}
	cfg := loadText(t, "[synonyms]\nmerge = [\"\"\"\n=======\n\"\"\"]\n")
	if got := cfg.Synonyms["merge"]; len(got) != 1 || got[0] != "=======\n" {
		t.Errorf("a marker line inside a string: synonyms %q", got)
	}
}
