package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// realStatus is git status --porcelain=v2 -z --branch --no-renames
// --untracked-files=all in a repository with a file staged and changed
// again, a deleted file and an untracked one in a directory with a space.
const realStatus = "# branch.oid 23c1cd54873ba32fe7f68d1d76c5d5802d8f77ef\x00# branch.head main\x00" +
	"1 MM N... 100644 100644 100644 78981922613b2afb6025042ff6bd878ac1994e85 422c2b7ab3b3c668038da977e4e93a5fc623169c a.go\x00" +
	"1 .D N... 100644 100644 000000 587be6b4c3f93f93c489c0111bba5596147a26cb 587be6b4c3f93f93c489c0111bba5596147a26cb gone.txt\x00" +
	"? new dir/b c.txt\x00"

// statusEntry is one path's entry in porcelain v2, as git writes it: an
// ordinary change, an unmerged path or an untracked file, by i.
func statusEntry(i int, path string) (entry, change string) {
	const h = "587be6b4c3f93f93c489c0111bba5596147a26cb"
	xys := []string{".M", "M.", "MM", "A.", ".D", "D.", "AM"}
	switch i % 3 {
	case 0:
		xy := xys[i%len(xys)]
		return "1 " + xy + " N... 100644 100644 100644 " + h + " " + h + " " + path, strings.ReplaceAll(xy, ".", " ") + " " + path
	case 1:
		return "u UU N... 100644 100644 100644 100644 " + h + " " + h + " " + h + " " + path, "UU " + path
	default:
		return "? " + path, "?? " + path
	}
}

// git status's output is read whatever it holds: any bytes give a status,
// never a panic, and every path it reports is the path field of one of the
// output's entries, in order. Output in git's own form (any branch name,
// any paths, which -z lets hold spaces, newlines and quotes) reads back
// exactly: the branch, HEAD, and each path as "XY path" with a two-letter
// XY, which is what repoState slices at 3.
func FuzzParseStatus(f *testing.F) {
	f.Add(realStatus, "main", "a.go\nnew dir/b c.txt\ngone.txt")
	f.Add("# branch.oid (initial)\x00# branch.head (detached)\x00", "(detached)", "")
	f.Add("1 M\x00u \x00? \x00# branch.oid\x001 .M N... 100644\x00"+realStatus[:40], "feature/x y", "odd\tname\n\"quoted\"\n# branch.head x\n1 .M")
	f.Add("2 R. N... 100644 100644 100644 h h R100 new\x00old\x00", "", "-\n ")
	f.Fuzz(func(t *testing.T, raw, branch, paths string) {
		st := parseStatus(raw)
		// The path field of each entry that names one, as porcelain v2
		// lays entries out.
		var fieldPaths []string
		for _, e := range strings.Split(raw, "\x00") {
			f1, f2 := strings.SplitN(e, " ", 9), strings.SplitN(e, " ", 11)
			switch {
			case strings.HasPrefix(e, "1 ") && len(f1) == 9:
				fieldPaths = append(fieldPaths, f1[8])
			case strings.HasPrefix(e, "u ") && len(f2) == 11:
				fieldPaths = append(fieldPaths, f2[10])
			case strings.HasPrefix(e, "? "):
				fieldPaths = append(fieldPaths, e[2:])
			}
		}
		if len(st.Changes) != len(fieldPaths) {
			t.Fatalf("%d changes %q from %d entries with a path %q", len(st.Changes), st.Changes, len(fieldPaths), fieldPaths)
		}
		for i, c := range st.Changes {
			if !strings.HasSuffix(c, " "+fieldPaths[i]) {
				t.Fatalf("change %q is not of path %q", c, fieldPaths[i])
			}
		}
		entries := strings.Split(raw, "\x00")
		if st.Head != "" && !slices.Contains(entries, "# branch.oid "+st.Head) {
			t.Fatalf("HEAD %q is not in %q", st.Head, raw)
		}
		if st.Branch != "" && st.Branch != "(detached HEAD)" && !slices.Contains(entries, "# branch.head "+st.Branch) {
			t.Fatalf("branch %q is not in %q", st.Branch, raw)
		}

		// git's own form: NUL never occurs in a branch name or a path.
		branch = strings.ReplaceAll(branch, "\x00", "")
		var out strings.Builder
		out.WriteString("# branch.oid 23c1cd54873ba32fe7f68d1d76c5d5802d8f77ef\x00# branch.head " + branch + "\x00")
		var want []string
		for i, p := range strings.Split(strings.ReplaceAll(paths, "\x00", ""), "\n") {
			e, c := statusEntry(i, p)
			out.WriteString(e + "\x00")
			want = append(want, c)
		}
		st = parseStatus(out.String())
		wantBranch := branch
		if branch == "(detached)" {
			wantBranch = "(detached HEAD)"
		}
		if st.Head != "23c1cd54873ba32fe7f68d1d76c5d5802d8f77ef" || st.Branch != wantBranch || !slices.Equal(st.Changes, want) {
			t.Fatalf("read %q as %+v; want branch %q, changes %q", out.String(), st, wantBranch, want)
		}
		for _, c := range st.Changes {
			if len(c) < 3 || c[2] != ' ' {
				t.Fatalf("change %q is not \"XY path\"", c)
			}
		}
	})
}

