package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// version is lore's version as the build recorded it.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return versionOf(bi)
}

// versionOf is a release's module version (v1.2.3, and "dirty" if built
// from a modified checkout); anything else is "(devel)" with the short
// commit, "dirty" and the Go it was built with: (devel) 5c8ab30 dirty,
// built with go1.26.8. A pseudo-version (v0.0.0-20260101000000-5c8ab30…,
// which go build stamps on an untagged commit) is a devel build.
func versionOf(bi *debug.BuildInfo) string {
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := strings.TrimSuffix(bi.Main.Version, "+dirty")
	dirty = dirty || v != bi.Main.Version
	var parts []string
	if v != "" && v != "(devel)" && !isPseudoVersion(v) {
		parts = append(parts, v)
		if dirty {
			parts = append(parts, "dirty")
		}
		return strings.Join(parts, " ")
	}
	parts = append(parts, "(devel)")
	if rev != "" {
		parts = append(parts, rev[:min(len(rev), 7)])
	}
	if dirty {
		parts = append(parts, "dirty")
	}
	out := strings.Join(parts, " ")
	if bi.GoVersion != "" {
		out += ", built with " + bi.GoVersion
	}
	return out
}

// isPseudoVersion reports a Go pseudo-version, which ends in a UTC time
// and twelve hex digits of the commit: v0.0.0-20260101000000-5c8ab30…,
// v1.2.4-0.20260101000000-5c8ab30…
func isPseudoVersion(v string) bool {
	v = strings.TrimSuffix(v, "+incompatible")
	i := strings.LastIndexByte(v, '-')
	if i < 0 {
		return false
	}
	j := strings.LastIndexAny(v[:i], "-.")
	stamp, hash := v[j+1:i], v[i+1:]
	return j >= 0 && len(stamp) == 14 && strings.Trim(stamp, "0123456789") == "" &&
		len(hash) == 12 && strings.Trim(hash, "0123456789abcdef") == ""
}

const versionHelp = `Usage: lore version

Print lore's version: a release's version (v1.2.3), or for a build from a
checkout "(devel)", the commit, "dirty" if it had changes, and the Go
that built it.`

func cmdVersion(_ context.Context, e *env, args []string) error {
	fs := newFlags("version")
	if err := e.parse(fs, versionHelp, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(helpHint("version"), "version takes no arguments")
	}
	fmt.Fprintln(e.stdout, "lore", version())
	return nil
}
