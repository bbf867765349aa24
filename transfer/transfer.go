// Package transfer owns handoffs: what a session did, what is next and what
// is blocked, so the next session (or person) starts where this one ended.
package transfer

import (
	"strings"

	"lore/record"
	"lore/store"
)

// Options are a handoff's optional fields.
type Options struct {
	Next    []string
	Blocked []string
	Tags    []string
}

// Handoff appends a new handoff.
func Handoff(s *store.Store, summary string, o Options) (*record.Record, error) {
	r, err := s.New(record.Handoff, summary, o.Tags)
	if err != nil {
		return nil, err
	}
	r.Next = nonEmpty(o.Next)
	r.Blocked = nonEmpty(o.Blocked)
	return r, s.Append(r)
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

// Body is the handoff's next steps and blockers, one line each.
func Body(r *record.Record) []string {
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
