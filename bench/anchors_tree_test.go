//go:build unix

package bench

import (
	"bytes"
	"fmt"
	"lore/internal/benchstore"
	"lore/kinds"
	"lore/record"
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
)

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
