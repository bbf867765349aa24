package gitrepo

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The author lore stamps records with is the one git would commit with
// (git var GIT_AUTHOR_IDENT), read without running git: ident.c's rules
// over the config files git reads, includes followed. Per field,
// GIT_AUTHOR_NAME over author.name over user.name, and GIT_AUTHOR_EMAIL
// over author.email over user.email over EMAIL. Only where the config
// holds what lore does not evaluate (an includeIf condition other than
// gitdir, gitdir/i and onbranch, a bracket expression in one, a config
// line git rejects, -c options on git's command line) does it run git var,
// and then only if the file that condition includes sets an identity.

// maxIncludeDepth is git's MAX_INCLUDE_DEPTH.
const maxIncludeDepth = 10

// identity is what git's config says of the author, as ident.c reads it.
type identity struct {
	authorName, authorEmail, userName, userEmail string
	// mailGiven: user.email, author.email or committer.email is set,
	// even to nothing; git then does not read EMAIL.
	mailGiven bool
	// any: some identity variable is set (committer.* included).
	any bool
	// needGit: the config holds what lore does not evaluate; git var
	// knows.
	needGit bool
}

// identReader reads the identity from config files as git does.
type identReader struct {
	r              *Repo
	getenv         func(string) string
	branch         string // HEAD's branch for onbranch: "" when detached
	local          string // the repository's config file, where extensions are read
	id             identity
	depth          int
	probe          bool // every condition holds: does an include set anything?
	worktreeConfig bool
	gitdirs        []string // the git directory, resolved then as found: for gitdir conditions
}

// authorOf is the author git would commit with in r, HEAD being on
// branch ("" when detached). Environment variables come from getenv.
func authorOf(r *Repo, getenv func(string) string, branch string) string {
	name, email, needGit := configAuthor(r, getenv, branch)
	if needGit {
		if a, ok := gitAuthor(r.Root); ok {
			return a
		}
	}
	return formatAuthor(name, email)
}

// configAuthor is the author's name and email as lore reads them, field
// by field; needGit says the config holds what lore does not evaluate.
func configAuthor(r *Repo, getenv func(string) string, branch string) (name, email string, needGit bool) {
	name, email = envVar(getenv, "GIT_AUTHOR_NAME"), envVar(getenv, "GIT_AUTHOR_EMAIL")
	if name != "" && email != "" {
		return name, email, false
	}
	x := &identReader{r: r, getenv: getenv, branch: branch}
	x.readAll()
	if name == "" {
		name = cmp.Or(x.id.authorName, x.id.userName)
	}
	if email == "" {
		email = cmp.Or(x.id.authorEmail, x.id.userEmail)
	}
	if email == "" && !x.id.mailGiven {
		email = envVar(getenv, "EMAIL")
	}
	return name, email, x.id.needGit
}

// gitAuthor asks git for the author (git var GIT_AUTHOR_IDENT), without
// the date. ok is false when git does not answer: it refuses to commit
// without an identity.
func gitAuthor(dir string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	argv := append(append([]string{"-C", dir}, safeArgs...), "var", "GIT_AUTHOR_IDENT")
	out, err := runGit(ctx, argv, "var", "")
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(out, "\n")
	lt, gt := strings.IndexByte(line, '<'), strings.LastIndexByte(line, '>')
	if lt < 0 || gt < lt {
		return "", false
	}
	return formatAuthor(line[:lt], line[lt+1:gt]), true
}

