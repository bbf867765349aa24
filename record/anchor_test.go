package record

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func anchored(kind Kind) *Record {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	return &Record{V: FormatVersion, ID: NewID(kind, now), Kind: kind, Time: now, Created: now, Text: "invoice rounding",
		Anchors: []Anchor{
			{Path: "internal/billing/invoice.go", Blob: strings.Repeat("ab", 20), Start: 10, End: 40, Commit: strings.Repeat("c", 40)},
			{Path: "README.md", Blob: strings.Repeat("0f", 32)},
		}}
}

// Anchors survive both on-disk forms, and a pattern's anchors stay inside
// its own [[pattern]] table.
func TestAnchorsRoundTrip(t *testing.T) {
	for _, kind := range []Kind{Decision, Pattern} {
		r := anchored(kind)
		b, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		name := "x.jsonl"
		if kind == Pattern {
			name = "x.toml"
		}
		recs, warns, err := ParseShard(name, append(b, b...))
		if err != nil || len(warns) != 0 || len(recs) != 2 {
			t.Fatalf("%s: %d records, warnings %v, err %v\n%s", kind, len(recs), warns, err, b)
		}
		if !reflect.DeepEqual(recs[1].Anchors, r.Anchors) {
			t.Errorf("%s: anchors read back as %+v\n%s", kind, recs[1].Anchors, b)
		}
		if recs[1].Extra != nil {
			t.Errorf("%s: anchors landed among unknown fields: %v", kind, recs[1].Extra)
		}
	}
}

func TestAnchorValidate(t *testing.T) {
	blob := strings.Repeat("a", 40)
	good := []Anchor{{Path: "a.go", Blob: blob}, {Path: "d/a.go", Blob: blob, Start: 1, End: 1}, {Path: "..a", Blob: strings.Repeat("b", 64)}}
	for _, a := range good {
		if err := a.Validate(); err != nil {
			t.Errorf("%+v: %v", a, err)
		}
	}
	bad := map[string]Anchor{
		"absolute":      {Path: "/etc/passwd", Blob: blob},
		"escaping":      {Path: "../x.go", Blob: blob},
		"unclean":       {Path: "a/../b.go", Blob: blob},
		"backslash":     {Path: `a\b.go`, Blob: blob},
		"short blob":    {Path: "a.go", Blob: "abc"},
		"upper blob":    {Path: "a.go", Blob: strings.Repeat("A", 40)},
		"reversed":      {Path: "a.go", Blob: blob, Start: 9, End: 3},
		"half a range":  {Path: "a.go", Blob: blob, Start: 3},
		"negative line": {Path: "a.go", Blob: blob, Start: -1, End: 2},
		"bad commit":    {Path: "a.go", Blob: blob, Commit: "HEAD"},
	}
	for name, a := range bad {
		if a.Validate() == nil {
			t.Errorf("%s: %+v accepted", name, a)
		}
	}
	r := anchored(Decision)
	r.Anchors[0].Path = "../up.go"
	line, _ := r.MarshalLine()
	if _, err := UnmarshalLine(line); err == nil || !strings.Contains(err.Error(), "anchors.path") {
		t.Errorf("a record with an escaping anchor read as %v", err)
	}
}

func TestDeriveCopiesAnchors(t *testing.T) {
	r := anchored(Decision)
	n := r.Derive(r.Time.Add(time.Hour), Origin{})
	n.Anchors[0].Path = "other.go"
	if r.Anchors[0].Path != "internal/billing/invoice.go" {
		t.Error("Derive shares the anchors with the version it came from")
	}
}
