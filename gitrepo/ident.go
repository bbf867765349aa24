package gitrepo

import (
	"cmp"
	"context"
	"strconv"
	"strings"
)

// The author lore stamps records with is the one git would commit with
// (git var GIT_AUTHOR_IDENT). As cleanStatus does for status, lore reads
// the common case itself and asks git on any doubt: the config files git
// reads (readConfigs) answer when none of them includes another, sets a
// worktree's own config, or fails to decode, and no -c option or
// GIT_CONFIG_COUNT variable can change the identity; otherwise git var
// does, one process in a capture. Per field, GIT_AUTHOR_NAME over
// author.name over user.name, and GIT_AUTHOR_EMAIL over author.email over
// user.email over EMAIL.

// authorOf is the author git would commit with in r; environment
// variables come from getenv.
func authorOf(r *Repo, getenv func(string) string) string {
	name, email, ok := configAuthor(r, getenv)
	if !ok {
		if a, ok := gitAuthor(r.Root); ok {
			return a
		}
	}
	return formatAuthor(name, email)
}

// configAuthor is the author's name and email as lore reads them, field
// by field; ok is false when the config holds what lore does not follow,
// and git is to be asked (what lore read stands if git does not answer).
func configAuthor(r *Repo, getenv func(string) string) (name, email string, ok bool) {
	name, email = envVar(getenv, "GIT_AUTHOR_NAME"), envVar(getenv, "GIT_AUTHOR_EMAIL")
	if name != "" && email != "" {
		return name, email, true
	}
	// What is read is the answer too when git does not give one.
	configs, ok := readConfigs(r, getenv)
	ok = ok && envVar(getenv, "GIT_CONFIG_COUNT") == "" && !identityParameters(envVar(getenv, "GIT_CONFIG_PARAMETERS"))
	var authorName, authorEmail, userName, userEmail string
	mailGiven := false // some *.email is set, even empty: git then does not read EMAIL
	for _, c := range configs {
		if c.HasSection("include") || c.HasSection("includeIf") || c.Section("extensions").HasOption("worktreeConfig") {
			ok = false
		}
		author, user := c.Section("author"), c.Section("user")
		authorName, userName = cmp.Or(author.Option("name"), authorName), cmp.Or(user.Option("name"), userName)
		authorEmail, userEmail = cmp.Or(author.Option("email"), authorEmail), cmp.Or(user.Option("email"), userEmail)
		mailGiven = mailGiven || author.HasOption("email") || user.HasOption("email") || c.Section("committer").HasOption("email")
	}
	name = cmp.Or(name, authorName, userName)
	email = cmp.Or(email, authorEmail, userEmail)
	if email == "" && !mailGiven {
		email = envVar(getenv, "EMAIL")
	}
	return name, email, ok
}

// identityParameters reports git -c options (as git passes them on to
// what it runs, lore in a git hook) that may set the identity.
func identityParameters(p string) bool {
	p = strings.ToLower(p)
	return strings.Contains(p, "user.") || strings.Contains(p, "author.") || strings.Contains(p, "include")
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
