import type { Message } from "../types.ts";
import { surfacedMemoryPath } from "./surface.ts";

/**
 * At most this many headers go into the model selector's manifest (docs/design.md#model-selector).
 * Here, not in select-model.ts, so that `recall --explain`'s verdicts do not load zod (docs/design.md#lazy-entry).
 */
export const MODEL_MANIFEST_LIMIT = 200;

/** Session budget of surfaced memory: past this, the prefetch stops surfacing (docs/design.md#budgets). */
export const SESSION_MEMORY_BUDGET_BYTES = 60 * 1024;

/** What the conversation already holds of surfaced memory. */
export interface SurfacedMemories {
  /** Absolute paths of memories surfaced in these messages. */
  paths: Set<string>;
  /** UTF-8 bytes of those messages' content, wrapper included. */
  bytes: number;
}

/**
 * Collects the memories already surfaced in `messages`, counted from the messages themselves:
 * after compaction drops them, the budget and the de-duplication start over (docs/design.md#budgets).
 *
 * @example
 * const { paths, bytes } = collectSurfacedMemories(messages);
 * if (bytes >= SESSION_MEMORY_BUDGET_BYTES) skip();
 */
export function collectSurfacedMemories(messages: readonly Message[]): SurfacedMemories {
  const paths = new Set<string>();
  let bytes = 0;
  for (const message of messages) {
    const surfacedPath = surfacedMemoryPath(message);
    if (surfacedPath === null) continue;
    paths.add(surfacedPath);
    bytes += Buffer.byteLength(message.content as string, "utf8");
  }
  return { paths, bytes };
}
