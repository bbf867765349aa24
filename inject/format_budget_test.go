package inject

import (
	"strings"
	"testing"

	"lore/record"
)

const hintLine = "(more: lore show ID)"

// budgetEntries are a session view's and a prompt's kinds of entry: a
// handoff, notices, a recurring failure's line, records.
func budgetEntries() []Entry {
	return []Entry{
		{ID: "ho-t8hnzh961m830", Full: "Last handoff ho-t8hnzh96 (2026-11-23 01:34 by H on main):\n  did e\n  Next: n",
			Summary: "Last handoff: [handoff] ho-t8hnzh96 did e"},
		{ID: "git", Full: "Git on main:\n  " + strings.Repeat("changed file.go ", 30), Summary: "Git on main: 30 files changed", Notice: true},
		{ID: "fail-8w6xzsh31m830", Full: "[failure] fail-8w6xzsh3 (2026-11-23, tool: Bash)\n  NonZeroExit: deploy.sh fails when DEPLOY_ENV is unset",
			Summary: "[failure] fail-8w6xzsh3 NonZeroExit: deploy.sh fails when DEPLOY_ENV is unset"},
		{ID: "dec-qfbf8x6k1m830", Full: "[decision] dec-qfbf8x6k (2026-11-23)\n  " + strings.Repeat("Deploy with GitHub Actions on tag push ", 8),
			Summary: "[decision] dec-qfbf8x6k Deploy with GitHub Actions on tag push"},
		{ID: "trigger:NonZeroExit", Full: "[recurring failure] 3× NonZeroExit (Bash), last 2026-11-23: deploy.sh fails",
			Summary: "[recurring failure] 3× NonZeroExit (Bash), last 2026-11-23: deploy.sh fails"},
		{ID: "inbox", Full: "Inbox: 2 observations to triage (lore list observation).", Summary: "Inbox: 2 observations to triage (lore list observation).", Notice: true},
	}
}

// A budget below MinBudget holds no block: what it left room for was a
// scrap of one summary ("[failure]…"), cut before the record's ID, under
// a hint to run lore show on the ID.
func TestRenderBelowMinBudgetIsEmpty(t *testing.T) {
	entries := budgetEntries()
	for _, what := range []string{"auto-injected", "session resume", "session resume after compaction"} {
		for _, tail := range []string{"", Teach} {
			for budget := 0; budget < MinBudget*CharsPerToken; budget++ {
				for _, from := range []int{0, 2} {
					if r := RenderTail(what, entries[from:], budget, 0, tail); r.Text != "" || len(r.Full)+len(r.Summary) != 0 {
						t.Fatalf("%s, %d characters: want nothing, got %v %v\n%s", what, budget, r.Full, r.Summary, r.Text)
					}
				}
			}
			if r := RenderTail(what, entries[2:], MinBudget*CharsPerToken, 0, tail); r.Text == "" {
				t.Errorf("%s at MinBudget: nothing rendered", what)
			}
		}
	}
}

// Whatever the budget, a record's summary keeps its ID, and the hint to
// run lore show on an ID is there only when a summary shown names one.
func TestRenderHintHasAnID(t *testing.T) {
	entries := budgetEntries()
	// A summary whose ID comes late: cut to fit, it would lose it.
	late := Entry{ID: "pat-abcdefgh1m830", Full: strings.Repeat("whole pattern text ", 40),
		Summary: "[pattern] " + strings.Repeat("long ", 16) + "title then pat-abcdefgh and more words"}
	byID := map[string]Entry{late.ID: late}
	for _, en := range entries {
		byID[en.ID] = en
	}
	for _, what := range []string{"auto-injected", "session resume after compaction"} {
		for _, list := range [][]Entry{entries, append([]Entry{late}, entries...), {late}, {late, entries[3]}} {
			for budget := MinBudget * CharsPerToken; budget <= 2400; budget++ {
				r := RenderTail(what, list, budget, 0, "")
				named := false
				for _, id := range r.Summary {
					en := byID[id]
					short := record.ShortID(id)
					if en.Notice || !strings.Contains(en.Summary, short) {
						continue
					}
					if !strings.Contains(r.Text, short) {
						t.Fatalf("%s, %d characters: the summary of %s is shown without its ID:\n%s", what, budget, id, r.Text)
					}
					named = true
				}
				if strings.Contains(r.Text, hintLine) != named {
					t.Fatalf("%s, %d characters: hint %v, a record's ID shown as a summary %v:\n%s",
						what, budget, strings.Contains(r.Text, hintLine), named, r.Text)
				}
			}
		}
	}
}

// Summaries of notices and recurring failures name nothing lore show
// takes: no hint.
func TestRenderNoHintForNotices(t *testing.T) {
	entries := budgetEntries()
	list := []Entry{entries[1], entries[4], entries[5]} // git, a trigger, the inbox
	r := Render("session resume", list, 400, 0)
	if len(r.Summary) == 0 {
		t.Fatalf("want summaries, got %v whole:\n%s", r.Full, r.Text)
	}
	if strings.Contains(r.Text, hintLine) {
		t.Errorf("a hint to show an ID, and no ID:\n%s", r.Text)
	}
}
