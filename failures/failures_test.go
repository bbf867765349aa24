package failures

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/record"
)

func TestTriggersCountFailuresByType(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	seen := []Occurrence{
		{ID: "fail-a", ErrorType: "NonZeroExit", Tool: "Bash", Created: day(1)},
		{ID: "fail-b", ErrorType: "NonZeroExit", Tool: "npm", Created: day(3)},
		{ID: "fail-c", ErrorType: "NonZeroExit", Tool: "Bash", Created: day(2)},
		{ID: "fail-d", ErrorType: "TypeError", Created: day(4)},
	}
	msgs := map[int]string{1: "lint failed"}
	ts := Triggers(slices.All(seen), 2, func(i int) string { return msgs[i] })
	if len(ts) != 1 {
		t.Fatalf("triggers %+v, want only NonZeroExit (TypeError was seen once)", ts)
	}
	tr := ts[0]
	if tr.ErrorType != "NonZeroExit" || tr.Count != 3 || tr.Example != "lint failed" ||
		len(tr.Tools) != 2 || tr.Tools[0] != "Bash" || tr.Tools[1] != "npm" || tr.Last.Day() != 3 {
		t.Errorf("trigger %+v", tr)
	}
}

func TestTriggersGroupErrorTypesWhateverTheirCase(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	seen := []Occurrence{
		{ID: "fail-a", ErrorType: "Timeout", Created: day(1)},
		{ID: "fail-b", ErrorType: "timeout", Created: day(3)},
		{ID: "fail-c", ErrorType: "TIMEOUT", Created: day(2)},
	}
	ts := Triggers(slices.All(seen), 3, func(int) string { return "" })
	if len(ts) != 1 || ts[0].Count != 3 || ts[0].ErrorType != "timeout" {
		t.Fatalf("triggers %+v, want one of 3, named as most recently spelled (timeout)", ts)
	}
	// Spellings at one time: the first seen names the type, every run
	// (the spellings are merged in map order), with both tools and IDs.
	tied := []Occurrence{
		{ID: "fail-b", ErrorType: "timeOut", Tool: "npm", Created: day(5)},
		{ID: "fail-a", ErrorType: "Timeout", Tool: "Bash", Created: day(5)},
		{ID: "fail-c", ErrorType: "TIMEOUT", Tool: "npm", Created: day(5)},
	}
	for range 20 {
		ts := Triggers(slices.All(tied), 3, func(i int) string { return tied[i].ID })
		if len(ts) != 1 || ts[0].ErrorType != "timeOut" || ts[0].Example != "fail-b" ||
			!slices.Equal(ts[0].Tools, []string{"Bash", "npm"}) || !slices.Equal(ts[0].IDs, []string{"fail-a", "fail-b", "fail-c"}) {
			t.Fatalf("triggers %+v, want timeOut (seen first) with both tools and all IDs", ts)
		}
	}
	// Without IDs (a view that shows none), the rest is the same.
	for i := range tied {
		tied[i].ID = ""
	}
	if ts := Triggers(slices.All(tied), 3, func(int) string { return "" }); len(ts) != 1 || ts[0].Count != 3 || len(ts[0].IDs) != 0 {
		t.Fatalf("triggers %+v, want one of 3 listing no IDs", ts)
	}
}

func TestCheckErrorType(t *testing.T) {
	for _, ok := range []string{"NonZeroExit", "E_CONN-RESET", "pkg.Error", "HTTP:500"} {
		if CheckErrorType(ok) != nil {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "two words", "a/b"} {
		if CheckErrorType(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestMakeAndCheck(t *testing.T) {
	r := &record.Record{Kind: record.Failure, Text: "deploy.sh fails"}
	if err := Make(r, Options{ErrorType: " NonZeroExit ", Tool: " Bash "}); err != nil || r.ErrorType != "NonZeroExit" || r.Tool != "Bash" {
		t.Fatalf("Make: %v %+v", err, r)
	}
	if got := Describe(r).String(); !strings.Contains(got, "tool: Bash") || !strings.Contains(got, "NonZeroExit: deploy.sh fails") {
		t.Errorf("Describe: %q", got)
	}
	var fe *record.FieldError
	if err := Make(&record.Record{Kind: record.Failure}, Options{ErrorType: "two words"}); !errors.As(err, &fe) || fe.Field != "error_type" {
		t.Errorf("a bad error type: %v", err)
	}
	if err := Check(&record.Record{Kind: record.Failure, ErrorType: "E", Status: record.StatusAbandoned}); err == nil {
		t.Error("an abandoned failure passed the check: failures have no lifecycle")
	}
}
