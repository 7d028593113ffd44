import type { Message } from "../../types.ts";

/**
 * One line of a GitHub Copilot CLI session log (`~/.copilot/session-state/<id>/events.jsonl`,
 * what Copilot's `Stop` hook names in `transcript_path`) as a neutral message, or null for a line
 * that is not one. Copilot writes events `{type, data, id, timestamp, parentId}`: `session.start`
 * (`data.sessionId`), `user.message` (`data.content`, what the user typed; `transformedContent` is
 * that text with the context Copilot and its hooks added, recalled memories included, which the
 * user did not say), `assistant.message` (`data.content`, empty when the turn is only tool
 * calls), and hook, tool, usage and turn events that carry nothing extraction saves.
 *
 * The format is not documented: it is what Copilot CLI 1.0.102 writes (test/integration/copilot.test.ts
 * reads a real session with this), so a line of any other shape is skipped, never guessed at. Each
 * event has its own `id`, which the extraction cursor finds again on the next read.
 */
export function messageFromCopilotLine(line: unknown): { message: Message } | { sessionId: string } | null {
  if (!line || typeof line !== "object") return null;
  const record = line as Record<string, unknown>;
  const data = record.data as Record<string, unknown> | undefined;
  if (typeof record.type !== "string" || !data || typeof data !== "object") return null;
  if (record.type === "session.start")
    return typeof data.sessionId === "string" ? { sessionId: data.sessionId } : null;
  const role =
    record.type === "user.message" ? "user" : record.type === "assistant.message" ? "assistant" : null;
  if (role === null || typeof data.content !== "string" || data.content.trim() === "") return null;
  if (typeof record.id !== "string") return null;
  return {
    message: {
      id: record.id,
      role,
      content: data.content,
      ...(typeof record.timestamp === "string" ? { timestamp: record.timestamp } : {}),
    },
  };
}
