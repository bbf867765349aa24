package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// checkAttributes reports lore's .gitattributes and .gitignore where they
// lack lore's lines and, with fix, writes them, keeping the file's own.
func (s *Store) checkAttributes(fix bool) []Problem {
	var probs []Problem
	if p, ok := s.checkGitattributes(fix); ok {
		probs = append(probs, p)
	}
	path := filepath.Join(s.Dir, ".gitignore")
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), ".local/") {
		p := Problem{File: s.Rel(path), Kind: "attributes", Fixable: true,
			Message: fmt.Sprintf("missing lore's %q line", ".local/")}
		if fix {
			p.Fixed = WriteAtomic(path, []byte(keepOwn(data, err)+gitignore)) == nil
		}
		return append(probs, p)
	}
	// A .gitignore from before lore ignored its temporary files: a note,
	// not a failure, for every store made before.
	if !strings.Contains(string(data), ".tmp-*") {
		p := Problem{File: s.Rel(path), Kind: "attributes", Fixable: true, Note: true,
			Message: `missing lore's ".tmp-*" line: a copy of a shard an interrupted write leaves could be committed`}
		if fix {
			p.Fixed = WriteAtomic(path, []byte(keepOwn(data, nil)+ignoreTemp)) == nil
		}
		probs = append(probs, p)
	}
	return probs
}

// keepOwn is a file's own lines, to write lore's after: none when it
// could not be read.
func keepOwn(data []byte, err error) string {
	if err != nil || len(data) == 0 {
		return ""
	}
	return strings.TrimRight(string(data), "\n") + "\n"
}

// checkGitattributes reports the attributes lore's files are not given
// by .lore/.gitattributes: the whole file missing, or lore's lines, or the
// -filter and diff a store made before lore wrote them lacks (a
// repository's *.jsonl filter=lfs then keeps its records in Git LFS, and
// a merge of two pointers loses both sides). With fix, lore's old lines
// are replaced and missing ones added after the file's own.
func (s *Store) checkGitattributes(fix bool) (Problem, bool) {
	path := filepath.Join(s.Dir, ".gitattributes")
	data, err := os.ReadFile(path)
	missing := missingAttrs(string(data))
	if err == nil && len(missing) == 0 {
		return Problem{}, false
	}
	p := Problem{File: s.Rel(path), Kind: "attributes", Fixable: true}
	switch {
	case err != nil || !strings.Contains(string(data), "merge=union"):
		p.Message = fmt.Sprintf("missing lore's %q line", "merge=union")
	default:
		p.Message = "missing lore's " + strings.Join(missing, " and ") +
			": a filter the repository sets for these files (Git LFS's *.jsonl filter=lfs) would keep pointers in git instead of records, and a merge of two pointers loses both sides' records"
	}
	if !fix {
		return p, true
	}
	p.Fixed = WriteAtomic(path, []byte(fixedAttributes(string(data), err))) == nil
	if p.Fixed && err == nil {
		p.Message += "; written: commit it, after git add --renormalize " + s.Rel(s.Dir) + " if git kept shards through a filter"
	}
	return p, true
}

// loreAttrs are the attributes lore's .gitattributes gives its files.
var loreAttrs = []struct{ pattern, attrs string }{{"*.jsonl", jsonlAttrs}, {"*.toml", tomlAttrs}}

// missingAttrs lists, as "pattern attrs", what lore's attributes a
// .gitattributes text does not give: each attribute as the last line for
// that pattern leaves it, as git reads the lines.
func missingAttrs(text string) []string {
	state := map[string]map[string]string{} // pattern: attribute name: its setting
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if state[f[0]] == nil {
			state[f[0]] = map[string]string{}
		}
		for _, a := range f[1:] {
			state[f[0]][attrName(a)] = a
		}
	}
	var out []string
	for _, la := range loreAttrs {
		var lack []string
		for _, a := range strings.Fields(la.attrs) {
			if state[la.pattern][attrName(a)] != a {
				lack = append(lack, a)
			}
		}
		if len(lack) > 0 {
			out = append(out, fmt.Sprintf("%q", la.pattern+" "+strings.Join(lack, " ")))
		}
	}
	return out
}

// attrName is the attribute an attribute setting is about: "filter" for
// filter=lfs, -filter and !filter.
func attrName(a string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-!"), "=")
	return name
}

// fixedAttributes is a .gitattributes text with lore's lines: its old
// ones replaced by the current, and the rest of lore's added after the
// file's own lines (later lines win in git).
func fixedAttributes(text string, readErr error) string {
	if readErr != nil {
		return gitattributes
	}
	var lines []string
	replaced := false
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if oldAttrLines[strings.TrimSpace(l)] {
			if !replaced {
				lines = append(lines, strings.Split(strings.TrimRight(gitattributes, "\n"), "\n")...)
				replaced = true
			}
			continue
		}
		lines = append(lines, l)
	}
	out := strings.Join(lines, "\n") + "\n"
	if missingAttrs(out) == nil {
		return out
	}
	if !strings.Contains(out, attrsComment) {
		out += attrsComment
	}
	for _, la := range loreAttrs {
		out += la.pattern + " " + la.attrs + "\n"
	}
	return out
}

// walkStore walks the store for checkTempFiles; a variable for tests (a
// directory root cannot read).
var walkStore = filepath.WalkDir

// checkTempFiles reports temporary files left by interrupted writes, and
// files named like shards that are not files.
func (s *Store) checkTempFiles(fix bool) ([]Problem, error) {
	var probs []Problem
	local := filepath.Join(s.Dir, LocalDir) + string(filepath.Separator)
	err := walkStore(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil && strings.HasPrefix(p, local) {
			// Another user's in a shared checkout (the index another lore
			// version keeps, under a private umask): not this one's to check.
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(d.Name()); (ext == ".jsonl" || ext == ".toml") && !IsRegular(p, d) {
			probs = append(probs, Problem{File: s.Rel(p), Kind: "not-a-file",
				Message: "named like a shard but not a regular file (a FIFO, a device or a dangling link): lore skips it; remove it"})
			return nil
		}
		if !strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		info, err := d.Info()
		if err != nil || time.Since(info.ModTime()) < tempAge {
			return nil
		}
		pr := Problem{File: s.Rel(p), Kind: "temp-file", Fixable: true, Message: "temporary file left by an interrupted write"}
		if fix {
			pr.Fixed = os.Remove(p) == nil
		}
		probs = append(probs, pr)
		return nil
	})
	return probs, err
}