// readAll reads git's config files in git's order: system, global,
// the repository's, its worktree's (extensions.worktreeConfig), then
// the variables GIT_CONFIG_COUNT gives.
func (x *identReader) readAll() {
	x.local = filepath.Join(x.r.CommonDir, "config")
	for _, f := range configFiles(x.r, x.getenv) {
		x.file(f)
	}
	if x.worktreeConfig {
		x.file(filepath.Join(x.r.GitDir, "config.worktree"))
	}
	if n := envVar(x.getenv, "GIT_CONFIG_COUNT"); n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count < 0 {
			x.id.needGit = true
		}
		for i := 0; i < count; i++ {
			key := envVar(x.getenv, "GIT_CONFIG_KEY_"+strconv.Itoa(i))
			name, ok := canonicalKey(key)
			if !ok {
				x.id.needGit = true
				break
			}
			x.set("", name, envVar(x.getenv, "GIT_CONFIG_VALUE_"+strconv.Itoa(i)), true)
		}
	}
	// git -c's options, as git passes them on to what it runs (lore
	// in a git hook): quoted as git quotes them, read by git alone.
	if p := strings.ToLower(envVar(x.getenv, "GIT_CONFIG_PARAMETERS")); strings.Contains(p, "user.") ||
		strings.Contains(p, "author.") || strings.Contains(p, "committer.") || strings.Contains(p, "include") {
		x.id.needGit = true
	}
}

// canonicalKey is a variable's name as git keeps it: the section and the
// key lower-cased, a subsection as given.
func canonicalKey(key string) (string, bool) {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 {
		return "", false
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:]), true
}

// file reads the config file at path: what its relative includes and
// "./" conditions are relative to (set has "" for the variables the
// environment gives). A missing file is none.
func (x *identReader) file(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			x.id.needGit = true
		}
		return
	}
	if !parseConfig(data, func(name, value string, set bool) { x.set(path, name, value, set) }) {
		x.id.needGit = true
	}
}

// set is one variable read from file, as git's config callback and
// ident.c's set_ident take it.
func (x *identReader) set(file, name, value string, set bool) {
	var field *string
	switch name {
	case "author.name":
		field = &x.id.authorName
	case "author.email":
		field, x.id.mailGiven = &x.id.authorEmail, true
	case "user.name":
		field = &x.id.userName
	case "user.email":
		field, x.id.mailGiven = &x.id.userEmail, true
	case "committer.email":
		x.id.mailGiven = true
		fallthrough
	case "committer.name":
		x.id.any = true
		if !set {
			x.id.needGit = true // git refuses a bare identity key
		}
		return
	case "extensions.worktreeconfig":
		if x.depth == 0 && file == x.local && !x.probe {
			on, ok := parseBool(value, set)
			x.worktreeConfig = on
			x.id.needGit = x.id.needGit || !ok
		}
		return
	case "include.path":
		x.include(file, value, set)
		return
	default:
		cond, ok := strings.CutPrefix(name, "includeif.")
		if cond, ok2 := strings.CutSuffix(cond, ".path"); ok && ok2 {
			x.includeIf(file, cond, value, set)
		}
		return
	}
	x.id.any = true
	if !set {
		x.id.needGit = true
		return
	}
	*field = value
}

// includeIf follows an includeIf.COND.path: the include, when its
// condition holds; when lore cannot tell, git is asked if the included
// file sets an identity (an include for another purpose costs nothing).
func (x *identReader) includeIf(file, cond, path string, set bool) {
	if x.probe {
		x.include(file, path, set)
		return
	}
	match, known := x.condition(file, cond)
	switch {
	case known && match:
		x.include(file, path, set)
	case !known:
		p := &identReader{r: x.r, getenv: x.getenv, probe: true, depth: x.depth}
		p.include(file, path, set)
		if p.id.any || p.id.needGit {
			x.id.needGit = true
		}
	}
}

// include reads the file an include names: "~/" is HOME, a relative path
// is relative to the including file's directory; a missing file is no
// error.
func (x *identReader) include(file, path string, set bool) {
	if !set {
		x.id.needGit = true // git refuses a bare include.path
		return
	}
	p, ok := x.expand(path, false)
	if !ok {
		x.id.needGit = true
		return
	}
	if !filepath.IsAbs(p) {
		if file == "" {
			x.id.needGit = true // git refuses a relative include from no file
			return
		}
		// Joined as git does (no cleaning of ".." before the links are
		// followed).
		p = file[:strings.LastIndexByte(file, os.PathSeparator)+1] + p
	}
	if x.depth >= maxIncludeDepth {
		x.id.needGit = true // git gives up: a cycle of includes
		return
	}
	x.depth++
	x.file(p)
	x.depth--
}

