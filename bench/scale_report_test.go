//go:build unix

package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// row records a result under its state and command.
func (s *scale) row(n int, state, what string, r *sample) {
	r.state, r.what = state, what
	r.order = len(s.results[n])
	s.results[n][key(state, what)] = r
}

func (s *scale) ordered(n int) []*sample {
	var rs []*sample
	for _, r := range s.results[n] {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b *sample) int { return a.order - b.order })
	return rs
}

// The states, as the tables name them.
const (
	stSteady    = "steady"
	stCapture   = "after a capture"
	stCommitted = "steady, current shards committed"
	stPull      = "after a pull of 3,000 records"
	stCheckout  = "after a checkout rewriting 600 shards"
)

func key(state, what string) string { return state + "\x00" + what }

// summary logs the overview tables (a row per size) and, with 100k and
// 300k measured, the growth exponents.
func (s *scale) summary(sizes []int) {
	t := s.t
	type col struct{ state, what, head string }
	// reads are the columns of the read commands timed in state, after
	// the columns first.
	reads := func(state string, first ...col) []col {
		for _, r := range []struct{ what, head string }{
			{`search "invoice export"`, "search"},
			{"resume", "resume"},
			{"list --limit 20", "list --limit 20"},
			{"show <decision>", "show"},
			{"status", "status"},
		} {
			first = append(first, col{state, r.what, r.head})
		}
		return first
	}
	tables := []struct {
		title string
		cols  []col
		rss   bool
	}{
		{"Hooks", []col{
			{stSteady, "prompt hook", "prompt"},
			{stSteady, "prompt hook, a prompt that injects", "prompt that injects"},
			{stSteady, "session-start hook", "session start"},
			{stCapture, "prompt hook", "prompt after a capture"},
			{stPull, "first prompt hook", "first prompt after a pull"},
			{stPull, "later prompt hooks, from 2.1 s on", "later prompts after a pull"},
			{stPull, "first session-start hook", "first session start after a pull"},
			{stCheckout, "first prompt hook", "first prompt after a checkout"},
			{stCheckout, "later prompt hooks, from 2.1 s on", "later prompts after a checkout"},
			{stCheckout, "first session-start hook", "first session start after a checkout"},
		}, true},
		{"Commands, steady", append(reads(stSteady),
			col{stSteady, "doctor", "doctor"},
			col{stSteady, "observe", "observe"},
			col{stSteady, "remember", "remember"},
			col{stSteady, "journal revise", "journal revise"},
			col{stSteady, "cold index build (search x)", "cold index build"},
		), false},
		{"Steady, with this checkout's current shards committed (a capture, then a commit)", reads(stCommitted,
			col{stCommitted, "prompt hook", "prompt"},
			col{stCommitted, "session-start hook", "session start"},
		), false},
		{"Commands right after a capture", reads(stCapture), false},
	}
	t.Log("### Summary")
	for _, tb := range tables {
		t.Log("")
		t.Logf("%s:", tb.title)
		t.Log("")
		head, rule := "| records | floor |", "|---:|---:|"
		for _, c := range tb.cols {
			head += " " + c.head + " |"
			rule += "---:|"
		}
		if tb.rss {
			head += " prompt hook peak RSS |"
			rule += "---:|"
		}
		t.Log(head)
		t.Log(rule)
		for _, n := range sizes {
			line := "| " + commas(n) + " | " + ms(s.floor[n]) + " |"
			for _, c := range tb.cols {
				line += " " + s.cell(n, s.results[n][key(c.state, c.what)]) + " |"
			}
			if tb.rss {
				line += " " + mb(s.results[n][key(stSteady, "prompt hook")].kb) + " |"
			}
			t.Log(line)
		}
	}
	if !slices.Contains(sizes, 100000) || !slices.Contains(sizes, 300000) {
		return
	}
	t.Log("")
	t.Log("Growth from 100k to 300k records, as the exponent log(t300k/t100k)/log(3) (1 is linear, 0 flat):")
	t.Log("")
	t.Log("| state | command | 100,000 | 300,000 | exponent |")
	t.Log("|---|---|---:|---:|---:|")
	for _, a := range s.ordered(100000) {
		b := s.results[300000][key(a.state, a.what)]
		if b == nil {
			continue
		}
		e := math.Log(b.med.Seconds()/a.med.Seconds()) / math.Log(3)
		t.Logf("| %s | %s | %s | %s | %.2f |", a.state, a.what, ms(a.med), ms(b.med), e)
	}
}

func (s *scale) cell(n int, r *sample) string {
	if r == nil {
		return "–"
	}
	ratio := r.med.Seconds() / s.floor[n].Seconds()
	f := "%.1f"
	if ratio >= 100 {
		f = "%.0f"
	}
	return fmt.Sprintf("%s ("+f+"×)", ms(r.med), ratio)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func size(b int) string {
	if b < 1000 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.1f KB", float64(b)/1000)
}

func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }

func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
