package inbox

import (
	"errors"
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
	for _, k := range []record.Kind{record.Handoff, record.Observation} {
		if CanPromoteTo(k) == nil {
			t.Errorf("promotion to %s allowed", k)
		}
	}
}
