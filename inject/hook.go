package inject

import (
	"encoding/json"
	"errors"
	"fmt"
)

// HookInput is what an agent host sends a command hook on stdin. The common
// fields are shared by Claude Code, Codex CLI and Gemini CLI:
//   - Claude Code (hooks reference; @anthropic-ai/claude-agent-sdk sdk.d.ts,
//     BaseHookInput, UserPromptSubmitHookInput, SessionStartHookInput):
//     session_id, transcript_path, cwd, hook_event_name; UserPromptSubmit adds
//     prompt, SessionStart adds source (startup|resume|clear|compact).
//   - Codex CLI (developers.openai.com/codex/hooks): the same event names and
//     fields; UserPromptSubmit also carries turn_id and model.
//   - Gemini CLI (gemini-cli docs/hooks/reference.md): BeforeAgent carries
//     prompt; SessionStart carries source; every event adds timestamp.
//
// Older documents and some tools send user_prompt instead of prompt.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`
	UserPrompt     string `json:"user_prompt"`
	Source         string `json:"source"`
	TurnID         string `json:"turn_id"`
	Model          string `json:"model"`
	// Stop (Claude Code, Codex) and AfterAgent (Gemini CLI): whether the
	// agent is already continuing because of a stop hook, and its last
	// reply (Claude Code and Codex: last_assistant_message; Gemini CLI:
	// prompt_response).
	StopHookActive       bool   `json:"stop_hook_active"`
	LastAssistantMessage string `json:"last_assistant_message"`
	PromptResponse       string `json:"prompt_response"`
}

// Hook events lore answers.
const (
	EventUserPrompt   = "UserPromptSubmit" // Claude Code, Codex CLI
	EventBeforeAgent  = "BeforeAgent"      // Gemini CLI's prompt event
	EventSessionStart = "SessionStart"     // all three hosts
	EventStop         = "Stop"             // Claude Code, Codex: the agent ends its turn
	EventAfterAgent   = "AfterAgent"       // Gemini CLI's Stop
	EventSessionEnd   = "SessionEnd"       // Claude Code, Gemini CLI: the session is over
)

// ParseHookInput decodes a hook's stdin. It must be one JSON object.
func ParseHookInput(data []byte) (*HookInput, error) {
	var in HookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil || probe == nil {
		return nil, errors.New("hook input is not a JSON object")
	}
	if in.Prompt == "" {
		in.Prompt = in.UserPrompt
	}
	return &in, nil
}

// IsPrompt reports an event that carries the user's prompt.
func (in *HookInput) IsPrompt() bool {
	return in.Event == EventUserPrompt || in.Event == EventBeforeAgent
}

// IsSessionStart reports a session start, compaction included.
func (in *HookInput) IsSessionStart() bool { return in.Event == EventSessionStart }

// IsStop reports the end of an agent's turn, or of the session.
func (in *HookInput) IsStop() bool {
	return in.Event == EventStop || in.Event == EventAfterAgent || in.Event == EventSessionEnd
}

// LastMessage is the agent's last reply, if the host sent it.
func (in *HookInput) LastMessage() string {
	if in.LastAssistantMessage != "" {
		return in.LastAssistantMessage
	}
	return in.PromptResponse
}

// HookOutput is the answer every supported host reads from stdout: Claude
// Code and Codex take hookSpecificOutput.additionalContext for
// UserPromptSubmit and SessionStart; Gemini CLI takes the same field for
// BeforeAgent ("appended to the prompt for this turn") and SessionStart.
type HookOutput struct {
	HookSpecificOutput HookSpecific `json:"hookSpecificOutput"`
}

// HookSpecific is the event-specific part of HookOutput.
type HookSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// StopOutput asks the agent to go on instead of stopping: Claude Code and
// Codex read {"decision":"block","reason":…} from a Stop hook and hand the
// reason to the model as a new turn; Gemini CLI reads the same from
// AfterAgent.
type StopOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// MarshalStopOutput encodes a stop hook's request to go on, for reason.
func MarshalStopOutput(reason string) ([]byte, error) {
	b, err := json.Marshal(StopOutput{"block", reason})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MarshalHookOutput encodes the answer for event with context text.
func MarshalHookOutput(event, context string) ([]byte, error) {
	var b []byte
	b, err := json.Marshal(HookOutput{HookSpecific{event, context}})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
