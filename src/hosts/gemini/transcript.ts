import { type Message, withoutHostContext } from "../../types.ts";

/**
 * A Gemini CLI session file (`~/.gemini/tmp/<project hash>/chats/session-*.jsonl`, what its
 * `AfterAgent` hook names in `transcript_path`) as neutral messages, or null when `text` is not
 * one. Without this, extraction in Gemini CLI saw only the final answer its hook sends
 * (`prompt_response`), never what the user said.
 *
 * The format, from gemini-cli's chatRecordingService: a first line `{sessionId, projectHash, …}`;
 * message records `{id, timestamp, type, content}` where `type` is `user` or `gemini` (or `info`,
 * `error`, `warning`: not the conversation) and `content` is a string or a list of parts
 * `{text}`; a message written again under its id (as its reply streams in) replaces the earlier
 * copy in place; `{$rewindTo: id}` drops that message and everything after it; `{$set: {…}}`
 * updates the metadata, and with `messages` replaces the whole list (Gemini rewrites its history
 * that way when it compresses or rolls back). Older versions wrote one JSON object
 * `{sessionId, projectHash, messages}` to `session-*.json`; both are read. Gemini's own ids are kept, so the extraction cursor finds
 * the same message on the next read.
 *
 * What the user said is their own text only: Gemini adds hook output to the user's request as
 * `<hook_context>…</hook_context>` parts (memdir's own recalled memories among them) and its
 * environment as `<session_context>…</session_context>`, so those are dropped (`withoutHostContext`), and a record's `displayContent` (what the user typed) is preferred to its `content`.
 * Read as the user's words, memdir's context would be extracted again as new memories.
 */
export function messagesFromGeminiSession(
  text: string,
): { sessionId: string; messages: Message[]; skippedLines: number } | null {
  const whole = parseObject(text);
  if (whole !== null && isSessionMetadata(whole) && Array.isArray(whole.messages)) {
    return {
      sessionId: whole.sessionId,
      messages: whole.messages.flatMap((record) => messageOf(record) ?? []),
      skippedLines: 0,
    };
  }
  const lines = text.split("\n");
  const first = lines.find((line) => line.trim() !== "");
  const metadata = first === undefined ? null : parseObject(first);
  if (metadata === null || !isSessionMetadata(metadata)) return null;
  let { sessionId } = metadata;
  let skippedLines = 0;
  const records = new Map<string, Record<string, unknown>>();
  for (const line of lines) {
    if (line.trim() === "") continue;
    const record = parseObject(line);
    if (record === null) {
      skippedLines += 1;
      continue;
    }
    if (typeof record.$rewindTo === "string") {
      rewind(records, record.$rewindTo);
    } else if (typeof record.id === "string") {
      records.set(record.id, record);
    } else if (record.$set && typeof record.$set === "object") {
      const set = record.$set as Record<string, unknown>;
      if (typeof set.sessionId === "string") sessionId = set.sessionId;
      if (Array.isArray(set.messages)) {
        records.clear();
        for (const message of set.messages)
          if (message !== null && typeof message === "object" && typeof message.id === "string")
            records.set(message.id, message as Record<string, unknown>);
      }
    }
  }
  return {
    sessionId,
    messages: [...records.values()].flatMap((record) => messageOf(record) ?? []),
    skippedLines,
  };
}

function isSessionMetadata(
  record: Record<string, unknown>,
): record is { sessionId: string } & Record<string, unknown> {
  return typeof record.sessionId === "string" && typeof record.projectHash === "string";
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Drops the message `id` and every later one; all of them when `id` is unknown (as Gemini does). */
function rewind(records: Map<string, unknown>, id: string): void {
  if (!records.has(id)) {
    records.clear();
    return;
  }
  let found = false;
  for (const key of [...records.keys()]) {
    if (key === id) found = true;
    if (found) records.delete(key);
  }
}

function messageOf(record: unknown): Message | null {
  if (record === null || typeof record !== "object") return null;
  const { id, type, content, displayContent, timestamp } = record as Record<string, unknown>;
  const role = type === "user" ? "user" : type === "gemini" ? "assistant" : null;
  if (role === null || typeof id !== "string") return null;
  const text = role === "user" ? userText(displayContent, content) : textOf(content);
  if (text.trim() === "") return null;
  return { id, role, content: text, ...(typeof timestamp === "string" ? { timestamp } : {}) };
}

/** A content's text: the string, or its parts' text joined (function calls and data carry none). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) =>
      typeof part === "string"
        ? part
        : part !== null && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
    )
    .join("");
}

/** What the user typed (`displayContent`), else the request sent, without hook context either way. */
function userText(displayContent: unknown, content: unknown): string {
  const typed = withoutHostContext(textOf(displayContent));
  return typed.trim() !== "" ? typed : withoutHostContext(textOf(content));
}
