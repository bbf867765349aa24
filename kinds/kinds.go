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

// kind is what the package that owns a kind provides.
type kind struct {
	check    func(*record.Record) error
	describe func(*record.Record) record.Item
	detail   func(*record.Record) []string // nil: no fields beyond the text
}

// owners hands each kind to its package: the one list of them.
var owners = map[record.Kind]kind{
	record.Decision:    {journal.Check, journal.Describe, journal.Detail},
	record.Pattern:     {patterns.Check, patterns.Describe, patterns.Detail},
	record.Failure:     {failures.Check, failures.Describe, failures.Detail},
	record.Handoff:     {transfer.Check, transfer.Describe, transfer.Detail},
	record.Observation: {inbox.Check, inbox.Describe, nil},
}

// Check is what every version of r must satisfy, written or read: the
// rules of its kind. The envelope (ID, kind, times) is record.Validate's.
func Check(r *record.Record) error {
	k, ok := owners[r.Kind]
	if !ok {
		return fmt.Errorf("unknown kind %q", r.Kind)
	}
	if r.Purged() {
		return record.CheckTombstone(r)
	}
	return k.check(r)
}

// Describe lays r out for a context block, as its kind does (an unknown
// kind as an observation: text only).
func Describe(r *record.Record) record.Item {
	k, ok := owners[r.Kind]
	if !ok {
		k = owners[record.Observation]
	}
	return k.describe(r)
}

// Detail is r's own fields, one line each, for lore show.
func Detail(r *record.Record) []string {
	if k := owners[r.Kind]; k.detail != nil {
		return k.detail(r)
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
