package inject

import (
	"fmt"
	"strings"

	"lore/kinds"
	"lore/record"
)

// Summary is the one-line form used when the budget runs short:
// "[decision] dec-a1b2c3d4 Use JSONL for storage".
func Summary(r *record.Record) string {
	return record.OneLine(fmt.Sprintf("[%s] %s %s", r.Kind, r.Short(), r.Title()))
}

// recordEntry is r whole and summed up for a block, each with the clause
// that says how its anchored code changed since ("" when it did not).
func recordEntry(r *record.Record, stale string) Entry {
	e := Entry{ID: r.ID, Full: kinds.Describe(r).Noted(stale).String(), Summary: Summary(r)}
	if stale != "" {
		e.Summary += " (" + stale + ")"
	}
	return e
}

// scoredEntry is a ranked record's entry, with what the ranking found
// about it since it was written (its code changed, a handoff followed it)
// and the other notes given.
func scoredEntry(sc Scored, notes ...string) Entry {
	var said []string
	for _, n := range append([]string{sc.Stale, supersededNote(sc.Superseded)}, notes...) {
		if n != "" {
			said = append(said, n)
		}
	}
	return recordEntry(sc.Rec, strings.Join(said, "; "))
}