// realConfigList is git config --null --list --show-scope --show-origin in
// a fresh repository, with git-lfs set up by the user and two filter
// drivers in the repository's config, one of them named with dots and set
// without a value.
const realConfigList = "system\x00file:/etc/gitconfig\x00credential.https://source.developers.google.com.helper\ngcloud.sh\x00" +
	"global\x00file:/root/.gitconfig\x00user.name\nSeed cc013319 maintainers\x00" +
	"global\x00file:/root/.gitconfig\x00filter.lfs.clean\ngit-lfs clean -- %f\x00" +
	"global\x00file:/root/.gitconfig\x00filter.lfs.smudge\ngit-lfs smudge -- %f\x00" +
	"global\x00file:/root/.gitconfig\x00filter.lfs.process\ngit-lfs filter-process\x00" +
	"global\x00file:/root/.gitconfig\x00filter.lfs.required\ntrue\x00" +
	"local\x00file:.git/config\x00core.repositoryformatversion\n0\x00" +
	"local\x00file:.git/config\x00core.bare\nfalse\x00" +
	"local\x00file:.git/config\x00filter.lfs.process\n/tmp/trap/process\x00" +
	"local\x00file:.git/config\x00filter.trap.clean\n/tmp/trap/clean\x00" +
	"local\x00file:.git/config\x00filter.trap.required\ntrue\x00" +
	"local\x00file:.git/included.cfg\x00filter.Proc.Trap.process\n/tmp/trap/process\x00" +
	"local\x00file:.git/config\x00filter.Proc.Trap.required\x00"

// git config's list is read whatever it holds, never a panic: it is split
// into entries of three NUL-ended fields (the last one's NUL may be
// missing), every field kept, a key's value after its first newline, so
// that writing the entries back out gives the input up to its last whole
// entry.
func FuzzParseConfigList(f *testing.F) {
	f.Add(realConfigList)
	f.Add(realConfigList[:len(realConfigList)-9])
	f.Add("local\x00file:.git/config\x00filter.x\ny\nz.clean\n\x00\x00\x00\x00")
	f.Add("")
	f.Fuzz(func(t *testing.T, out string) {
		es := parseConfigList(out)
		fields := strings.Split(out, "\x00")
		if len(es) != len(fields)/3 {
			t.Fatalf("%d entries from %d fields", len(es), len(fields))
		}
		var back strings.Builder
		for _, e := range es {
			if strings.Contains(e.key, "\n") {
				t.Fatalf("key %q holds a newline", e.key)
			}
			back.WriteString(e.scope + "\x00" + e.origin + "\x00" + e.key)
			if e.value != nil {
				back.WriteString("\n" + *e.value)
			}
			back.WriteString("\x00")
		}
		want := ""
		if len(es) > 0 {
			want = strings.Join(fields[:3*len(es)], "\x00") + "\x00"
		}
		if back.String() != want || !strings.HasPrefix(out+"\x00", want) {
			t.Fatalf("entries written back:\n%q\nare not the start of\n%q", back.String(), out)
		}
	})
}

