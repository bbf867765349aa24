package status

import (
	"slices"

	"lore/record"
)

// What happened to a record behind a count (Change.Change).
const (
	ChangeNew     = "new"     // created there
	ChangeRevised = "revised" // a new version of a record there before
	ChangeEdited  = "edited"  // a version changed by hand
	ChangeRemoved = "removed" // a version git would lose
)

// Change is one record behind a kind's counts: a count says "1 revised",
// a Change says which record, so that a teammate catching up can look it
// up (lore show) or, for one not pulled yet, knows what a pull brings.
type Change struct {
	ID     string      `json:"id"`
	Kind   record.Kind `json:"kind"`
	Change string      `json:"change"`           // ChangeNew, ChangeRevised, ChangeEdited or ChangeRemoved
	Title  string      `json:"title"`            // the headline of Rec
	Status string      `json:"status,omitempty"` // Rec's status: abandoned, deprecated, …
	// Rec is the newest version counted (a removed one only when none
	// was added): its headline, time, author and branch.
	Rec *record.Record `json:"-"`
}

// changeOrder ranks what happened to a record with several versions
// counted: a record created there is new, whatever else was done to it.
var changeOrder = []string{ChangeNew, ChangeRevised, ChangeEdited, ChangeRemoved}

// note adds version r, which happened as change, to the records behind
// kc: one Change per record.
func (kc *KindCount) note(r *record.Record, change string) {
	if kc.byID == nil {
		kc.byID = map[string]*Change{}
	}
	ch := kc.byID[r.ID]
	if ch == nil {
		ch = &Change{ID: r.ID, Kind: r.Kind, Change: change, Rec: r}
		kc.byID[r.ID] = ch
		kc.Records = append(kc.Records, ch)
		return
	}
	wasRemoved := ch.Change == ChangeRemoved
	if slices.Index(changeOrder, change) < slices.Index(changeOrder, ch.Change) {
		ch.Change = change
	}
	// A version added says what the record holds there; one removed only
	// when nothing was added.
	if change != ChangeRemoved && (wasRemoved || record.Newer(r, ch.Rec)) {
		ch.Rec = r
	}
}

// finish orders each kind's records newest first (by the version
// counted), and names their headlines.
func (c Counts) finish() {
	for _, kc := range c {
		for _, ch := range kc.Records {
			ch.Title, ch.Status = ch.Rec.Title(), ch.Rec.Status
			if ch.Rec.Purged() {
				ch.Title = "(purged)"
			}
		}
		slices.SortStableFunc(kc.Records, func(a, b *Change) int {
			switch {
			case record.Newer(a.Rec, b.Rec):
				return -1
			case record.Newer(b.Rec, a.Rec):
				return 1
			}
			return 0
		})
		kc.byID = nil
	}
}
