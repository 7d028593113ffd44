import type { ResolvedConfig } from "../config.ts";
import { applyExplicitMemory } from "../extract/explicit.ts";
import { explicitMemoryNotice } from "../extract/wire.ts";
import { openMemdir } from "../memdir/instance.ts";
import type { MemoryLocation } from "../memdir/paths.ts";
import { prefetchGate } from "../recall/prefetch.ts";
import { recall } from "../recall/recall.ts";
import type { Selector } from "../recall/selector.ts";
import type { Clock } from "../types.ts";

export interface UserPromptSubmitOptions {
  prompt: string;
  config: ResolvedConfig;
  location: MemoryLocation;
  /** Lexical offline, hybrid with a model; the entry point picks. */
  selector: Selector;
  now?: Clock;
  signal?: AbortSignal;
}

/**
 * The context a `UserPromptSubmit` hook adds for one prompt: first the explicit-memory rule
 * ("remember …" is saved at once, "forget …" removes the best match; a line says what was done),
 * then the memories recall picks for the prompt, each as the `<system-reminder>` block the
 * prefetch would send (docs/design.md#consuming-the-prefetch). `null` when auto memory is off or there is nothing to add.
 * The prefetch gates apply: a single-word prompt recalls nothing.
 *
 * @example
 * const context = await userPromptContext({ prompt, config, location, selector });
 */
export async function userPromptContext(options: UserPromptSubmitOptions): Promise<string | null> {
  const { config, location } = options;
  if (!config.autoMemory) return null;
  const parts: string[] = [];
  // One instance for the save and the recall of this prompt (the hook's process ends after it).
  const memdir = openMemdir(location.memoryDir, { watch: false, clock: options.now });
  const explicit = await applyExplicitMemory(options.prompt, {
    memoryDir: location.memoryDir,
    memdir,
    now: options.now,
  });
  const notice = explicitMemoryNotice(explicit);
  if (notice !== null) parts.push(`memdir: ${notice}`);

  const gate = prefetchGate([{ id: "hook-prompt", role: "user", content: options.prompt }], {
    autoMemory: config.autoMemory,
  });
  if (gate.skip === null) {
    const result = await recall({
      memoryDir: location.memoryDir,
      query: gate.input,
      selector: options.selector,
      now: options.now,
      signal: options.signal,
      memdir,
      // A memory saved from this very prompt is already known to the model: do not echo it back.
      alreadySurfaced: explicit.action === "saved" ? [explicit.path] : [],
    });
    for (const message of result.messages) parts.push(message.content as string);
  }
  return parts.length === 0 ? null : parts.join("\n\n");
}
