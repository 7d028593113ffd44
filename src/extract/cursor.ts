import path from "node:path";
import { realPathOfTarget } from "../agent/tools/write-file.ts";
import { isInside } from "../memdir/fs/inside.ts";
import type { Message } from "../types.ts";

/** Tools whose `file_path` input is written (docs/design.md#the-cursor-and-the-skip-rule: the skip rule looks for these). */
const WRITING_TOOLS = new Set(["Write", "Edit"]);

/**
 * The messages after the cursor (the id of the last message already processed). A null cursor,
 * or one whose message is gone (the conversation was compacted), means every message counts.
 *
 * @example
 * messagesAfterCursor(messages, "m3") // the messages after the one with id "m3"
 */
export function messagesAfterCursor(messages: readonly Message[], cursor: string | null): Message[] {
  if (cursor === null) return [...messages];
  const at = messages.findIndex((message) => message.id === cursor);
  return at === -1 ? [...messages] : messages.slice(at + 1);
}

/**
 * How many of `messages` the extraction prompt reports as new: hidden meta messages (the user
 * context, surfaced memories) are left out, since the user never wrote or saw them.
 */
export function countNewMessages(messages: readonly Message[]): number {
  return messages.filter((message) => !message.isMeta).length;
}

/**
 * Whether the main agent itself wrote into the memory dir in `messages`: an assistant `tool_use`
 * of Write/Edit whose `file_path` resolves (against `cwd`, then on real paths) inside the memory
 * dir. When it did, extraction skips these messages so nothing is saved twice (docs/design.md#the-cursor-and-the-skip-rule).
 *
 * @example
 * await mainAgentWroteMemory(newMessages, { memoryDir, cwd: "/Users/me/shop" }) // true after a Write to memory/
 */
export async function mainAgentWroteMemory(
  messages: readonly Message[],
  options: { memoryDir: string; cwd: string },
): Promise<boolean> {
  const memoryDir = path.resolve(options.memoryDir);
  let realMemoryDir: string | null = null;
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type !== "tool_use" || !WRITING_TOOLS.has(block.name)) continue;
      const filePath = (block.input as { file_path?: unknown } | null)?.file_path;
      if (typeof filePath !== "string" || filePath === "" || filePath.includes("\0")) continue;
      const target = path.resolve(options.cwd, filePath);
      if (isInside(memoryDir, target)) return true;
      // A symlink into the memory dir (or a differently spelled path to it) counts too.
      realMemoryDir ??= await realPathOfTarget(memoryDir);
      if (isInside(realMemoryDir, await realPathOfTarget(target))) return true;
    }
  }
  return false;
}
