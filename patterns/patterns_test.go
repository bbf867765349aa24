package patterns

import (
	"errors"
	"math"
	"strings"
	"testing"

	"lore/record"
)

func TestMakeUsesTheDefaultConfidence(t *testing.T) {
	r := &record.Record{Kind: record.Pattern, Text: "Safe bash arithmetic"}
	if err := Make(r, Options{Solution: "x=$((x+1))"}); err != nil || Confidence(r) != DefaultConfidence {
		t.Fatalf("Make: %v, confidence %v", err, Confidence(r))
	}
	bad := 1.5
	if err := Make(&record.Record{Kind: record.Pattern}, Options{Confidence: &bad}); err == nil {
		t.Error("confidence 1.5 accepted")
	}
}

func TestCheckOnRead(t *testing.T) {
	nan, neg := math.NaN(), -0.1
	for _, r := range []*record.Record{
		{Kind: record.Pattern, Confidence: &nan},
		{Kind: record.Pattern, Confidence: &neg},
		{Kind: record.Pattern, Validations: -1},
		{Kind: record.Pattern, Status: record.StatusAbandoned},
	} {
		var fe *record.FieldError
		if err := Check(r); !errors.As(err, &fe) {
			t.Errorf("%+v: %v, want a field error", r, err)
		}
	}
	if err := Check(&record.Record{Kind: record.Pattern}); err != nil {
		t.Errorf("a pattern without a confidence (the default applies): %v", err)
	}
}

func TestValidateStopsAtFullConfidence(t *testing.T) {
	c := 0.85
	r := &record.Record{Kind: record.Pattern, Confidence: &c}
	if err := Validate(r); err != nil || Confidence(r) != 0.95 || r.Validations != 1 {
		t.Fatalf("validate: %v %v %d", err, Confidence(r), r.Validations)
	}
	if err := Validate(r); err != nil || Confidence(r) != 1 {
		t.Fatalf("validate to the cap: %v %v", err, Confidence(r))
	}
	if err := Validate(r); !errors.Is(err, record.ErrUnchanged) || r.Validations != 2 {
		t.Errorf("validate at the cap: %v, %d validations", err, r.Validations)
	}
	// A deprecated pattern that proves right again comes back.
	if err := Deprecate(r); err != nil {
		t.Fatal(err)
	}
	if err := Deprecate(r); !errors.Is(err, record.ErrUnchanged) {
		t.Errorf("a second Deprecate: %v", err)
	}
	if err := Validate(r); err != nil || !r.Active() {
		t.Errorf("validate a deprecated pattern: %v %q", err, r.Status)
	}
}

func TestDescribe(t *testing.T) {
	c := 0.9
	r := &record.Record{Kind: record.Pattern, ID: "pat-a1b2c3d4000000000", Text: "Parse dates with regexes", Anti: true, Solution: "time.Parse", Confidence: &c}
	got := Describe(r).String()
	if !strings.Contains(got, "(anti-pattern, confidence: 0.9) pat-a1b2c3d4") || !strings.Contains(got, "Instead: time.Parse") {
		t.Errorf("Describe: %q", got)
	}
	if d := Detail(r); d[0] != "Confidence: 0.9" {
		t.Errorf("Detail: %q", d)
	}
}

// A block and lore show give one figure: the block wrote 0.95 as 0.9
// (%.1f) where show wrote 0.95.
func TestConfidenceTextIsOneFigure(t *testing.T) {
	for c, want := range map[float64]string{0.95: "0.95", 0.9: "0.9", 1: "1", 0.125: "0.13", 0.7: "0.7"} {
		r := &record.Record{Kind: record.Pattern, ID: "pat-a1b2c3d4000000000", Text: "t", Confidence: &c}
		if got := ConfidenceText(r); got != want {
			t.Errorf("ConfidenceText(%v) = %q, want %q", c, got, want)
		}
		if h := Describe(r).Heading; !strings.Contains(h, "(confidence: "+want+")") {
			t.Errorf("Describe(%v) = %q, want confidence %s", c, h, want)
		}
		if d := Detail(r)[0]; d != "Confidence: "+want {
			t.Errorf("Detail(%v) = %q, want %s", c, d, want)
		}
	}
}

// Counting n validations at once gives what n validations one after the
// other give: doctor --fix counts so those made in two clones apart.
func TestCountIsValidationsOneAfterTheOther(t *testing.T) {
	for _, c := range []struct {
		from float64
		n    int
	}{{0.6, 1}, {0.6, 2}, {0.7, 3}, {0.95, 1}, {0.85, 4}, {1, 2}} {
		one := &record.Record{Kind: record.Pattern, Confidence: &c.from, Validations: 1}
		for range c.n {
			Count(one, 1)
		}
		at := c.from
		all := &record.Record{Kind: record.Pattern, Confidence: &at, Validations: 1}
		Count(all, c.n)
		if *all.Confidence != *one.Confidence || all.Validations != one.Validations || all.Validations != 1+c.n {
			t.Errorf("from %v, %d: counted at once %v/%d, one by one %v/%d", c.from, c.n, *all.Confidence, all.Validations, *one.Confidence, one.Validations)
		}
	}
}