// Whatever the repository's config holds, no filter driver it sets can
// run: every filter key it sets (clean, smudge, process, required) is set
// again by an override, which git reads last, to the user's own value or
// to none ("" for a command, false for required), and only drivers the
// repository sets are touched. A driver whose name cannot be written in a
// -c argument is refused instead.
func FuzzFilterOverrides(f *testing.F) {
	f.Add(realConfigList)
	f.Add("local\x00file:.git/config\x00filter.a=b.clean\nx\x00")
	f.Add("worktree\x00file:.git/config.worktree\x00filter.x.smudge\nevil\x00command\x00command line:\x00filter.x.smudge\x00")
	f.Add("global\x00file:~/.gitconfig\x00filter..clean\n\x00local\x00file:.git/config\x00filter..clean\nx\x00local\x00file:.git/config\x00filter.clean\nx\x00")
	f.Fuzz(func(t *testing.T, out string) {
		entries := parseConfigList(out)
		repoVars, user := filterSettings(entries)
		type driverVar struct{ name, v string }
		repo := map[driverVar]bool{}
		badName := false
		for name, vars := range repoVars {
			for v := range vars {
				repo[driverVar{name, v}] = true
			}
			badName = badName || strings.ContainsAny(name, "=\n")
		}
		args, err := filterOverrides(entries)
		if err != nil || badName {
			if err == nil || !badName {
				t.Fatalf("refused %v, with a driver name -c cannot hold: %v", err, badName)
			}
			return
		}
		if len(args)%2 != 0 {
			t.Fatalf("odd arguments %q", args)
		}
		set := map[string]*string{} // key: the value given, nil for none
		repoNames := map[string]bool{}
		for dv := range repo {
			repoNames[dv.name] = true
		}
		for i := 0; i < len(args); i += 2 {
			if args[i] != "-c" {
				t.Fatalf("argument %d is %q, not -c: %q", i, args[i], args)
			}
			key, val, hasVal := strings.Cut(args[i+1], "=")
			name, v, ok := filterKey(key)
			if !ok || !repoNames[name] {
				t.Fatalf("override %q is not a filter key of a driver the repository sets", args[i+1])
			}
			if _, dup := set[key]; dup {
				t.Fatalf("%s set twice: %q", key, args)
			}
			if hasVal {
				set[key] = &val
			} else {
				set[key] = nil
			}
			none := ""
			if v == "required" {
				none = "false"
			}
			uv, mine := user[name+"."+v]
			switch {
			case hasVal && val == none:
			case mine && (uv == nil) == !hasVal && (uv == nil || *uv == val):
			default:
				t.Fatalf("%s is set to %q, neither none nor the user's value (%v)", key, args[i+1], uv)
			}
		}
		for dv := range repo {
			if _, ok := set["filter."+dv.name+"."+dv.v]; !ok {
				t.Fatalf("the repository sets filter.%s.%s and no override undoes it: %q", dv.name, dv.v, args)
			}
			if _, userProcess := user[dv.name+".process"]; dv.v == "process" && !userProcess {
				if v := set["filter."+dv.name+".required"]; v == nil || *v != "false" {
					t.Fatalf("driver %q loses its process and is still required: %q", dv.name, args)
				}
			}
		}
	})
}

func isASCII(s string) bool { return !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) }

