import type { Message } from "../../types.ts";

/**
 * One line of a Cursor agent transcript (`~/.cursor/projects/<workspace>/agent-transcripts/<id>/
 * <id>.jsonl`, what Cursor's `stop` hook names in `transcript_path`) as a neutral message, or null
 * for a line that is not one. Cursor writes `{role: "user"|"assistant", message: {content}}` with
 * Claude-API-style content blocks (`text`, `tool_use`, `tool_result`): no `type` of the line's own,
 * no id, no timestamp. Without this reader every line was skipped and extraction in Cursor saw
 * nothing, since Cursor's `stop` input carries no final message either. The prompt comes wrapped
 * in `<user_query>…</user_query>` beside context Cursor adds (open files, rules): only the query
 * is the user speaking.
 *
 * The format is not in Cursor's documentation: it is what Cursor writes (the shape independent
 * readers of these files agree on), so a line of any other shape is skipped, never guessed at.
 * Cursor's lines have no id: `lineNumber` (the file is only appended to) makes a stable one, so
 * the extraction cursor finds the same message on the next read.
 */
export function messageFromCursorLine(line: unknown, lineNumber: number): Message | null {
  if (!line || typeof line !== "object") return null;
  const record = line as Record<string, unknown>;
  if ("type" in record) return null; // Claude Code's and Codex's lines carry a type; Cursor's do not
  const role = record.role === "assistant" ? "assistant" : record.role === "user" ? "user" : null;
  const inner = record.message as Record<string, unknown> | undefined;
  if (!role || !inner || typeof inner !== "object") return null;
  const text = textOf(inner.content);
  const said = role === "user" ? userQuery(text) : text;
  if (said.trim() === "") return null;
  return { id: `cursor-${lineNumber}`, role, content: said };
}

/** The text blocks of a content (a string, or a list of blocks; tool calls carry nothing saved). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => {
      const part = block as Record<string, unknown> | null;
      return part && part.type === "text" && typeof part.text === "string" ? part.text : "";
    })
    .filter((part) => part !== "")
    .join("\n");
}

/** What the user typed: the `<user_query>` blocks when the message has them, else all of it. */
function userQuery(text: string): string {
  const queries = [...text.matchAll(/<user_query>([\s\S]*?)<\/user_query>/g)].map((match) => match[1].trim());
  return queries.length > 0 ? queries.join("\n") : text;
}
