package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Claude Code and Gemini CLI each have a setting that turns hooks off and
// leaves them in the settings file, where lore would find its hooks and
// call them installed though they never run:
//   - Claude Code (checked in the 2.1.330 binary): "disableAllHooks": true.
//     Its settings files merge, user < project < project local (<
//     --settings < managed), and the last file that sets the key decides;
//     only true turns the hooks off.
//   - Gemini CLI (checked in the 0.61.0 bundle's settings schema and
//     mergeSettings): "hooksConfig": {"enabled": false} turns the hook
//     system off; the files merge user < workspace (< system), the last
//     file that sets it decides, and it defaults to true. "hooksConfig":
//     {"disabled": [names]}, the lists of all files together, skips the
//     hooks of those names (a command hook's "name", else its command).
//
// lore reads the user's and the repository's files, where people set
// these; an administrator's managed or system settings it does not.

// switchFiles are the settings files, lowest precedence first, in which
// agent a's host reads the setting that turns its hooks off; none for the
// hosts without one.
func switchFiles(a Agent, repoRoot string, d UserDirs) []string {
	if a.Name != "claude" && a.Name != "gemini" {
		return nil
	}
	var files []string
	if d.Home != "" {
		files = append(files, filepath.Join(d.Home, a.UserFile))
	}
	if repoRoot != "" {
		files = append(files, filepath.Join(repoRoot, a.ProjectFile))
		if a.Name == "claude" {
			files = append(files, filepath.Join(repoRoot, ".claude", "settings.local.json"))
		}
	}
	return files
}

// switches is what a host's settings files say about running hooks.
type switches struct {
	off     string            // why no hook runs at all, or ""
	skipped map[string]string // Gemini CLI: hook name → the file whose hooksConfig.disabled lists it
}

// readSwitches reads t.Switches. A file that is missing or does not parse
// says nothing: status reports on t's own file, not on its neighbours.
func readSwitches(t Target) switches {
	s := switches{skipped: map[string]string{}}
	var last json.RawMessage // the last value set for the switch
	var lastFile string
	for _, f := range t.Switches {
		root := readLoose(f)
		if root == nil {
			continue
		}
		switch t.Agent.Name {
		case "claude":
			if v, ok := root.get("disableAllHooks"); ok {
				last, lastFile = v, f
			}
		case "gemini":
			hc, ok := root.get("hooksConfig")
			conf := newObject()
			if !ok || json.Unmarshal(hc, conf) != nil {
				continue
			}
			if v, ok := conf.get("enabled"); ok {
				last, lastFile = v, f
			}
			var names []string
			if v, ok := conf.get("disabled"); ok && json.Unmarshal(v, &names) == nil {
				for _, n := range names {
					if _, seen := s.skipped[n]; !seen {
						s.skipped[n] = f
					}
				}
			}
		}
	}
	switch v := strings.TrimSpace(string(last)); {
	case t.Agent.Name == "claude" && v == "true":
		s.off = fmt.Sprintf(`disabled by "disableAllHooks": true in %s, which turns off all of Claude Code's hooks: remove that setting to run them`, lastFile)
	case t.Agent.Name == "gemini" && v == "false":
		s.off = fmt.Sprintf(`disabled by "hooksConfig": {"enabled": false} in %s, which turns off all of Gemini CLI's hooks: remove that setting to run them`, lastFile)
	}
	return s
}

// problem says which setting keeps the host from running handler h, or "".
func (s switches) problem(h json.RawMessage) string {
	if s.off != "" {
		return s.off
	}
	if len(s.skipped) == 0 {
		return ""
	}
	var handler struct{ Name, Command string }
	if json.Unmarshal(h, &handler) != nil {
		return ""
	}
	name := handler.Name
	if name == "" {
		name = handler.Command
	}
	if f, ok := s.skipped[name]; ok {
		return fmt.Sprintf(`disabled by "hooksConfig": {"disabled": [%s]} in %s: remove it from that list (or enable it in gemini's /hooks) to run it`, mustJSON(name), f)
	}
	return ""
}

// readLoose reads a settings file as a JSON object, comments and trailing
// commas allowed (Gemini CLI allows them), or returns nil.
func readLoose(path string) *object {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	root, err := parseSettings(data)
	if err != nil {
		if root, err = parseSettings(stripJSONC(data)); err != nil {
			return nil
		}
	}
	return root
}