// condition evaluates an includeIf condition as git does (config.c's
// include_condition_is_true); known is false for one lore does not
// evaluate.
func (x *identReader) condition(file, cond string) (match, known bool) {
	if pat, ok := strings.CutPrefix(cond, "gitdir:"); ok {
		return x.gitdir(file, pat, false)
	}
	if pat, ok := strings.CutPrefix(cond, "gitdir/i:"); ok {
		return x.gitdir(file, pat, true)
	}
	if pat, ok := strings.CutPrefix(cond, "onbranch:"); ok {
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		m, ok := wildmatch(pat, x.branch, false)
		return m && x.branch != "", ok
	}
	return false, false // hasconfig:remote.*.url:, or one newer than lore
}

// gitdir is include_by_gitdir: the pattern, "~/" expanded (HOME resolved),
// "./" relative to the including file's resolved directory, else
// "**/"-prefixed unless absolute, "**" added after a final "/", matched
// against the git directory resolved, then as found.
func (x *identReader) gitdir(file, pat string, fold bool) (match, known bool) {
	pat, ok := x.expand(pat, true)
	if !ok {
		return false, false
	}
	prefix := 0
	switch {
	case strings.HasPrefix(pat, "./"):
		if file == "" {
			return false, false // git refuses "./" from no file
		}
		real, err := filepath.EvalSymlinks(file)
		if err != nil {
			return false, false
		}
		real, _ = filepath.Abs(real)
		dir := real[:strings.LastIndexByte(real, '/')]
		pat, prefix = dir+pat[1:], len(dir)+1
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	if x.gitdirs == nil {
		real, err := filepath.EvalSymlinks(x.r.GitDir)
		if err != nil {
			return false, false
		}
		x.gitdirs = []string{real, x.r.GitDir}
	}
	for _, text := range x.gitdirs {
		if prefix > 0 {
			// The prefix is matched literally: a wildcard in the
			// config file's own path is none.
			if len(text) < prefix || !fold && text[:prefix] != pat[:prefix] ||
				fold && !strings.EqualFold(text[:prefix], pat[:prefix]) {
				return false, true
			}
		}
		m, ok := wildmatch(pat[prefix:], text[prefix:], fold)
		if !ok {
			return false, false
		}
		if m {
			return true, true
		}
	}
	return false, true
}

// expand is git's interpolate_path: "~/" (or "~") is HOME, resolved for
// a condition (real); ok is false for what lore leaves to git ("~user/",
// "%(prefix)/", no HOME).
func (x *identReader) expand(p string, real bool) (string, bool) {
	if strings.HasPrefix(p, "%(prefix)/") {
		return "", false
	}
	if !strings.HasPrefix(p, "~") {
		return p, true
	}
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return "", false
	}
	home := envVar(x.getenv, "HOME")
	if home == "" {
		return "", false
	}
	if real {
		h, err := filepath.EvalSymlinks(home)
		if err != nil {
			return "", false
		}
		home, _ = filepath.Abs(h)
	}
	return home + p[1:], true
}

// parseBool is git_config_bool: ok is false where git dies.
func parseBool(v string, set bool) (on, ok bool) {
	if !set {
		return true, true
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	n, err := strconv.ParseInt(v, 0, 64)
	return n != 0, err == nil
}

// crud is what git strips from both ends of a name or an email (ident.c).
func crud(c byte) bool {
	return c <= 32 || strings.IndexByte(`,:;<>"\'.`, c) >= 0
}

// withoutCrud is git's strbuf_addstr_without_crud: the crud trimmed from
// both ends, and "<", ">" and newlines dropped.
func withoutCrud(s string) string {
	i, j := 0, len(s)
	for i < j && crud(s[i]) {
		i++
	}
	for j > i && crud(s[j-1]) {
		j--
	}
	b := make([]byte, 0, j-i)
	for ; i < j; i++ {
		if c := s[i]; c != '<' && c != '>' && c != '\n' {
			b = append(b, c)
		}
	}
	return string(b)
}
