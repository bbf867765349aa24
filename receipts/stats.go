package receipts

import (
	"cmp"
	"slices"
	"time"
)

// Report sums up receipts: what lore injected, and what the agents used.
type Report struct {
	Since      time.Time     `json:"since,omitzero"`
	Sessions   int           `json:"sessions"`
	Injections int           `json:"injections"` // blocks injected: session starts and prompts
	AtStart    int           `json:"at_session_start"`
	OnPrompt   int           `json:"on_prompt"`
	Shown      int           `json:"records_injected"` // distinct records injected
	UsedShown  int           `json:"records_used"`     // distinct records used
	Used       int           `json:"used"`             // uses: a record used in two sessions counts twice
	Asked      int           `json:"handoffs_asked"`
	Records    []RecordStats `json:"records"`
	Nothing    []string      `json:"prompts_without_context"` // oldest first
}

// RecordStats is one record's injections and uses.
type RecordStats struct {
	ID       string `json:"id"`
	Injected int    `json:"injected"`
	Used     int    `json:"used"`
}

// Summarize adds up evs from since on (all of them if since is zero).
func Summarize(evs []Event, since time.Time) Report {
	r := Report{Since: since, Records: []RecordStats{}, Nothing: []string{}}
	sessions := map[string]bool{}
	stats := map[string]*RecordStats{}
	stat := func(id string) *RecordStats {
		if stats[id] == nil {
			stats[id] = &RecordStats{ID: id}
		}
		return stats[id]
	}
	usedIn := map[[2]string]bool{} // session, record
	for _, ev := range evs {
		if !since.IsZero() && ev.Time.Before(since) {
			continue
		}
		sessions[ev.Session] = true
		switch ev.Event {
		case Start, Prompt:
			if len(ev.Full)+len(ev.Summary) == 0 {
				if ev.Prompt != "" {
					r.Nothing = append(r.Nothing, clipPrompt(ev.Prompt)) // again: an older lore kept it as typed
				}
				continue
			}
			r.Injections++
			if ev.Event == Start {
				r.AtStart++
			} else {
				r.OnPrompt++
			}
			for _, id := range append(append([]string{}, ev.Full...), ev.Summary...) {
				stat(id).Injected++
			}
		case Used:
			for id := range ev.Uses {
				if k := [2]string{ev.Session, id}; !usedIn[k] {
					usedIn[k] = true
					stat(id).Used++
					r.Used++
				}
			}
		case Asked:
			r.Asked++
		}
	}
	r.Sessions = len(sessions)
	for _, s := range stats {
		r.Records = append(r.Records, *s)
		if s.Injected > 0 {
			r.Shown++
		}
		if s.Used > 0 {
			r.UsedShown++
		}
	}
	slices.SortFunc(r.Records, func(a, b RecordStats) int {
		if c := cmp.Compare(b.Injected, a.Injected); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Used, a.Used); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return r
}
