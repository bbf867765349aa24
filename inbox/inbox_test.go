package inbox

import (
	"errors"
	"strings"
	"testing"

	"lore/record"
)

func TestTriage(t *testing.T) {
	obs := &record.Record{Kind: record.Observation, ID: "obs-a1b2c3d4000000000", Text: "flaky upload"}
	if err := Promoted(obs, "pat-b1b2c3d4000000000"); err != nil || obs.Status != record.StatusPromoted {
		t.Fatalf("Promoted: %v %q", err, obs.Status)
	}
	if err := Check(obs); err != nil {
		t.Errorf("a promoted observation: %v", err)
	}
	if err := Promoted(obs, "dec-c1b2c3d4000000000"); err == nil {
		t.Error("promoted twice")
	}
	if err := Check(&record.Record{Kind: record.Observation, Status: record.StatusPromoted, PromotedTo: "obs-x"}); err == nil {
		t.Error("promoted to an observation, or to nothing valid, passed the check")
	}
	d := &record.Record{Kind: record.Observation}
	if err := Dismiss(d); err != nil {
		t.Fatal(err)
	}
	if err := Dismiss(d); !errors.Is(err, record.ErrUnchanged) {
		t.Errorf("a second Dismiss: %v", err)
	}
	// Dismissing a promoted observation names the verb that retires what
	// it became, one that takes that kind.
	for to, want := range map[string]string{
		"dec-d1b2c3d4000000000":  "(lore journal abandon dec-d1b2c3d4)",
		"pat-d1b2c3d4000000000":  "(lore patterns deprecate pat-d1b2c3d4)",
		"fail-d1b2c3d4000000000": "a failure stays as history; if it was recorded by mistake, lore forget fail-d1b2c3d4 --purge",
	} {
		p := &record.Record{Kind: record.Observation, ID: "obs-a1b2c3d4000000000", Status: record.StatusPromoted, PromotedTo: to}
		if err := Dismiss(p); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("dismissing one promoted to %s: %v, want it to end %q", to, err, want)
		}
	}
	for _, k := range []record.Kind{record.Handoff, record.Observation} {
		if CanPromoteTo(k) == nil {
			t.Errorf("promotion to %s allowed", k)
		}
	}
}