// A hostile repository's .git/HEAD gives a Head or empty parts, never a
// panic. What is read is what git would take: a commit is 40 hex digits
// (the store names shards after its first 7) read from HEAD or from the
// ref HEAD names inside the git directory, never from a file outside it;
// a branch is named in HEAD, and is a ref name git allows (no control
// characters, which lore status would print to the terminal).
func FuzzReadHead(f *testing.F) {
	const (
		mainHash   = "23c1cd54873ba32fe7f68d1d76c5d5802d8f77ef"
		packedHash = "587be6b4c3f93f93c489c0111bba5596147a26cb"
		trapHash   = "dddddddddddddddddddddddddddddddddddddddd"
	)
	root := f.TempDir()
	repo := filepath.Join(root, "repo")
	files := map[string]string{
		"repo/.git/refs/heads/main": mainHash + "\n",
		"repo/.git/packed-refs":     "# pack-refs with: peeled fully-peeled sorted\n" + packedHash + " refs/heads/packed\n",
		"repo/.git/config":          "[core]\n\trepositoryformatversion = 0\n",
		"outside":                   trapHash + "\n",
		"repo/.git/outside":         trapHash + "\n",
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	vars := map[string]string{"GIT_AUTHOR_NAME": "Fuzz", "GIT_AUTHOR_EMAIL": "fuzz@example.com", "GIT_CEILING_DIRECTORIES": root}
	getenv := func(k string) string { return vars[k] }
	hex40 := regexp.MustCompile(`^[0-9a-f]{40}$`)

	f.Add([]byte("ref: refs/heads/main\n"))
	f.Add([]byte(mainHash + "\n"))
	f.Add([]byte("ref: refs/heads/packed\n"))
	f.Add([]byte("ref: refs/heads/unborn\n"))
	f.Add([]byte("ref: ../../outside\n"))
	f.Add([]byte("ref: refs/heads/../../outside"))
	f.Add([]byte("ref: outside\n"))
	f.Add([]byte("ref: HEAD\n"))
	f.Add([]byte("ref:refs/heads/main\r\n"))
	f.Add([]byte("23C1CD54873BA32FE7F68D1D76C5D580\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, head []byte) {
		if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), head, 0o644); err != nil {
			t.Fatal(err)
		}
		h := ReadHead(repo, getenv)
		if h.Author != "Fuzz <fuzz@example.com>" {
			t.Fatalf("author %q", h.Author)
		}
		if h.Commit != "" && !hex40.MatchString(h.Commit) {
			t.Fatalf("HEAD %q gave commit %q", head, h.Commit)
		}
		if h.Commit == trapHash {
			t.Fatalf("HEAD %q gave the commit in a file outside the refs", head)
		}
		content := strings.TrimSpace(string(head))
		if h.Branch != "" {
			// (Short reads the name rune by rune: a byte not UTF-8 comes
			// out as U+FFFD.)
			if !strings.HasPrefix(content, "ref: ") || isASCII(content) && !strings.Contains(content, h.Branch) {
				t.Fatalf("HEAD %q gave branch %q", head, h.Branch)
			}
			if strings.ContainsFunc(h.Branch, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("HEAD %q gave branch %q, with a control character", head, h.Branch)
			}
		}
		switch content {
		case "ref: refs/heads/main":
			if h.Branch != "main" || h.Commit != mainHash {
				t.Fatalf("HEAD on main read as %+v", h)
			}
		case "ref: refs/heads/packed":
			if h.Branch != "packed" || h.Commit != packedHash {
				t.Fatalf("HEAD on a packed branch read as %+v", h)
			}
		case mainHash:
			if h.Branch != "" || h.Commit != mainHash {
				t.Fatalf("detached HEAD read as %+v", h)
			}
		}
	})
}

// encodeIndex writes entries as git lays out an index of version 2 or 4
// (paths sorted, as git keeps them), with each entry's size, mtime and
// inode its position, for FuzzParseIndex.
func encodeIndex(version uint32, paths []string) []byte {
	be := binary.BigEndian
	out := be.AppendUint32([]byte("DIRC"), version)
	out = be.AppendUint32(out, uint32(len(paths)))
	prev := ""
	for i, p := range paths {
		start := len(out)
		for _, v := range []uint32{0, 0, uint32(i), uint32(i) + 1, 0, uint32(i) + 2, 0o100644, 0, 0, uint32(i) + 3} {
			out = be.AppendUint32(out, v)
		}
		out = append(out, make([]byte, 20)...)
		out = be.AppendUint16(out, uint16(min(len(p), 0xfff)))
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(p) && prev[common] == p[common] {
				common++
			}
			out = binary.AppendUvarint(out, uint64(len(prev)-common))
			out = append(append(out, p[common:]...), 0)
		} else {
			out = append(out, p...)
			out = append(out, make([]byte, 8-(len(out)-start)%8)...)
		}
		prev = p
	}
	return append(out, make([]byte, 20)...) // the checksum, unread
}

