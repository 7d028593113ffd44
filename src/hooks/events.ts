/**
 * The hook events memdir answers, as named on the command line (`memdir hook <event>`): Claude
 * Code's and Codex's (`SessionStart`, `UserPromptSubmit`, `Stop`, `PreCompact`, `SessionEnd`,
 * `SubagentStop`) and Gemini CLI's `BeforeAgent` / `AfterAgent` (docs/integrations.md#agents-with-hooks-memdir-hook-event).
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
};

/** What each event does: add context for a prompt or a session, extract after a turn, or nothing. */
export type HookAction = "session-context" | "prompt-context" | "extract" | "nothing";

export const HOOK_ACTIONS: Record<HookEvent, HookAction> = {
  "session-start": "session-context",
  "user-prompt-submit": "prompt-context",
  "before-agent": "prompt-context",
  stop: "extract",
  "after-agent": "extract",
  "session-end": "extract",
  // A sub-agent's turn ends inside the main one, whose Stop extracts; compaction keeps the
  // transcript on disk, so the next Stop still sees every message.
  "subagent-stop": "nothing",
  "pre-compact": "nothing",
};

/** Other spellings agents use for the same events (Gemini calls compaction `PreCompress`). */
const ALIASES: Record<string, HookEvent> = { precompress: "pre-compact" };

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
// it ~25 ms of module loading (issue 17).
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
] as const;

export type HookInput = { [Field in (typeof HOOK_INPUT_FIELDS)[number]]?: string };

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
  return input;
}

/** What a hook prints: `{}` when it has nothing to add, else the context for the agent's model. */
export type HookOutput =
  | Record<string, never>
  | { hookSpecificOutput: { hookEventName: string; additionalContext: string } };

/**
 * The JSON that adds context for an agent with hooks (the `hookSpecificOutput` shape Claude Code,
 * Codex and Gemini CLI read), or `{}` when there is nothing to add.
 *
 * @example
 * hookOutput("session-start", "…") // { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "…" } }
 */
export function hookOutput(event: HookEvent, additionalContext: string | null): HookOutput {
  if (additionalContext === null || additionalContext.trim() === "") return {};
  return { hookSpecificOutput: { hookEventName: HOOK_EVENT_NAMES[event], additionalContext } };
}
