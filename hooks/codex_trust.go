package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
)

// Codex runs a hook only after the user trusted it, and a project's
// .codex/hooks.json only in a project the user trusted; an untrusted hook
// is skipped without a word by 'codex exec'. Both decisions live in the
// user's $CODEX_HOME/config.toml, which lore reads (never writes) to say
// in 'lore hooks status' what still keeps Codex from running lore:
//
//	[projects."/abs/repo"]
//	trust_level = "trusted"
//	[hooks.state."/abs/repo/.codex/hooks.json:session_start:0:0"]
//	trusted_hash = "sha256:…"
//
// The key and hash follow Codex 0.169.0 (codex-rs/hooks/src/lib.rs
// hook_key, engine/discovery.rs command_hook_hash); the end-to-end test
// checks them against what Codex itself reports.

// codexConfig is what lore reads of $CODEX_HOME/config.toml.
type codexConfig struct {
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
	Hooks struct {
		State map[string]struct {
			TrustedHash string `toml:"trusted_hash"`
			Enabled     *bool  `toml:"enabled"`
		} `toml:"state"`
	} `toml:"hooks"`
}

// codexEventLabels are the events' names in Codex's hook keys and hashes.
var codexEventLabels = map[string]string{"UserPromptSubmit": "user_prompt_submit", "SessionStart": "session_start", "Stop": "stop"}

// codexHandler is one command handler as Codex hashes it.
type codexHandler struct {
	Command                string `json:"command"`
	Timeout                *int   `json:"timeout"`
	Async                  bool   `json:"async"`
	StatusMessage          string `json:"statusMessage"`
	AdditionalContextLimit *int   `json:"additionalContextLimit"`
}

// codexHookHash is the trusted_hash Codex records for handler h of event:
// sha256 over the JSON, keys sorted, of {event_name, matcher, hooks: [h]},
// with h normalized (timeout default 600) and matcher counted only for the
// events that match on one.
func codexHookHash(event string, matcher *string, h codexHandler) string {
	timeout := 600
	if h.Timeout != nil {
		timeout = max(*h.Timeout, 1)
	}
	handler := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
	if h.StatusMessage != "" {
		handler["statusMessage"] = h.StatusMessage
	}
	if h.AdditionalContextLimit != nil {
		handler["additionalContextLimit"] = *h.AdditionalContextLimit
	}
	id := map[string]any{"event_name": codexEventLabels[event], "hooks": []any{handler}}
	if matcher != nil && event == "SessionStart" {
		id["matcher"] = *matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // maps marshal with sorted keys
	enc.SetEscapeHTML(false)
	if err := enc.Encode(id); err != nil {
		panic(err) // strings and numbers only
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexProblem says what keeps Codex from running lore's handler at
// position (group, index) of event in t's hooks.json, or "".
func codexProblem(t Target, event string, group, index int, matcher *string, raw json.RawMessage) string {
	var cfg codexConfig
	data, err := os.ReadFile(t.HostConfig)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("cannot read %s: %v", t.HostConfig, err)
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return fmt.Sprintf("%s does not parse, so Codex's trust is unknown: %v", t.HostConfig, err)
	}
	if t.Scope == "project" {
		root := filepath.Dir(filepath.Dir(t.Path))
		if cfg.Projects[root].TrustLevel != "trusted" {
			return "Codex ignores this project's .codex/ until you trust the project, then lore's hooks: start codex here once, trust the folder and choose \"Trust all and continue\" (or run 'codex exec --trust', then review the hooks in codex's /hooks)"
		}
	}
	var h codexHandler
	if json.Unmarshal(raw, &h) != nil {
		return ""
	}
	st, ok := cfg.Hooks.State[fmt.Sprintf("%s:%s:%d:%d", t.Path, codexEventLabels[event], group, index)]
	switch {
	case ok && st.Enabled != nil && !*st.Enabled:
		return "disabled in Codex: enable it in codex's /hooks"
	case !ok || st.TrustedHash == "":
		return "not trusted by Codex, which skips it silently: start codex here and trust lore's hooks (or review them in /hooks)"
	case st.TrustedHash != codexHookHash(event, matcher, h):
		return "changed since Codex trusted it, so Codex skips it: review lore's hooks in codex's /hooks"
	}
	return ""
}
