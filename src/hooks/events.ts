import { z } from "zod";

/** The hook events memdir answers, as named on the command line (`memdir hook <event>`). */
export const HOOK_EVENTS = ["session-start", "user-prompt-submit", "stop"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The event names agents put in `hook_event_name` and expect back in `hookEventName`. */
export const HOOK_EVENT_NAMES: Record<HookEvent, string> = {
  "session-start": "SessionStart",
  "user-prompt-submit": "UserPromptSubmit",
  stop: "Stop",
};

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}

// The common shape agents with hooks send on stdin; every field optional, unknown fields kept
// out of our way (agents add their own, e.g. `permission_mode`, `stop_hook_active`).
const hookInputSchema = z.object({
  session_id: z.string().optional(),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string().optional(),
  prompt: z.string().optional(),
});

export type HookInput = z.infer<typeof hookInputSchema>;

/**
 * The hook's JSON from stdin, or `null` when it is not a JSON object of the expected shape
 * (then the hook answers with an empty result: a broken hook must never break the agent).
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
  const result = hookInputSchema.safeParse(parsed);
  return result.success ? result.data : null;
}

/** What a hook prints: `{}` when it has nothing to add, else the context for the agent's model. */
export type HookOutput =
  | Record<string, never>
  | { hookSpecificOutput: { hookEventName: string; additionalContext: string } };

/**
 * The JSON that adds context for an agent with hooks (Claude Code's `hookSpecificOutput` shape),
 * or `{}` when there is nothing to add.
 *
 * @example
 * hookOutput("session-start", "…") // { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "…" } }
 */
export function hookOutput(event: HookEvent, additionalContext: string | null): HookOutput {
  if (additionalContext === null || additionalContext.trim() === "") return {};
  return { hookSpecificOutput: { hookEventName: HOOK_EVENT_NAMES[event], additionalContext } };
}
