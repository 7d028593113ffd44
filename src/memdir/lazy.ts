import type { MemoryHeader } from "../types.ts";
import type { MemoryLocation, MemoryLocationOptions } from "./paths.ts";
import type { CappedRead } from "./read.ts";
import type { ScanOptions } from "./scan.ts";
import type { SaveMemoryInput, SaveMemoryResult, WriteOptions } from "./write.ts";

/**
 * The root export's memory-dir functions (`import { saveMemory } from "memdir"`), each loading its
 * implementation on its first call instead of with `import("memdir")`: the writer alone pulls in
 * secrets, quarantine, anchors and the lock, and a program that only recalls never pays for it at
 * start-up (issue 17; docs/design.md#lazy-entry). Same signatures and behaviour as the functions
 * they load; the library itself calls those directly.
 */

/**
 * Where memory lives for a project; the implementation loads on the first call.
 *
 * @example
 * const location = await resolveMemoryLocation({ cwd: "/Users/me/shop", home: "/Users/me" });
 * location.memoryDir // "/Users/me/.claude/projects/-Users-me-shop/memory"
 */
export async function resolveMemoryLocation(options: MemoryLocationOptions = {}): Promise<MemoryLocation> {
  return (await import("./paths.ts")).resolveMemoryLocation(options);
}

/**
 * A memory file's text, capped at 200 lines / 4096 bytes; the implementation loads on the first call.
 *
 * @example
 * const { content, truncated } = await readMemoryCapped("/…/memory/feedback-real-database.md");
 */
export async function readMemoryCapped(
  filePath: string,
  options: { maxLines?: number; maxBytes?: number; memoryDir?: string } = {},
): Promise<CappedRead> {
  return (await import("./read.ts")).readMemoryCapped(filePath, options);
}

/**
 * The memory headers of a directory, newest first; the implementation loads on the first call.
 *
 * @example
 * const headers = await scanHeaders("/home/me/.claude/projects/-work-shop/memory", { limit: 200 });
 */
export async function scanHeaders(memoryDir: string, options: ScanOptions = {}): Promise<MemoryHeader[]> {
  return (await import("./scan.ts")).scanHeaders(memoryDir, options);
}

/**
 * Saves a new memory through the single writer; the implementation loads on the first call.
 *
 * @example
 * const saved = await saveMemory(memoryDir, { type: "feedback", description: "tests hit a real DB", body: "Why: …" });
 */
export async function saveMemory(
  memoryDir: string,
  input: SaveMemoryInput,
  options: WriteOptions = {},
): Promise<SaveMemoryResult> {
  return (await import("./write.ts")).saveMemory(memoryDir, input, options);
}

/**
 * Removes one memory file and its index lines; the implementation loads on the first call.
 *
 * @throws MemdirError("not-found") when neither the file nor an index line exists.
 * @example
 * await removeMemory(memoryDir, "feedback-old-rule.md");
 */
export async function removeMemory(
  memoryDir: string,
  file: string,
  options: WriteOptions = {},
): Promise<{ file: string; path: string }> {
  return (await import("./write.ts")).removeMemory(memoryDir, file, options);
}
