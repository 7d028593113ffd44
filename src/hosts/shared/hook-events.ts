/**
 * The hook events memdir answers, as named on the command line (`memdir hook <event>`): Claude
 * Code's and Codex's (`SessionStart`, `UserPromptSubmit`, `Stop`, `PreCompact`, `SessionEnd`,
 * `SubagentStop`, `PostToolUse`) and Gemini CLI's `BeforeAgent` / `AfterAgent` / `AfterTool`
 * (docs/integrations.md#agents-with-hooks-memdir-hook-event).
 */
export const HOOK_EVENTS = [
  "session-start",
  "user-prompt-submit",
  "stop",
  "pre-compact",
  "session-end",
  "subagent-stop",
  "before-agent",
  "after-agent",
  "post-tool-use",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The event names agents put in `hook_event_name` and expect back in `hookEventName`. */
export const HOOK_EVENT_NAMES: Record<HookEvent, string> = {
  "session-start": "SessionStart",
  "user-prompt-submit": "UserPromptSubmit",
  stop: "Stop",
  "pre-compact": "PreCompact",
  "session-end": "SessionEnd",
  "subagent-stop": "SubagentStop",
  "before-agent": "BeforeAgent",
  "after-agent": "AfterAgent",
  "post-tool-use": "PostToolUse",
};

/**
 * What each event does: add context for a prompt or a session, add the memories about a file a
 * tool just used, extract after a turn, or nothing.
 */
export type HookAction = "session-context" | "prompt-context" | "file-context" | "extract" | "nothing";

export const HOOK_ACTIONS: Record<HookEvent, HookAction> = {
  "session-start": "session-context",
  "user-prompt-submit": "prompt-context",
  "before-agent": "prompt-context",
  "post-tool-use": "file-context",
  stop: "extract",
  "after-agent": "extract",
  "session-end": "extract",
  // A sub-agent's turn ends inside the main one, whose Stop extracts; compaction keeps the
  // transcript on disk, so the next Stop still sees every message.
  "subagent-stop": "nothing",
  "pre-compact": "nothing",
};

/**
 * Other spellings agents use for the same events (Gemini calls compaction `PreCompress`, and the
 * end of a tool call `AfterTool`).
 */
const ALIASES: Record<string, HookEvent> = { precompress: "pre-compact", aftertool: "post-tool-use" };

function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, "");
}

/**
 * The event `name` means, in any spelling a host uses (`user-prompt-submit`, `UserPromptSubmit`,
 * `userpromptsubmit`, `user_prompt_submit`, `BeforeAgent`), or null for an event memdir does not know.
 *
 * @example
 * normalizeHookEvent("UserPromptSubmit") // "user-prompt-submit"
 */
export function normalizeHookEvent(name: string): HookEvent | null {
  const key = squash(name);
  if (key === "") return null;
  return HOOK_EVENTS.find((event) => squash(event) === key) ?? ALIASES[key] ?? null;
}

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}

// The common shape agents with hooks send on stdin; every field optional, unknown fields kept
// out of our way (agents add their own, e.g. `permission_mode`, `turn_id`, `timestamp`). A text
// field that arrives as null (Codex sends `"transcript_path": null`, `"last_assistant_message":
// null`) or in a shape we cannot use reads as absent, so one odd field never costs the whole
// input. Checked by hand, not with zod: the prompt hook runs once per prompt and zod alone costs
// it ~25 ms of module loading (docs/design.md#the-prompt-hook-process).
const HOOK_INPUT_FIELDS = [
  "session_id",
  "transcript_path",
  "cwd",
  "hook_event_name",
  "prompt",
  /** Claude Code and Codex `Stop`: the final assistant message, which the transcript may not hold yet. */
  "last_assistant_message",
  /** Gemini CLI `AfterAgent`: the final text the agent generated. */
  "prompt_response",
  /** Cursor: in every payload (with `workspace_roots`, and no `cwd`). */
  "cursor_version",
  /** `PostToolUse` / `AfterTool`: the tool that ran (`Read`, `read_file`, …). */
  "tool_name",
] as const;

export type HookInput = { [Field in (typeof HOOK_INPUT_FIELDS)[number]]?: string } & {
  /** Cursor: the open workspace folders; the first is the project when no `cwd` is given. */
  workspace_roots?: string[];
  /** `PostToolUse` / `AfterTool`: the tool's arguments (`{file_path}` for Claude Code's Read). */
  tool_input?: Record<string, unknown>;
};

