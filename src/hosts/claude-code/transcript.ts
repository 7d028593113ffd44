import type { ContentBlock, Message } from "../../types.ts";

/**
 * Reads one line of a Claude Code session transcript (`{type: "user"|"assistant", uuid,
 * sessionId, isMeta?, message: {role, content}}`) as our neutral message, or null for the
 * lines that are not conversation (summaries, file snapshots, system notes). This lets
 * `memdir hook stop` and `memdir extract --transcript` work on the sessions of an agent that
 * runs memdir only through hooks.
 */
export function messageFromClaudeCodeLine(line: unknown): { message: Message; sessionId?: string } | null {
  if (!line || typeof line !== "object") return null;
  const record = line as Record<string, unknown>;
  if (record.type !== "user" && record.type !== "assistant") return null;
  const inner = record.message as Record<string, unknown> | undefined;
  if (!inner || typeof inner !== "object") return null;
  const role = inner.role === "assistant" ? "assistant" : inner.role === "user" ? "user" : null;
  if (!role) return null;
  const content = convertContent(inner.content);
  if (content === null) return null;
  const id = typeof record.uuid === "string" ? record.uuid : `cc-${Math.random().toString(36).slice(2)}`;
  const message: Message = {
    id,
    role,
    content,
    ...(record.isMeta === true ? { isMeta: true } : {}),
    ...(typeof record.timestamp === "string" ? { timestamp: record.timestamp } : {}),
  };
  return { message, ...(typeof record.sessionId === "string" ? { sessionId: record.sessionId } : {}) };
}

function convertContent(content: unknown): string | ContentBlock[] | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const blocks: ContentBlock[] = [];
  for (const raw of content) {
    if (!raw || typeof raw !== "object") continue;
    const block = raw as Record<string, unknown>;
    if (block.type === "text" && typeof block.text === "string")
      blocks.push({ type: "text", text: block.text });
    else if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string")
      blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} });
    else if (block.type === "tool_result" && typeof block.tool_use_id === "string")
      blocks.push({
        type: "tool_result",
        toolUseId: block.tool_use_id,
        content: toolResultText(block.content),
        ...(block.is_error === true ? { isError: true } : {}),
      });
    // Thinking blocks and images carry nothing extraction can save.
  }
  return blocks.length > 0 ? blocks : null;
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      part && typeof part === "object" && (part as { type?: unknown }).type === "text"
        ? String((part as { text?: unknown }).text ?? "")
        : "",
    )
    .filter((text) => text !== "")
    .join("\n");
}
