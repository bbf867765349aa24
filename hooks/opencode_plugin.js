// lore opencode plugin, version 1 — installed by 'lore hooks install --agent opencode'; reinstall to update, do not edit.
// opencode has no command hooks: this plugin hands lore the JSON Claude Code's hooks send, for each prompt
// (chat.message), a session's start (its system prompt, once per session) and a compaction. A failure,
// non-zero exit, bad answer or timeout adds nothing and never stops the agent.
import { spawn } from "node:child_process";

const LORE_ARGV = ["lore", "inject", "--stdin"];

// lore runs LORE_ARGV with input on stdin and resolves to the additionalContext it answers, or "".
const lore = (input) => new Promise((resolve) => {
  let out = "", timer;
  const done = (text) => { clearTimeout(timer); resolve(typeof text === "string" ? text : ""); };
  try {
    const child = spawn(LORE_ARGV[0], LORE_ARGV.slice(1), { cwd: input.cwd, stdio: ["pipe", "pipe", "ignore"], windowsHide: true });
    timer = setTimeout(() => { child.kill("SIGKILL"); done(""); }, 10000);
    child.on("error", () => done(""));
    child.stdout.on("data", (b) => { out += b; });
    child.on("close", (code) => {
      try { done(code === 0 ? JSON.parse(out).hookSpecificOutput?.additionalContext : ""); } catch { done(""); }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  } catch { done(""); }
});

// partID makes a part ID the way opencode does ("prt_", 12 hex digits of time, 14 random characters),
// so lore's part sorts after the prompt's own.
let seq = 0;
const partID = () => {
  let id = "prt_" + (BigInt(Date.now()) * 4096n + BigInt(++seq % 4096)).toString(16).padStart(12, "0").slice(-12);
  for (let i = 0; i < 14; i++) id += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[Math.floor(Math.random() * 62)];
  return id;
};

export const LorePlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd();
  const created = new Set(), subagents = new Set(), compacting = new Set();
  const views = new Map(); // session ID → its resume view, for every request's system prompt
  const start = (id, source) => {
    const view = lore({ hook_event_name: "SessionStart", source, session_id: id, cwd });
    views.set(id, view);
    return view;
  };
  return {
    event: async ({ event }) => {
      const info = event?.type === "session.created" ? event.properties?.info : undefined;
      if (info?.id) (info.parentID ? subagents : created).add(info.id);
    },
    "chat.message": async (input, output) => {
      try {
        const parts = output.parts, prompt = parts.filter((p) => p.type === "text" && !p.synthetic && !p.ignored).map((p) => p.text).join("\n").trim();
        const text = prompt && await lore({ hook_event_name: "UserPromptSubmit", prompt, session_id: input.sessionID, cwd });
        if (text) parts.push({ id: partID(), sessionID: input.sessionID, messageID: output.message.id, type: "text", text, synthetic: true });
      } catch {}
    },
    "experimental.chat.system.transform": async (input, output) => {
      try {
        const id = input.sessionID; // none when opencode generates an agent; a compaction's request has the view below
        if (!id || subagents.has(id) || compacting.delete(id)) return;
        const text = await (views.get(id) ?? start(id, created.has(id) ? "startup" : "resume"));
        if (text) output.system.push(text);
      } catch {}
    },
    "experimental.session.compacting": async (input, output) => {
      try {
        const id = input.sessionID, text = id && !subagents.has(id) && await start(id, "compact");
        if (text) output.context.push(text), compacting.add(id);
      } catch {}
    },
  };
};
