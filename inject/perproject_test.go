package inject

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/record"
)

// distractorProject is the project of a distractor record, by the tag
// distractors.txt gives each repository's commits.
var distractorProject = map[string]string{
	"vite": "vit", "pip": "pip", "terraform": "tfm", "tokio": "tok", "compose": "dco",
	"prometheus": "prm", "astro": "ast", "cargo": "crg", "deno": "dno",
}

// loadBorrowed reads testdata/relevance/borrowed.txt: for each unrelated
// prompt, the project whose records it borrows words from ("none" for an
// ordinary request).
func loadBorrowed(t testing.TB) map[string]string {
	path := filepath.Join("testdata", "relevance", "borrowed.txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		proj, prompt, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("%s:%d: want project | prompt", path, n)
		}
		out[strings.TrimSpace(prompt)] = strings.TrimSpace(proj)
	}
	return out
}

// TestRelevancePerProject reports the evaluation as a repository meets it:
// one store per project (its records, and in the large store its own
// commits), each targeted prompt in its project's store, each unrelated
// prompt in the store of the project whose words it borrows (an ordinary
// request in the projects' stores in turn). It reports; TestRelevance
// holds the floor. LORE_EVAL_HALF=dev runs the dev half.
func TestRelevancePerProject(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	set := loadRelevance(t, now)
	borrowed := loadBorrowed(t)
	half, cases := "test", set.test
	if os.Getenv("LORE_EVAL_HALF") == "dev" {
		half, cases = "dev", set.dev
	}
	projectOf := map[string]string{} // record ID → project
	for key, id := range set.ids {
		if !strings.HasPrefix(key, "x") {
			projectOf[id] = key[:3]
		}
	}
	var projects []string
	for _, r := range set.records {
		if p := projectOf[r.ID]; !slices.Contains(projects, p) {
			projects = append(projects, p)
		}
	}
	slices.Sort(projects)
	byProject := map[string][]evalCase{}
	ordinary := 0
	for _, c := range cases {
		p := ""
		switch {
		case c.expect != "":
			p = c.expect[:3]
		case borrowed[c.prompt] == "":
			t.Fatalf("borrowed.txt does not label the unrelated prompt %q", c.prompt)
		case borrowed[c.prompt] == "none":
			p = projects[ordinary%len(projects)]
			ordinary++
		default:
			p = borrowed[c.prompt]
		}
		byProject[p] = append(byProject[p], c)
	}
	for _, large := range []bool{false, true} {
		var total evalResult
		for _, p := range projects {
			var recs []*record.Record
			for _, r := range set.records {
				if projectOf[r.ID] == p {
					recs = append(recs, r)
				}
			}
			if large {
				for _, r := range set.distractors {
					if slices.ContainsFunc(r.Tags, func(tag string) bool { return distractorProject[tag] == p }) {
						recs = append(recs, r)
					}
				}
			}
			res := evaluate(t, recs, set.ids, byProject[p], now)
			total.targeted += res.targeted
			total.hits += res.hits
			total.unrelated += res.unrelated
			total.falseInj += res.falseInj
			total.items += res.items
			total.misses = append(total.misses, res.misses...)
		}
		what := "its records"
		if large {
			what = "its records and commits"
		}
		t.Logf("%s half, one store per project (%s): lore %s", half, what, total)
		if half == "dev" || os.Getenv("LORE_EVAL_MISSES") != "" {
			for _, m := range total.misses {
				t.Log("  ", m)
			}
		}
	}
}
