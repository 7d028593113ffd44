import type { Message } from "../../types.ts";

/**
 * One line of a Codex CLI session file (`~/.codex/sessions/…/rollout-*.jsonl`, what Codex's Stop
 * hook names in `transcript_path`) as a neutral message, or null for a line that is not one.
 * Codex writes `{timestamp, type, payload}` lines: `session_meta` (`payload.id` is the session),
 * and `response_item` whose `payload` `{type: "message", role, content: [{type: "input_text" |
 * "output_text", text}]}` is a user or assistant message. Tool calls, reasoning and events carry
 * nothing extraction saves; the context blocks Codex sends as user messages
 * (`<environment_context>`, `<user_instructions>`) are not the user speaking.
 *
 * Codex lines have no id: `lineNumber` (the file is only appended to) makes a stable one, so the
 * extraction cursor finds the same message on the next read.
 */
export function messageFromCodexLine(
  line: unknown,
  lineNumber: number,
): { message: Message } | { sessionId: string } | null {
  if (!line || typeof line !== "object") return null;
  const record = line as Record<string, unknown>;
  const payload = record.payload as Record<string, unknown> | undefined;
  if (!payload || typeof payload !== "object") return null;
  if (record.type === "session_meta")
    return typeof payload.id === "string" ? { sessionId: payload.id } : null;
  if (record.type !== "response_item" || payload.type !== "message") return null;
  const role = payload.role === "assistant" ? "assistant" : payload.role === "user" ? "user" : null;
  if (!role || !Array.isArray(payload.content)) return null;
  const text = payload.content
    .map((block) => {
      const part = block as Record<string, unknown> | null;
      return part &&
        (part.type === "input_text" || part.type === "output_text") &&
        typeof part.text === "string"
        ? part.text
        : "";
    })
    .filter((part) => part !== "")
    .join("\n");
  if (text.trim() === "") return null;
  if (role === "user" && /^\s*<(environment_context|user_instructions)>/.test(text)) return null;
  return {
    message: {
      id: `codex-${lineNumber}`,
      role,
      content: text,
      ...(typeof record.timestamp === "string" ? { timestamp: record.timestamp } : {}),
    },
  };
}
