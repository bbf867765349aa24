package hooks

import (
	"errors"
	"fmt"
	"lore/store"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"lore/internal/tomlerr"
)

// Codex keeps MCP servers in config.toml, a file people write by hand with
// comments. lore edits it as text, touching only its own [mcp_servers.lore]
// table (and any subtable of it), and checks that the result still parses,
// with lore's entry as meant and everything else as it was.

var loreTable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*"?lore"?\s*(\.[^\]]*)?\]\s*(#.*)?$`)
})
var anyTable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[`) })

// editCodexTOML sets lore's table to entry (nil: removes it).
func editCodexTOML(path string, entry *MCPEntry) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	cur, err := codexEntry(path, data)
	if err != nil {
		return false, fmt.Errorf("%v; fix or move it, lore has not changed it", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		switch {
		case loreTable().MatchString(l) && start < 0:
			start = i
		case start >= 0 && anyTable().MatchString(l) && !loreTable().MatchString(l):
			end = i
		}
		if start >= 0 && end < len(lines) {
			break
		}
	}
	if cur != nil && start < 0 {
		return false, fmt.Errorf("%s: mcp_servers.lore is written in a form lore does not edit (not as a [mcp_servers.lore] table); lore has not changed it", path)
	}
	var out string
	switch {
	case entry == nil && (start < 0 || cur == nil):
		// Nothing to remove: a [mcp_servers.lore] line with no entry
		// behind it is text inside a multi-line string.
		return false, nil
	case entry == nil:
		if start > 0 && end == len(lines) && strings.TrimSpace(lines[start-1]) == "" {
			start-- // the blank line install put before the table
		}
		// Comments just above the next table are that table's: a user's
		// section added after lore's keeps its heading.
		for end < len(lines) && end-1 > start && strings.HasPrefix(strings.TrimSpace(lines[end-1]), "#") {
			end--
		}
		out = strings.Join(lines[:start], "") + strings.Join(lines[end:], "")
	default:
		if cur != nil && cur.Command == entry.Command && strings.Join(cur.Args, "\x00") == strings.Join(entry.Args, "\x00") {
			return false, nil
		}
		var args []string
		for _, a := range entry.Args {
			args = append(args, strconv.Quote(a))
		}
		command, argList := "command = "+strconv.Quote(entry.Command)+"\n", "args = ["+strings.Join(args, ", ")+"]\n"
		table := "[mcp_servers.lore]\n" + command + argList
		if start >= 0 {
			out = strings.Join(lines[:start], "") + editTable(lines[start:end], command, argList) + strings.Join(lines[end:], "")
		} else {
			before := string(data)
			if before != "" && !strings.HasSuffix(before, "\n") {
				before += "\n"
			}
			if before != "" {
				before += "\n"
			}
			out = before + table
		}
	}
	after, err := codexEntry(path, []byte(out))
	if err != nil {
		return false, fmt.Errorf("%s: lore's edit would not parse (%v); lore has not changed it", path, err)
	}
	// The edit is text: check it reads back as what was meant. A command
	// TOML cannot hold as written (strconv.Quote's \xff is U+00FF in TOML)
	// or a table lore misplaced would otherwise pass for installed.
	if entry == nil && after != nil || entry != nil && (after == nil || after.Command != entry.Command || !slices.Equal(after.Args, entry.Args)) ||
		othersOf(data) != othersOf([]byte(out)) {
		return false, fmt.Errorf("%s: lore's edit would not leave its entry as meant and all else as it was; lore has not changed it", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, store.WriteThrough(path, []byte(out))
}

// editTable sets the command and args lines of lore's table (its lines,
// header first), keeping the rest of it (comments, env, other keys and
// subtables) as the user wrote it; a line missing is added after the
// header. A value written over several lines is left to the check after
// the edit, which refuses it.
func editTable(table []string, command, args string) string {
	out := slices.Clone(table)
	if !strings.HasSuffix(out[0], "\n") {
		out[0] += "\n"
	}
	body := len(out)
	for i := 1; i < len(out); i++ {
		if anyTable().MatchString(out[i]) {
			body = i
			break
		}
	}
	set := func(key, line string) {
		for i := 1; i < body; i++ {
			if k, _, ok := strings.Cut(out[i], "="); ok && strings.TrimSpace(k) == key {
				out[i] = line
				return
			}
		}
		out = slices.Insert(out, 1, line)
		body++
	}
	set("args", args)
	set("command", command)
	return strings.Join(out, "")
}

// othersOf is everything a config.toml's content sets but lore's server,
// in a form to compare (%#v: NaN equals itself, maps print sorted).
func othersOf(data []byte) string {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return "not TOML: " + err.Error()
	}
	if servers, ok := m["mcp_servers"].(map[string]any); ok {
		delete(servers, MCPServerName)
		if len(servers) == 0 {
			delete(m, "mcp_servers")
		}
	}
	return fmt.Sprintf("%#v", m)
}

// codexEntry reads mcp_servers.lore from a config.toml's content.
func codexEntry(path string, data []byte) (*MCPEntry, error) {
	var cfg struct {
		MCPServers map[string]MCPEntry `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		if line, _, msg := tomlerr.Where(string(data), err); line > 0 {
			return nil, fmt.Errorf("%s:%d: not valid TOML: %s", path, line, msg)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if e, ok := cfg.MCPServers[MCPServerName]; ok {
		return &e, nil
	}
	return nil, nil
}
