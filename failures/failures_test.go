package failures

import (
	"slices"
	"testing"
	"time"

	"lore/index"
	"lore/record"
)

func TestTriggersCountActiveFailuresByType(t *testing.T) {
	day := func(d int) int64 { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC).UnixNano() }
	docs := []index.Doc{
		{ID: "fail-a", Kind: record.Failure, ErrorType: "NonZeroExit", Tool: "Bash", Created: day(1)},
		{ID: "fail-b", Kind: record.Failure, ErrorType: "NonZeroExit", Tool: "npm", Created: day(3)},
		{ID: "fail-c", Kind: record.Failure, ErrorType: "NonZeroExit", Tool: "Bash", Created: day(2)},
		{ID: "fail-d", Kind: record.Failure, ErrorType: "TypeError", Created: day(4)},
		{ID: "fail-e", Kind: record.Failure, ErrorType: "TypeError", Created: day(5), Status: record.StatusAbandoned},
		{ID: "dec-f", Kind: record.Decision, ErrorType: "NonZeroExit", Created: day(6)},
	}
	msgs := map[int]string{1: "lint failed"}
	ts := Triggers(slices.All(docs), 2, func(i int) string { return msgs[i] })
	if len(ts) != 1 {
		t.Fatalf("triggers %+v, want only NonZeroExit (TypeError has one active failure)", ts)
	}
	tr := ts[0]
	if tr.ErrorType != "NonZeroExit" || tr.Count != 3 || tr.Example != "lint failed" ||
		len(tr.Tools) != 2 || tr.Tools[0] != "Bash" || tr.Tools[1] != "npm" || tr.Last.Day() != 3 {
		t.Errorf("trigger %+v", tr)
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
