// Package kinds is the one place that knows all five kinds: it hands a
// record to the package that owns its kind (journal, patterns, failures,
// transfer, inbox) to be checked or laid out, and it reads shards with
// every record checked by its kind, so a record its kind refuses is
// reported with file:line like any malformed line.
package kinds

import (
	"cmp"
	"fmt"
	"slices"

	"lore/failures"
	"lore/inbox"
	"lore/journal"
	"lore/patterns"
	"lore/record"
	"lore/transfer"
)

// Check is what every version of r must satisfy, written or read: the
// rules of its kind. The envelope (ID, kind, times) is record.Validate's.
func Check(r *record.Record) error {
	switch r.Kind {
	case record.Decision:
		return journal.Check(r)
	case record.Pattern:
		return patterns.Check(r)
	case record.Failure:
		return failures.Check(r)
	case record.Handoff:
		return transfer.Check(r)
	case record.Observation:
		return inbox.Check(r)
	}
	return fmt.Errorf("unknown kind %q", r.Kind)
}

// Describe lays r out for a context block, as its kind does.
func Describe(r *record.Record) record.Item {
	switch r.Kind {
	case record.Decision:
		return journal.Describe(r)
	case record.Pattern:
		return patterns.Describe(r)
	case record.Failure:
		return failures.Describe(r)
	case record.Handoff:
		return transfer.Describe(r)
	}
	return inbox.Describe(r)
}

// Detail is r's own fields, one line each, for lore show.
func Detail(r *record.Record) []string {
	switch r.Kind {
	case record.Decision:
		return journal.Detail(r)
	case record.Pattern:
		return patterns.Detail(r)
	case record.Failure:
		return failures.Detail(r)
	case record.Handoff:
		return transfer.Detail(r)
	}
	return nil
}

// ParseShard reads a shard as record.ParseShard does and checks every
// record by its kind: one that fails is skipped with a warning at its
// position, like a line that does not parse, and every other is served.
func ParseShard(name string, data []byte) ([]*record.Record, []record.Warning, error) {
	recs, warns, err := record.ParseShard(name, data)
	if err != nil {
		return nil, nil, err
	}
	kept, refused := recs[:0], false
	for _, r := range recs {
		if err := Check(r); err != nil {
			warns = append(warns, record.Warning{Pos: r.Source, Kind: record.WarnMalformed, Msg: "invalid " + string(r.Kind) + " skipped: " + err.Error()})
			refused = true
			continue
		}
		kept = append(kept, r)
	}
	if refused { // in file order, among the reader's own
		slices.SortStableFunc(warns, func(a, b record.Warning) int { return cmp.Compare(a.Pos.Line, b.Pos.Line) })
	}
	return kept, warns, nil
}
