package hooks

import (
	_ "embed"
	"encoding/json"
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
)

// opencode has no command hooks: it loads JavaScript plugins from its
// plugin directories. lore installs one file, opencode_plugin.js with the
// hook command written into it, that passes the prompt, the session start
// and compaction through 'lore inject --stdin' with the JSON Claude Code
// sends.

//go:embed opencode_plugin.js
var pluginTemplate string

// argvLine is the template's line that names the command to run; install
// writes the real command's argv in its place.
const argvLine = `const LORE_ARGV = ["lore", "inject", "--stdin"];`

// pluginHeader is the first line of every plugin lore wrote, with its
// version: a file without it is someone else's and is never touched.
var pluginHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^// lore opencode plugin, version (\d+)\b`) })

// PluginVersion is the version of the embedded plugin.
func PluginVersion() int {
	v, _ := pluginVersion([]byte(pluginTemplate))
	return v
}

func pluginVersion(data []byte) (int, bool) {
	m := pluginHeader().FindSubmatch(data)
	if m == nil {
		return 0, false
	}
	v, err := strconv.Atoi(string(m[1]))
	return v, err == nil
}

// pluginText is the plugin that runs argv.
func pluginText(argv []string) (string, error) {
	if strings.Count(pluginTemplate, argvLine) != 1 {
		return "", errors.New("internal error: the embedded opencode plugin has no LORE_ARGV line")
	}
	b, err := json.Marshal(argv)
	if err != nil {
		return "", err
	}
	return strings.Replace(pluginTemplate, argvLine, "const LORE_ARGV = "+string(b)+";", 1), nil
}

// pluginArgv reads the command back from an installed plugin.
var pluginArgv = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^const LORE_ARGV = (\[.*\]);$`) })

func installPlugin(t Target, command string) (bool, error) {
	argv, err := argvOf(command)
	if err != nil {
		return false, err
	}
	want, err := pluginText(argv)
	if err != nil {
		return false, err
	}
	cur, err := os.ReadFile(t.Path)
	switch {
	case err == nil:
		if _, ours := pluginVersion(cur); !ours {
			return false, fmt.Errorf("%s exists and is not lore's plugin; move it away, lore has not changed it", t.Path)
		}
		if string(cur) == want {
			return false, nil
		}
	case !errors.Is(err, os.ErrNotExist):
		return false, err
	}
	if t.Scope == "user" {
		// The plugin directory may be new; opencode's own must exist.
		conf := filepath.Dir(filepath.Dir(t.Path))
		if _, err := os.Stat(conf); err != nil {
			return false, fmt.Errorf("%s does not exist: is %s installed? (or use --scope project)", conf, t.Agent.Title)
		}
	}
	return true, store.WriteThrough(t.Path, []byte(want))
}

func uninstallPlugin(t Target) (bool, error) {
	cur, err := os.ReadFile(t.Path)
	if err != nil {
		return false, err
	}
	if _, ours := pluginVersion(cur); !ours {
		return false, fmt.Errorf("%s is not lore's plugin; lore has not removed it", t.Path)
	}
	if err := os.Remove(t.Path); err != nil {
		return false, err
	}
	os.Remove(filepath.Dir(t.Path)) // the plugin directory, if lore's was the last file
	return true, nil
}

func pluginStatus(t Target) ([]EventStatus, error) {
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, os.ErrNotExist) {
		data = nil
	} else if err != nil {
		return nil, err
	}
	var st EventStatus
	if v, ours := pluginVersion(data); ours {
		st.Installed = true
		var argv []string
		if m := pluginArgv().FindSubmatch(data); m != nil && json.Unmarshal(m[1], &argv) == nil && len(argv) > 0 {
			st.Command, st.Binary = strings.Join(argv, " "), argv[0]
			st.BinaryOK, st.Other = binaryState(st.Binary, t.Self)
			st.HostTrusted = slices.Contains(argv, hostTrusted)
		}
		if v != PluginVersion() {
			st.Problem = fmt.Sprintf("plugin version %d, this lore has %d: run 'lore hooks install --agent %s' again", v, PluginVersion(), t.Agent.Name)
		}
	} else if data != nil {
		st.Problem = "the file is not lore's plugin"
	}
	var out []EventStatus
	for _, ev := range t.Agent.Events {
		st.Event = ev.Name
		out = append(out, st)
	}
	return out, nil
}
