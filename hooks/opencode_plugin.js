// lore opencode plugin, version 2 — installed by 'lore hooks install --agent opencode'; reinstall to update, do not edit.
// opencode has no command hooks: this plugin hands lore the JSON Claude Code's hooks send, for each prompt
// (chat.message), a session's start (its system prompt, once per session), a compaction, and a turn's end (the
// session going idle, as Claude Code's Stop). A failure, non-zero exit, bad answer or timeout adds nothing and
// never stops the agent.
import { spawn } from "node:child_process";

const LORE_ARGV = ["lore", "inject", "--stdin"];

// answer runs LORE_ARGV with input on stdin and resolves to the JSON it answers, or {}.
const answer = (input) => new Promise((resolve) => {
  let out = "", timer;
  const done = (v) => { clearTimeout(timer); resolve(v && typeof v === "object" ? v : {}); };
  try {
    const child = spawn(LORE_ARGV[0], LORE_ARGV.slice(1), { cwd: input.cwd, stdio: ["pipe", "pipe", "ignore"], windowsHide: true });
    timer = setTimeout(() => { child.kill("SIGKILL"); done(); }, 10000);
    child.on("error", () => done());
    child.stdout.on("data", (b) => { out += b; });
    child.on("close", (code) => {
      try { done(code === 0 && out ? JSON.parse(out) : {}); } catch { done(); }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  } catch { done(); }
});

// lore resolves to the context lore answers for a prompt, a session start or a compaction, or "".
const lore = async (input) => {
  const text = (await answer(input)).hookSpecificOutput?.additionalContext;
  return typeof text === "string" ? text : "";
};

// opencode run exits when its session first goes idle, and cancels what is queued then: a turn's end gets no Stop.
const oneShot = process.argv[2] === "run";

// partID makes a part ID the way opencode does ("prt_", 12 hex digits of time, 14 random characters),
// so lore's part sorts after the prompt's own.
let seq = 0;
const partID = () => {
  let id = "prt_" + (BigInt(Date.now()) * 4096n + BigInt(++seq % 4096)).toString(16).padStart(12, "0").slice(-12);
  for (let i = 0; i < 14; i++) id += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[Math.floor(Math.random() * 62)];
  return id;
};

export const LorePlugin = async ({ client, directory, worktree }) => {
  const cwd = directory || worktree || process.cwd();
  const created = new Set(), subagents = new Set(), compacting = new Set(), stopping = new Set();
  const views = new Map(); // session ID → its resume view, for every request's system prompt
  const asker = new Map(); // session ID → the agent and model of its last prompt, to go on with
  const start = (id, source) => {
    const view = lore({ hook_event_name: "SessionStart", source, session_id: id, cwd });
    views.set(id, view);
    return view;
  };
  // A subagent's session (the task tool's) is not the user's; one resumed in this process was not seen created.
  const isSubagent = async (id) => {
    if (!subagents.has(id) && !created.has(id)) {
      const info = (await client.session.get({ path: { id } }))?.data;
      (info?.parentID ? subagents : created).add(id);
    }
    return subagents.has(id);
  };
  // stop is Claude Code's Stop for a turn that ended: lore hears the agent's last reply, and a reason it gives to go
  // on (once a session: record a handoff) becomes the session's next prompt, marked synthetic so that chat.message
  // does not take it for the user's. promptAsync: awaiting a prompt inside a hook deadlocks opencode.
  const stop = async (id) => {
    if (!id || oneShot || stopping.has(id)) return;
    stopping.add(id);
    try {
      if (await isSubagent(id)) return;
      const msgs = (await client.session.messages({ path: { id } }))?.data ?? [];
      const reply = msgs.filter((m) => m.info?.role === "assistant").at(-1);
      const last = (reply?.parts ?? []).filter((p) => p.type === "text").map((p) => p.text).join("\n");
      const out = await answer({ hook_event_name: "Stop", session_id: id, cwd, last_assistant_message: last });
      if (out.decision !== "block" || typeof out.reason !== "string" || !out.reason) return;
      const { agent, model } = asker.get(id) ?? {};
      await client.session.promptAsync({ path: { id }, body: { agent, model, parts: [{ type: "text", text: out.reason, synthetic: true }] } });
    } catch {} finally { stopping.delete(id); }
  };
  return {
    event: async ({ event }) => {
      const info = event?.type === "session.created" ? event.properties?.info : undefined;
      if (info?.id) (info.parentID ? subagents : created).add(info.id);
      const p = event?.type === "session.status" ? event.properties : undefined;
      if (p?.status?.type === "idle") await stop(p.sessionID);
    },
    "chat.message": async (input, output) => {
      try {
        const m = output.message ?? {};
        asker.set(input.sessionID, { agent: m.agent ?? input.agent, model: m.model ?? input.model });
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
