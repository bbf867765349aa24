//go:build unix

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"lore/internal/benchstore"
	"lore/kinds"
	"lore/record"
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

func envCount(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.ToLower(v), "k"))
	if strings.HasSuffix(strings.ToLower(v), "k") {
		n *= 1000
	}
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// writeTree writes n small source files into root: top/subject[/sub]/
// subject_role.ext, each path unique, with a few functions each.
func writeTree(t *testing.T, root string, n int) []srcFile {
	tops := []string{"cmd", "internal", "pkg", "services", "web/src"}
	roles := []string{"handler", "store", "client", "types", "util", "config", "worker", "service", "model",
		"routes", "cache", "errors", "metrics", "api"}
	subs := []string{"v2", "legacy", "internal", "testdata", "impl"}
	subjects := benchstore.Subjects()
	exts := []string{".go", ".go", ".go", ".ts", ".py"}
	if n > len(tops)*len(subjects)*len(roles) {
		t.Fatalf("writeTree: at most %d files", len(tops)*len(subjects)*len(roles))
	}
	var out []srcFile
	for i := range n {
		top := tops[i%len(tops)]
		subj := subjects[(i/len(tops))%len(subjects)]
		role := roles[(i/(len(tops)*len(subjects)))%len(roles)]
		dir := top + "/" + subj
		if i%3 == 0 {
			dir += "/" + subs[(i/3)%len(subs)]
		}
		p := dir + "/" + subj + "_" + role + exts[i%len(exts)]
		text, lines := sourceText(subj, role, i)
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, srcFile{p, lines})
	}
	return out
}

func sourceText(subj, role string, i int) (string, int) {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n", subj)
	for f := range 3 + i%8 {
		name := fmt.Sprintf("%s%s%d", strings.ToUpper(role[:1]), role[1:], f)
		fmt.Fprintf(&b, "// %s handles the %s %s (case %d).\nfunc %s(ctx context.Context, n int) (int, error) {\n", name, subj, role, i*7+f, name)
		fmt.Fprintf(&b, "\tif n < 0 {\n\t\treturn 0, fmt.Errorf(\"%s: negative count %%d\", n)\n\t}\n", subj)
		fmt.Fprintf(&b, "\ttotal := 0\n\tfor i := 0; i < n; i++ {\n\t\ttotal += i * %d\n\t}\n\treturn total, ctx.Err()\n}\n\n", f+i%13)
	}
	return b.String(), strings.Count(b.String(), "\n")
}

