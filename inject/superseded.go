package inject

import (
	"lore/record"
)

// SupersededFactor weighs a handoff that a newer handoff on its branch,
// found for the same prompt, followed: the newer one tells where that work
// stands now, and the older one's next steps were most likely taken since.
// It ranks as an abandoned decision does.
const SupersededFactor = 0.4

// followedShare is how relevant the newer handoff must be, as a share of
// the older one's relevance, to speak for the same work: one that shares a
// word or two with the prompt is about something else.
const followedShare = 0.5

// weighHandoffs weighs down each handoff among the strongest candidates
// (scs, with their records recs) that a newer handoff on the same branch,
// relevant to the prompt too, followed, and names the newest such one.
// Handoffs of parallel work on one branch are about other things, and are
// not candidates for the same prompt: they leave each other alone.
func weighHandoffs(scs []*Scored, recs []*record.Record) {
	for i, r := range recs {
		if r.Kind != record.Handoff {
			continue
		}
		var by *record.Record
		for j, h := range recs {
			if h.Kind == record.Handoff && h.Branch == r.Branch && h.Created.After(r.Created) &&
				scs[j].Relevance >= followedShare*scs[i].Relevance && (by == nil || h.Created.After(by.Created)) {
				by = h
			}
		}
		if by != nil {
			scs[i].Status *= SupersededFactor
			scs[i].Superseded = by.Short()
			scs[i].score()
		}
	}
}

// supersededNote is the clause a followed handoff is shown with.
func supersededNote(by string) string {
	if by == "" {
		return ""
	}
	return "followed by " + by + ": its next steps may be done"
}
