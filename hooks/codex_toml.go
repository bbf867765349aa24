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
// table and the subtables of it ([mcp_servers.lore.env], wherever in the
// file they are), and checks that the result still parses, with lore's
// entry as meant and everything else as it was.

// loreTable matches the header of lore's table or of a subtable of it
// (submatch 2), a comment after it allowed; lines keep their "\n".
var loreTable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*("lore"|'lore'|lore)\s*(\.[^\]]*)?\]\s*(#.*)?\s*$`)
})
var anyTable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[`) })

// loreBlocks finds lore's tables in lines: each block [start, end) runs
// from a header of lore's table or a subtable of it to the next header of
// another table; head is the line of [mcp_servers.lore] itself, or -1.
func loreBlocks(lines []string) (blocks [][2]int, head int) {
	head = -1
	for i, l := range lines {
		m := loreTable().FindStringSubmatch(l)
		switch {
		case m != nil && len(blocks) > 0 && blocks[len(blocks)-1][1] == i:
			blocks[len(blocks)-1][1] = i + 1 // a subtable right after: one block
		case m != nil:
			blocks = append(blocks, [2]int{i, i + 1})
		case len(blocks) > 0 && blocks[len(blocks)-1][1] == i && !anyTable().MatchString(l):
			blocks[len(blocks)-1][1] = i + 1
		}
		if m != nil && m[2] == "" && head < 0 {
			head = i
		}
	}
	return blocks, head
}

// withoutBlocks is lines without lore's blocks. Comments just above the
// next table are that table's (a user's section added after lore's keeps
// its heading); a block at the end takes the blank line install put
// before it.
func withoutBlocks(lines []string, blocks [][2]int) []string {
	out := slices.Clone(lines)
	for b := len(blocks) - 1; b >= 0; b-- { // from the end: earlier blocks keep their lines' numbers
		start, end := blocks[b][0], blocks[b][1]
		for end < len(out) && end-1 > start && strings.HasPrefix(strings.TrimSpace(out[end-1]), "#") {
			end--
		}
		if start > 0 && end == len(out) && strings.TrimSpace(out[start-1]) == "" {
			start--
		}
		out = slices.Delete(out, start, end)
	}
	return out
}

// editCodexTOML sets lore's table to entry (nil: removes it and its
// subtables).
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
	blocks, head := loreBlocks(lines)
	if cur != nil && (entry == nil && len(blocks) == 0 || entry != nil && head < 0) {
		return false, fmt.Errorf("%s: mcp_servers.lore is written in a form lore does not edit (not as a [mcp_servers.lore] table); lore has not changed it (edit it by hand)", path)
	}
	// Lines lore writes end as the file's lines do (CRLF from Windows).
	eol := "\n"
	if usesCRLF(data) {
		eol = "\r\n"
	}
	var out string
	switch {
	case entry == nil && (len(blocks) == 0 || cur == nil):
		// Nothing to remove: a [mcp_servers.lore] line with no entry
		// behind it is text inside a multi-line string.
		return false, nil
	case entry == nil:
		out = strings.Join(withoutBlocks(lines, blocks), "")
	default:
		if cur != nil && cur.Command == entry.Command && strings.Join(cur.Args, "\x00") == strings.Join(entry.Args, "\x00") {
			return false, nil
		}
		var args []string
		for _, a := range entry.Args {
			args = append(args, strconv.Quote(a))
		}
		command, argList := "command = "+strconv.Quote(entry.Command)+eol, "args = ["+strings.Join(args, ", ")+"]"+eol
		if head >= 0 {
			out = strings.Join(lines[:head], "") + editTable(lines[head:], command, argList, eol)
		} else if at := inlineServers(lines); at > 0 {
			// TOML lets no [mcp_servers.lore] extend an inline table (the
			// parser lore uses here does; Codex's refuses to start).
			return false, fmt.Errorf("%s:%d: mcp_servers is an inline table (mcp_servers = { … }), which a [mcp_servers.lore] table cannot extend; lore has not changed it (write its servers as [mcp_servers.NAME] tables, or add lore to it by hand)", path, at)
		} else {
			before := string(data)
			if before != "" && !strings.HasSuffix(before, "\n") {
				before += eol
			}
			if before != "" {
				before += eol
			}
			out = before + "[mcp_servers.lore]" + eol + command + argList
		}
	}
	// The edit is text: check it parses and reads back as what was meant.
	// A command TOML cannot hold as written (strconv.Quote's \xff is U+00FF
	// in TOML), a table lore misplaced or a header inside a multi-line
	// string would otherwise pass for installed, or lose what is not lore's.
	after, err := codexEntry(path, []byte(out))
	if err != nil || entry == nil && after != nil || entry != nil && (after == nil || after.Command != entry.Command || !slices.Equal(after.Args, entry.Args)) ||
		othersOf(data) != othersOf([]byte(out)) {
		at := ""
		if head >= 0 {
			at = fmt.Sprintf(":%d", head+1)
		} else if len(blocks) > 0 {
			at = fmt.Sprintf(":%d", blocks[0][0]+1)
		}
		return false, fmt.Errorf("%s%s: lore cannot edit mcp_servers.lore as written here and leave all else as it was; lore has not changed it (edit it by hand)", path, at)
	}
	if err := os.MkdirAll(filepath.Dir(path), store.DirMode); err != nil {
		return false, err
	}
	return true, store.WriteThrough(path, []byte(out))
}

// inlineServers is the line (1-based) where mcp_servers is set to an inline
// table at the top of the file, or 0.
func inlineServers(lines []string) int {
	for i, l := range lines {
		if anyTable().MatchString(l) {
			return 0
		}
		if inlineServersKey().MatchString(l) {
			return i + 1
		}
	}
	return 0
}

var inlineServersKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*("mcp_servers"|'mcp_servers'|mcp_servers)\s*=\s*\{`)
})

// editTable sets the command and args lines of lore's table (given its
// header and the lines after it, to the end of the file), keeping the rest
// (comments, env, other keys and tables) as the user wrote it; a line
// missing is added after the header. A value written over several lines
// is left to the check after the edit, which refuses it.
func editTable(table []string, command, args, eol string) string {
	out := slices.Clone(table)
	if !strings.HasSuffix(out[0], "\n") {
		out[0] += eol
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
