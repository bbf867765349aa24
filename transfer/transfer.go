// Package transfer owns handoffs: what a session did, what is next and what
// is blocked, so the next session (or person) starts where this one ended;
// what makes one valid and how one reads.
package transfer

import (
	"fmt"
	"strings"

	"lore/record"
)

// Options are a handoff's own fields.
type Options struct {
	Next    []string
	Blocked []string
}

// Make fills a new handoff's fields on r, an envelope of kind handoff.
func Make(r *record.Record, o Options) error {
	r.Next = nonEmpty(o.Next)
	r.Blocked = nonEmpty(o.Blocked)
	return Check(r)
}

// Check is what every version of a handoff must satisfy, written or read.
func Check(r *record.Record) error {
	return record.StatusError(r, record.StatusActive)
}

// Latest returns the newest active handoff among recs, or nil.
func Latest(recs []*record.Record) *record.Record {
	var best *record.Record
	for _, r := range recs {
		if r.Kind == record.Handoff && r.Active() && (best == nil || r.Created.After(best.Created)) {
			best = r
		}
	}
	return best
}

// Describe lays a handoff out for a context block.
func Describe(r *record.Record) record.Item {
	return record.Item{Heading: fmt.Sprintf("[handoff] %s (%s)", r.Short(), r.Created.Format("2006-01-02")), Body: append([]string{r.Text}, Detail(r)...)}
}

// Detail is the handoff's next steps and blockers, one line each.
func Detail(r *record.Record) []string {
	var out []string
	for _, n := range r.Next {
		out = append(out, "Next: "+n)
	}
	for _, b := range r.Blocked {
		out = append(out, "Blocked: "+b)
	}
	return out
}

func nonEmpty(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