/**
 * The hook's JSON from stdin, or `null` when it is not a JSON object (then the hook answers with
 * an empty result: a broken hook must never break the agent). A field of an unexpected type
 * (`"transcript_path": null`, a numeric prompt) reads as absent.
 *
 * @example
 * parseHookInput('{"cwd": "/Users/me/shop", "prompt": "fix the login test"}') // { cwd: "/Users/me/shop", prompt: "…" }
 */
export function parseHookInput(text: string): HookInput | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const given = parsed as Record<string, unknown>;
  // Absent fields stay absent (not `key: undefined`), as callers and tests compare shapes.
  const input: HookInput = {};
  for (const field of HOOK_INPUT_FIELDS) {
    const value = Object.hasOwn(given, field) ? given[field] : undefined;
    if (typeof value === "string") input[field] = value;
  }
  const roots = given.workspace_roots;
  if (Array.isArray(roots) && roots.every((root) => typeof root === "string")) input.workspace_roots = roots;
  const toolInput = given.tool_input;
  if (toolInput && typeof toolInput === "object" && !Array.isArray(toolInput))
    input.tool_input = toolInput as Record<string, unknown>;
  return input;
}

/**
 * Whose hook format the answer must follow: Claude Code's (`hookSpecificOutput`, which Codex and
 * Gemini CLI share) or Cursor's (`additional_context` at the top level, at `sessionStart` only).
 */
export type HookDialect = "claude-code" | "cursor" | "copilot";

/**
 * The hosts `memdir hook --host <name>` names, whose answer format their payload does not tell:
 * Copilot CLI sends Claude Code's payloads but reads a top-level `additionalContext` and ignores
 * `hookSpecificOutput` (docs/integrations.md, "Copilot CLI"). `memdir setup copilot` writes the flag.
 */
export const HOOK_HOSTS = ["copilot"] as const;

/**
 * The dialect of the host that sent `input`, told by the payload itself: Cursor puts
 * `cursor_version` and `workspace_roots` in every hook input and names its events in camelCase
 * (`sessionStart`, `stop`), where Claude Code, Codex and Gemini CLI send `cwd` and PascalCase names
 * (docs/integrations.md, "Cursor"). The payload, not a flag, so a hooks.json written by hand or by an
 * older `memdir setup` answers right too.
 *
 * @example
 * hookDialect({ hook_event_name: "sessionStart", cursor_version: "2.0.77" }) // "cursor"
 */
export function hookDialect(input: HookInput | null): HookDialect {
  if (input === null) return "claude-code";
  const cursorShaped =
    input.cursor_version !== undefined ||
    input.workspace_roots !== undefined ||
    /^[a-z]/.test(input.hook_event_name ?? "");
  return cursorShaped ? "cursor" : "claude-code";
}

/** What a hook prints: `{}` when it has nothing to add, else the context in the host's shape. */
export type HookOutput =
  | Record<string, never>
  | { hookSpecificOutput: { hookEventName: string; additionalContext: string } }
  | { additional_context: string }
  | { additionalContext: string };

/**
 * The JSON that adds context for an agent with hooks, or `{}` when there is nothing to add:
 * `hookSpecificOutput` for Claude Code, Codex and Gemini CLI; for Cursor `additional_context`,
 * which its `sessionStart` reads (its other events take no context, so they get `{}`).
 *
 * @example
 * hookOutput("session-start", "…") // { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "…" } }
 * hookOutput("session-start", "…", "cursor") // { additional_context: "…" }
 * hookOutput("user-prompt-submit", "…", "copilot") // { additionalContext: "…" }
 *
 * `hookEventName` repeats the event the host sent when it sent one (`hostEventName`), whatever
 * the command line named: Claude Code drops an answer whose name differs from the event it ran
 * ("Hook returned incorrect event name"), and Codex rejects a name outside its own events, so a
 * hand-written entry such as `memdir hook before-agent` under Codex's `UserPromptSubmit` must
 * still answer `UserPromptSubmit`.
 */
export function hookOutput(
  event: HookEvent,
  additionalContext: string | null,
  dialect: HookDialect = "claude-code",
  hostEventName: string | null = null,
): HookOutput {
  if (additionalContext === null || additionalContext.trim() === "") return {};
  if (dialect === "cursor")
    return HOOK_ACTIONS[event] === "session-context" ? { additional_context: additionalContext } : {};
  if (dialect === "copilot") return { additionalContext };
  const hookEventName = hostEventName?.trim() ? hostEventName : HOOK_EVENT_NAMES[event];
  return { hookSpecificOutput: { hookEventName, additionalContext } };
}