// An index file is read whatever it holds: any bytes give entries or an
// error, never a panic. An index as git lays it out, in version 2 or 4,
// reads back entry for entry: those under the prefix, by their paths
// below it, and no other.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(nil), ".lore/decisions/a.jsonl\n.lore/patterns/b c.toml\nREADME.md", uint8(2))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"), ".lore/x\n.lore/xy\n.lore/x/y", uint8(4))
	f.Add(encodeIndex(2, []string{".lore/a"}), "", uint8(3))
	f.Fuzz(func(t *testing.T, raw []byte, paths string, version uint8) {
		parseIndex(raw, 20, ".lore/") // any bytes: an error or entries, never a panic
		v := uint32(2)
		if version%2 == 0 {
			v = 4
		}
		var names []string
		for _, p := range strings.Split(paths, "\n") {
			if p != "" && !strings.Contains(p, "\x00") && len(p) < 0xfff && !slices.Contains(names, p) {
				names = append(names, p)
			}
		}
		slices.Sort(names)
		g, err := parseIndex(encodeIndex(v, names), 20, ".lore/")
		if err != nil {
			t.Fatalf("version %d index of %q: %v", v, names, err)
		}
		want := 0
		for i, p := range names {
			if !strings.HasPrefix(p, ".lore/") {
				continue
			}
			want++
			e, ok := g.Entries[strings.TrimPrefix(p, ".lore/")]
			if !ok || e.MtimeSec != uint32(i) || e.MtimeNsec != uint32(i)+1 || e.Ino != uint32(i)+2 || e.Size != uint32(i)+3 {
				t.Fatalf("version %d: %q read as %+v (present %v), want position %d", v, p, e, ok, i)
			}
		}
		if len(g.Entries) != want {
			t.Fatalf("version %d: %d entries read, want %d", v, len(g.Entries), want)
		}
		// Asked for every other path below the prefix (and one that is
		// not there), it reads those entries alone, as they are.
		asked := map[string]bool{"not/there": true}
		for i, p := range names {
			if rel, ok := strings.CutPrefix(p, ".lore/"); ok && i%2 == 0 {
				asked[rel] = true
			}
		}
		some, err := parseIndexOf(encodeIndex(v, names), 20, ".lore/", asked)
		if err != nil {
			t.Fatal(err)
		}
		for rel, e := range g.Entries {
			if got, ok := some.Entries[rel]; ok != asked[rel] || ok && got != e {
				t.Fatalf("version %d: %q asked %v, read %+v (present %v), want %+v", v, rel, asked[rel], got, ok, e)
			}
		}
		if len(some.Entries) > len(g.Entries) {
			t.Fatalf("version %d: %d entries read of %d", v, len(some.Entries), len(g.Entries))
		}
	})
}

// A commit's compressed form, loose or packed, gives its tree or nothing,
// never a panic; a well-formed one always gives its tree.
func FuzzCommitTreeLine(f *testing.F) {
	tree := "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	f.Add([]byte("commit 60\x00tree "+tree+"\nauthor a <a@b> 1 +0000\n"), true)
	f.Add([]byte("tree "+tree+"\nparent x\n"), false)
	f.Add([]byte("commit 5\x00tree \n"), true)
	f.Add([]byte("tree A000000000000000000000000000000000000000\n"), false) // git writes lower case
	f.Fuzz(func(t *testing.T, text []byte, loose bool) {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		_, _ = w.Write(text)
		_ = w.Close()
		for _, in := range [][]byte{text, z.Bytes()} {
			got, ok := treeLine(bytes.NewReader(in), loose, 20)
			if ok && (len(got) != 40 || strings.Trim(got, "0123456789abcdef") != "") {
				t.Fatalf("tree %q from %q", got, in)
			}
		}
		body := text
		if loose {
			_, body, _ = bytes.Cut(text, []byte{0})
		}
		if want, ok := bytes.CutPrefix(body, []byte("tree "+tree+"\n")); ok && (!loose || bytes.HasPrefix(text, []byte("commit "))) {
			if got, ok := treeLine(bytes.NewReader(z.Bytes()), loose, 20); !ok || got != tree {
				t.Fatalf("tree of %q: %q, %v (rest %q)", text, got, ok, want)
			}
		}
	})
}

// Any bytes as a pack index: an offset or nothing, never a panic or a
// huge allocation.
func FuzzPackOffset(f *testing.F) {
	head := append([]byte("\xfftOc\x00\x00\x00\x02"), make([]byte, 1024)...)
	f.Add(head, byte(0))
	f.Add(append(bytes.Repeat([]byte{0xff}, 1032), make([]byte, 64)...), byte(0xab))
	f.Fuzz(func(t *testing.T, idx []byte, first byte) {
		path := filepath.Join(t.TempDir(), "p.idx")
		if err := os.WriteFile(path, idx, 0o644); err != nil {
			t.Fatal(err)
		}
		id := make([]byte, 20)
		id[0] = first
		packOffset(path, id)
	})
}
