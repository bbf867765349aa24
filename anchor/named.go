package anchor

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"lore/record"
)

// The rule for anchors a capture does not ask for, kept conservative: a
// word of the record's text that looks like a file (it has a slash, or a
// name with an extension such as invoice.go), is anchored when git tracks
// exactly that path, relative to the repository's root, or, for a bare
// file name, when exactly one tracked file has that name. Untracked and
// ignored files, directories, URLs and names that match several files are
// left alone; at most maxNamed anchors are made this way.
const maxNamed = 5

// Named anchors the tracked files text names (see the rule above) at
// commit head; it returns nothing rather than fail, as nothing asked for
// these.
func (g Repo) Named(ctx context.Context, text, head string) []record.Anchor {
	words := PathWords(text)
	if len(words) == 0 {
		return nil
	}
	args := []string{"ls-files", "--stage", "-z", "--"}
	for _, w := range words {
		if strings.Contains(w, "/") {
			args = append(args, ":(literal)"+w)
		} else {
			args = append(args, ":(glob)**/"+globEscape(w))
		}
	}
	out, err := g.git(ctx, "", args...)
	if err != nil {
		return nil
	}
	// Files only, in git's index and in the working tree: a symbolic
	// link's content is where it leads (hash-object follows it, perhaps
	// out of the repository), and a submodule is no file. (A conflicted
	// file is listed once per stage.)
	var tracked []string
	for _, e := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if !ok || !strings.HasPrefix(meta, "100644 ") && !strings.HasPrefix(meta, "100755 ") || len(tracked) > 0 && tracked[len(tracked)-1] == p {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(g.Root, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
			tracked = append(tracked, p)
		}
	}
	var paths []string
	for _, w := range words {
		var match []string
		for _, p := range tracked {
			if p == w || !strings.Contains(w, "/") && path.Base(p) == w {
				match = append(match, p)
			}
		}
		if len(match) == 1 && !slices.Contains(paths, match[0]) {
			paths = append(paths, match[0])
		}
		if len(paths) == maxNamed {
			break
		}
	}
	ids, err := g.hashFiles(ctx, paths, true)
	if err != nil {
		return nil
	}
	anchors := make([]record.Anchor, len(paths))
	for i, p := range paths {
		anchors[i] = record.Anchor{Path: p, Blob: ids[i], Commit: head}
	}
	return anchors
}

// PathWords are the words of text that look like files: trimmed of the
// quotes and punctuation around them (full-width ones too: 「服务/配置.go」，),
// with a slash or an extension, and clean relative paths.
func PathWords(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool {
			return strings.ContainsRune("\"'`()[]{}<>,;:!?*", r) || r >= utf8.RuneSelf && unicode.IsPunct(r)
		})
		w = strings.TrimSuffix(strings.TrimRight(w, "."), "/")
		w = strings.TrimPrefix(w, "./")
		if w == "" || strings.Contains(w, "://") || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "~") {
			continue
		}
		if i := strings.IndexAny(w, ":#"); i >= 0 { // invoice.go:42, file.go#L10
			w = w[:i]
		}
		if !record.CleanRepoPath(w) || !fileLike(w) || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// fileLike: a slash inside, or a base name with a short alphanumeric
// extension after a non-empty stem (not a version like 1.2 nor "e.g").
func fileLike(w string) bool {
	base := path.Base(w)
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 || len(base)-dot > 11 {
		return strings.Contains(w, "/") && hasLetter(base)
	}
	ext := base[dot+1:]
	return hasLetter(ext) && strings.Trim(ext, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == "" &&
		hasLetter(base[:dot]) && base != "e.g" && base != "i.e"
}

// hasLetter reports a letter of any script: 服务/配置.go names a file as
// service/config.go does.
func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}
