import type { ResolvedConfig } from "../config.ts";

// On its own: session start checks it before loading anything else of sync (docs/design.md#the-prompt-hook-process).

/**
 * Whether `sync.auto` is on: `{"sync": {"auto": true}}` in the user's settings only. A project's
 * settings cannot turn it on: a cloned repository must not start pushing the user's memory.
 */
export function syncAutoEnabled(config: ResolvedConfig): boolean {
  const sync = (config.userSettings as { sync?: unknown }).sync;
  return Boolean(sync && typeof sync === "object" && (sync as { auto?: unknown }).auto === true);
}