// hashTree has git compute every file's object ID (one process), and
// returns the files as anchors: path, ID, the commit checked out (HEAD),
// and the line count as End.
func hashTree(t *testing.T, root string, files []srcFile) []record.Anchor {
	var in strings.Builder
	for _, f := range files {
		in.WriteString(f.path + "\n")
	}
	cmd := exec.Command("git", "hash-object", "--stdin-paths")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(files) {
		t.Fatalf("git hash-object: %d IDs for %d files", len(ids), len(files))
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	as := make([]record.Anchor, len(files))
	for i, f := range files {
		as[i] = record.Anchor{Path: f.path, Blob: ids[i], End: f.lines, Commit: strings.TrimSpace(string(head))}
	}
	return as
}

// pickFiles is n files, every so many: spread over the tree's
// directories and subjects.
func pickFiles(files []srcFile, every, n int) []srcFile {
	var out []srcFile
	for i := 3; i < len(files) && len(out) < n; i += every {
		out = append(out, files[i])
	}
	return out
}

// editFiles changes files in root's working tree as an edit would: a line
// rewritten in the middle and three added after it.
func editFiles(t *testing.T, root string, files []srcFile) {
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		mid := len(lines) / 2
		lines[mid] = "\t// edited: " + strings.TrimSpace(lines[mid]) + "\n"
		add := []string{"\t_ = fmt.Sprint(\"one\")\n", "\t_ = fmt.Sprint(\"two\")\n", "\t_ = fmt.Sprint(\"three\")\n"}
		lines = slices.Insert(lines, mid+1, add...)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// anchorPrompts are prompts about subjects of the store, as a user would
// type them: the first four name no file (on the generated stores they
// inject records with and without anchors), the last two name edited
// files of the tree (filesNamed).
func anchorPrompts(changed []srcFile) []string {
	name := func(subj string, base bool) string {
		for _, f := range changed {
			if strings.Contains(f.path, "/"+subj+"/") {
				if base {
					return path.Base(f.path)
				}
				return f.path
			}
		}
		panic("no edited file about " + subj)
	}
	return []string{
		"the deploy leaks memory with Terraform on ARM runners",
		"the billing report double-counts for large tenants",
		"the login hangs behind the proxy with chi",
		"the scheduler skips at midnight UTC with cron",
		"the deploy leaks memory with Terraform on ARM runners in " + name("deploy", true),
		"the session cache hangs on cold start with Redis, see " + name("session", false),
	}
}

// filesNamed reports whether prompt i of anchorPrompts names a file.
func filesNamed(i int) bool { return i%6 >= 4 }

func copyTree(t *testing.T, from, to string) {
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

// commitStore commits the store alone (the tree's edits stay uncommitted).
func commitStore(t *testing.T, root string) {
	gitRun(t, root, 0, "add", "--", ".lore")
	gitRun(t, root, 0, "commit", "-q", "-m", "store")
	packObjects(t, root)
}

// sameButAnchors checks that two generated stores hold the same records
// but for their anchors.
func sameButAnchors(t *testing.T, a, b string) {
	n := 0
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		dir, name := filepath.Split(rel)
		if !isShardDir(dir) || !(strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".toml")) {
			return nil
		}
		da, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		db, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			return err
		}
		ra, _, err := kinds.ParseShard(rel, da)
		if err != nil {
			return err
		}
		rb, _, err := kinds.ParseShard(rel, db)
		if err != nil {
			return err
		}
		if len(ra) != len(rb) {
			return fmt.Errorf("%s: %d records, and %d with anchors", rel, len(ra), len(rb))
		}
		for i := range ra {
			ra[i].Source, rb[i].Source = record.Pos{}, record.Pos{}
			rb[i].Anchors = nil
			ma, _ := ra[i].Marshal()
			mb, _ := rb[i].Marshal()
			if !bytes.Equal(ma, mb) {
				return fmt.Errorf("%s: record %d differs beyond its anchors:\n%s\n%s", rel, i, ma, mb)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("sameButAnchors: no records compared")
	}
}

var injectedCount = regexp.MustCompile(`auto-injected, (\d+) item`)

// injected is how many records a prompt hook's output injects.
func injected(out []byte) int {
	m := injectedCount.FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

var staleSummary = regexp.MustCompile(`(\d+) of (\d+) anchored records`)

// staleCount is what `lore stale` says of the store: "N of M anchored
// records have code that moved on".
func staleCount(t *testing.T, bin, root string) string {
	r := runner{t: t, bin: bin, dir: root}
	r.run(nil, "stale")
	m := staleSummary.FindSubmatch(r.out)
	if m == nil {
		return "?"
	}
	a, _ := strconv.Atoi(string(m[1]))
	b, _ := strconv.Atoi(string(m[2]))
	return fmt.Sprintf("%s, of which %s stale", commas(b), commas(a))
}

// nullSeries times the command with its standard output on /dev/null
// (as `lore stale --json >/dev/null`), after a warm-up.
func (s *scale) nullSeries(dir string, args ...string) *sample {
	warm, _ := s.launchNull(dir, args...)
	r := &sample{}
	for range s.runsFor(warm) {
		d, kb := s.launchNull(dir, args...)
		r.add(d, kb, 0)
	}
	return r
}

// launchNull runs the command once through the launcher with stdout on
// /dev/null and returns its wall time and peak RSS (KB).
func (s *scale) launchNull(dir string, args ...string) (time.Duration, int64) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	defer null.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		s.t.Fatal(err)
	}
	defer pr.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(s.launcher, append([]string{s.bin}, args...)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = null, &stderr
	cmd.ExtraFiles = []*os.File{pw}
	err = cmd.Run()
	pw.Close()
	var ns, kb int64
	if _, serr := fmt.Fscan(pr, &ns, &kb); serr != nil || err != nil {
		s.t.Fatalf("%v: %v, %v\n%s", args, err, serr, stderr.Bytes())
	}
	return time.Duration(ns), kb
}

func medianF(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}
