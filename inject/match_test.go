package inject

import (
	"slices"
	"strings"
	"testing"
)

// synonymGroups.of, which stems only the groups that may hold a word,
// links the same stems as stemming every group up front (the oracle
// below), for the default groups and for odd ones.
func TestSynonymGroupsLinkEveryStemOfTheirGroup(t *testing.T) {
	cfg := defaultConfig(t)
	for _, groups := range []map[string][]string{cfg.Synonyms, {
		"dying": {"lying", "tying", "skies"}, "NOT IN": {"exclude", "without"}, "k8s": {"kubernetes", "kube-ctl", "K8S_HOST"},
		"Deploying": {"ship", "deploy"}, "x": {"y"},
	}} {
		want := map[string][]string{}
		var stems []string
		for k, vs := range groups {
			group := Keywords(k + " " + strings.Join(vs, " "))
			stems = append(stems, group...)
			for _, a := range group {
				for _, b := range group {
					if a != b && !slices.Contains(want[a], b) {
						want[a] = append(want[a], b)
					}
				}
			}
		}
		g := newSynonymGroups(groups)
		for _, s := range append(stems, "deploy", "unrelat", "in", "not") {
			got := g.of(s)
			slices.Sort(got)
			w := slices.Clone(want[s])
			slices.Sort(w)
			if !slices.Equal(got, w) {
				t.Errorf("synonyms of %q: %q, want %q", s, got, w)
			}
		}
	}
}
