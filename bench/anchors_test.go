//go:build unix

package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"lore/internal/benchstore"
)

// TestAnchors times what anchors cost, as whole processes of the built
// binary, against the targets:
//
//   - the prompt hook on 10,000 records, a fifth of them anchored, within
//     10% of the same store without anchors (the two stores are generated
//     with one seed and differ only by their anchors; the hooks alternate
//     between them in one run, and the ratio is of their medians);
//   - `lore stale` on 100,000 records, a fifth of them anchored, under 25
//     times a hello-world Go process timed in the same run.
//
// Both stores live in git repositories holding a source tree of 2,000
// small files in nested directories; the records are anchored to those
// files with their real object IDs, and before the index and the anchor
// cache are warmed 5% of the files are edited in the working tree (and,
// for the stale store, a few deleted), so some records are stale. Run it
// with bench/anchors.sh.
//
//	LORE_BENCH=anchors             run it (it is skipped otherwise)
//	LORE_ANCHORS_RUNS=24           prompt hooks timed on each store (interleaved; four rounds of the six prompts)
//	LORE_ANCHORS_STALE=100000      records of the stale store (smaller for a quick check)
//	LORE_SCALE_BIN=/path/to/lore   time this binary instead of building the repository's
//	LORE_ANCHORS_KEEP=/some/dir    work there (a new directory) and leave the stores for a look
func TestAnchors(t *testing.T) {
	if os.Getenv("LORE_BENCH") != "anchors" {
		t.Skip("set LORE_BENCH=anchors (or run bench/anchors.sh) to time anchors at scale")
	}
	tmp := t.TempDir()
	if keep := os.Getenv("LORE_ANCHORS_KEEP"); keep != "" {
		tmp = keep // left for a look afterwards
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := &scale{t: t, tmp: tmp, runs: 9, results: map[int]map[string]*sample{}, floor: map[int]time.Duration{}}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(s.tmp, "config"))
	promptRuns := envCount(t, "LORE_ANCHORS_RUNS", 24)
	bigN := envCount(t, "LORE_ANCHORS_STALE", 100000)
	begin := time.Now()
	s.begin = begin
	s.bin = os.Getenv("LORE_SCALE_BIN")
	if s.bin == "" {
		s.bin = filepath.Join(s.tmp, "lore")
		s.build(s.bin, "..")
	}
	hello := filepath.Join(s.tmp, "hello")
	if err := os.MkdirAll(hello, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(hello, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.hello = filepath.Join(hello, "hello")
	s.build(s.hello, src)
	s.launcher = buildLauncher(t, hello)

	// The source tree, committed once and copied for every store.
	s.progress("writing and committing a source tree of %d files", treeFiles)
	tree := filepath.Join(s.tmp, "tree")
	files := writeTree(t, tree, treeFiles)
	gitRun(t, tree, 0, "init", "-q")
	gitRun(t, tree, 0, "add", "-A")
	gitRun(t, tree, 0, "commit", "-q", "-m", "source")
	anchors := hashTree(t, tree, files)
	changed, gone := pickFiles(files, 19, treeFiles/20), []srcFile{files[7], files[333], files[777], files[1111], files[1999]}

	floor := s.timeFloor()

	// (a) The prompt hook, with and without anchors.
	s.progress("10,000 records: generating both stores")
	plain, anchored := filepath.Join(s.tmp, "plain"), filepath.Join(s.tmp, "anchored")
	copyTree(t, tree, plain)
	copyTree(t, tree, anchored)
	if err := benchstore.Generate(filepath.Join(plain, ".lore"), 10000, 25, 1); err != nil {
		t.Fatal(err)
	}
	stA, err := benchstore.GenerateAnchored(filepath.Join(anchored, ".lore"), 10000, 25, 1, anchors, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	sameButAnchors(t, filepath.Join(plain, ".lore"), filepath.Join(anchored, ".lore"))
	for _, root := range []string{plain, anchored} {
		commitStore(t, root)
		editFiles(t, root, changed)
	}
	prompts := anchorPrompts(changed)
	hook := func(root, session string, i int) string {
		b, err := json.Marshal(map[string]string{"session_id": session, "transcript_path": "", "cwd": root,
			"hook_event_name": "UserPromptSubmit", "prompt": prompts[i%len(prompts)]})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	s.progress("10,000 records: trusting, building the indexes, warming the anchor caches")
	for pass := range 2 {
		for _, root := range []string{plain, anchored} {
			if pass == 0 {
				_ = gitTry(root, 0, "update-index", "-q", "--refresh")
				removeIndex(t, root)
				(&runner{t: t, bin: s.bin, dir: root}).run(nil, "trust")
				(&runner{t: t, bin: s.bin, dir: root}).run(nil, "search", "x")
			}
			(&runner{t: t, bin: s.bin, dir: root}).run(nil, "stale")
			in := hook(root, fmt.Sprintf("warm-%d", pass), pass)
			(&runner{t: t, bin: s.bin, dir: root}).run(&in, "inject", "--stdin")
		}
		time.Sleep(2100 * time.Millisecond)
	}
	s.progress("10,000 records: %d prompt hooks on each store, alternating", promptRuns)
	roots := [2]string{plain, anchored}
	var res [2]*sample
	res[0], res[1] = &sample{}, &sample{}
	var pairs, pairsNamed, pairsNot []float64
	marked := 0 // anchored runs whose output says some anchored code moved on
	for i := range promptRuns {
		var d [2]time.Duration
		for j := range 2 {
			k := j
			if i%2 == 1 {
				k = 1 - j
			}
			sp := spec{input: func(i int) string { return hook(roots[k], fmt.Sprintf("bench-%d-%d", k, i), i) }, args: fixed("inject", "--stdin")}
			dd, kb, out := s.once(roots[k], sp, i)
			res[k].add(dd, kb, out)
			d[k] = dd
		}
		pr := d[1].Seconds() / d[0].Seconds()
		pairs = append(pairs, pr)
		if filesNamed(i) {
			pairsNamed = append(pairsNamed, pr)
		} else {
			pairsNot = append(pairsNot, pr)
		}
	}
	// Once more, untimed, for what each prompt has the hooks print.
	var looks []string
	for i, p := range prompts {
		var got [2]string
		for k, root := range roots {
			r := runner{t: t, bin: s.bin, dir: root}
			in := hook(root, fmt.Sprintf("look-%d", i), i)
			r.run(&in, "inject", "--stdin")
			got[k] = fmt.Sprintf("%d records, %s", injected(r.out), size(len(r.out)))
			if k == 1 && stalePhrase.Match(r.out) {
				marked++
				got[k] += ", some marked stale"
			}
		}
		looks = append(looks, fmt.Sprintf("%q: plain %s; anchored %s", p, got[0], got[1]))
	}
	anchoredInForce := staleCount(t, s.bin, anchored)

	// (b) lore stale on the large store.
	s.progress("%s records: generating", commas(bigN))
	big := filepath.Join(s.tmp, "big")
	copyTree(t, tree, big)
	stB, err := benchstore.GenerateAnchored(filepath.Join(big, ".lore"), bigN, 25, 1, anchors, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	s.progress("%s records: committing", commas(bigN))
	commitStore(t, big)
	editFiles(t, big, changed)
	for _, f := range gone {
		if err := os.Remove(filepath.Join(big, filepath.FromSlash(f.path))); err != nil {
			t.Fatal(err)
		}
	}
	s.progress("%s records: trusting, building the index, warming the anchor cache", commas(bigN))
	_ = gitTry(big, 0, "update-index", "-q", "--refresh")
	removeIndex(t, big)
	(&runner{t: t, bin: s.bin, dir: big}).run(nil, "trust")
	(&runner{t: t, bin: s.bin, dir: big}).run(nil, "search", "x")
	(&runner{t: t, bin: s.bin, dir: big}).run(nil, "stale")
	time.Sleep(2100 * time.Millisecond)
	(&runner{t: t, bin: s.bin, dir: big}).run(nil, "stale")
	time.Sleep(2100 * time.Millisecond)
	stale := s.series(big, spec{args: fixed("stale")})
	s.progress("stale --json >/dev/null")
	staleJSON := s.nullSeries(big, "stale", "--json")
	s.progress("cold stale")
	cache := filepath.Join(big, ".lore", ".local", "anchors")
	cold := s.timed(big, spec{args: fixed("stale"), before: func(int) {
		if err := os.Remove(cache); err != nil {
			t.Fatal(err)
		}
	}}, 0, 3)
	staleLine := staleCount(t, s.bin, big)

	fl := median(append(floor, s.timeFloor()...))
	s.floor[0] = fl
	ratio := res[1].med.Seconds() / res[0].med.Seconds()
	t.Logf("### Anchors (floor %s: a hello-world Go process, median of %d runs before and %d after)", ms(fl), floorRuns, floorRuns)
	t.Log("")
	t.Log("| store | command | median (× floor) | peak RSS | output | runs |")
	t.Log("|---|---|---:|---:|---:|---:|")
	t.Logf("| 10,000 records, no anchors | prompt hook | %s | %s | %s | %d |", s.cell(0, res[0]), mb(res[0].kb), size(res[0].out), res[0].runs)
	t.Logf("| 10,000 records, %s of them anchored (%s anchors) | prompt hook | %s | %s | %s | %d |",
		commas(stA.Anchored), commas(stA.Anchors), s.cell(0, res[1]), mb(res[1].kb), size(res[1].out), res[1].runs)
	t.Logf("| | anchored / plain | **%.3f** (median of the %d paired ratios %.3f: %.3f for prompts naming no file, %.3f naming files; target ≤ 1.10: %s) | | | |",
		ratio, len(pairs), medianF(pairs), medianF(pairsNot), medianF(pairsNamed), verdict(ratio <= 1.10))
	t.Logf("| %s records, %s of them anchored (%s anchors) | stale | %s | %s | %s | %d |",
		commas(bigN), commas(stB.Anchored), commas(stB.Anchors), s.cell(0, stale), mb(stale.kb), size(stale.out), stale.runs)
	t.Logf("| | stale --json >/dev/null | %s | %s | – | %d |", s.cell(0, staleJSON), mb(staleJSON.kb), staleJSON.runs)
	t.Logf("| | stale, cold (anchor cache removed) | %s | %s | %s | %d |", s.cell(0, cold), mb(cold.kb), size(cold.out), cold.runs)
	t.Logf("| | target: stale under 25× the floor | %s | | | |", verdict(stale.med.Seconds() < 25*fl.Seconds()))
	t.Log("")
	t.Logf("Source tree: %d files in nested directories, committed; %d of them edited in the working tree before warming (and for the stale store %d deleted).",
		len(files), len(changed), len(gone))
	t.Logf("Records: generated with one seed, revisions keeping their anchors; the two 10,000-record stores are identical but for the anchors (checked). Anchored records in force: %s (10k); %s (stale store).",
		anchoredInForce, staleLine)
	t.Logf("Prompt hook: %d prompts about the stores' subjects, two of them naming edited files of the tree, rotated, a new session every run; the two stores alternate (which goes first alternates too).", len(prompts))
	t.Logf("Of the %d prompts run once more on each store, %d printed a record marked stale on the anchored one:", len(prompts), marked)
	t.Log("")
	for _, l := range looks {
		t.Logf("- %s", l)
	}
	t.Log("")
	t.Log("Steady: index built by `lore search x`, anchor cache by `lore stale` and a prompt, twice, each pass followed by 2.1 s (past the 2 s racy windows).")
	t.Logf("Cold: `lore stale` right after .lore/.local/anchors was removed (each of %d runs). Total: %s.", cold.runs, secs(time.Since(begin)))
}

const treeFiles = 2000

var stalePhrase = regexp.MustCompile(`changed since|moved to| gone`)

// srcFile is one file of the generated source tree.
type srcFile struct {
	path  string // slash-separated, relative to the tree
	lines int
}
