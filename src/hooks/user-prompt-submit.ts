import type { ResolvedConfig } from "../config.ts";
import type { ExplicitMemoryResult } from "../extract/explicit.ts";
import { parseExplicitMemory } from "../extract/explicit-intent.ts";
import { type Memdir, openMemdir } from "../memdir/instance.ts";
import type { MemoryLocation } from "../memdir/location/paths.ts";
import { prefetchGate } from "../recall/prefetch.ts";
import { recall } from "../recall/recall.ts";
import type { Selector } from "../recall/selector.ts";
import type { Clock } from "../types.ts";
import type { ContextPart } from "./context-limit.ts";

export interface UserPromptSubmitOptions {
  prompt: string;
  config: ResolvedConfig;
  location: MemoryLocation;
  /** Lexical offline, hybrid with a model; the entry point picks. */
  selector: Selector;
  now?: Clock;
  signal?: AbortSignal;
  /**
   * The instance to scan and recall with (default: one of its own, whose cache saves are then
   * left to run in the background); the hook passes its own and waits for them after answering.
   */
  memdir?: Memdir;
  /**
   * Apply the explicit-memory rule ("remember …" saved at once). Off when the host's own memory
   * saves it (docs/design.md#coexistence): one "remember" must not become two memories.
   */
  explicitSaves?: boolean;
  /** The host's session id: a "remember …" saved here records it, as a transcript's saves do. */
  sessionId?: string;
  /** Memories this session was already shown (the hook's session ledger): never shown again. */
  alreadySurfaced?: Iterable<string>;
  /** Bytes of memory this session was already shown, counted against the session budget. */
  surfacedBytes?: number;
}

const WRAPPER = /^<system-reminder>([\s\S]*)<\/system-reminder>$/;

/**
 * The context a `UserPromptSubmit` hook adds for one prompt, as parts for `fitHookContext`: first
 * the explicit-memory rule ("remember …" is saved at once, "forget …" removes the best match; a
 * line says what was done) unless `explicitSaves` is false, then the memories recall picks for the
 * prompt, each `HEADER\n\nCONTENT` as the prefetch would send it (docs/design.md#consuming-the-prefetch)
 * but without the `<system-reminder>` wrapper: the host adds its own. Empty when auto memory is
 * off or there is nothing to add. The prefetch gates apply: a single-word prompt recalls nothing.
 *
 * @example
 * const context = fitHookContext(await userPromptContext({ prompt, config, location, selector }));
 */
export async function userPromptContext(options: UserPromptSubmitOptions): Promise<ContextPart[]> {
  const { config, location } = options;
  if (!config.autoMemory) return [];
  const parts: ContextPart[] = [];
  // One instance for the save and the recall of this prompt (the hook's process ends after it).
  const memdir = options.memdir ?? openMemdir(location.memoryDir, { watch: false, clock: options.now });
  const explicit =
    options.explicitSaves === false ? null : await explicitMemory(options.prompt, memdir, options);
  if (explicit !== null && explicit.notice !== null)
    parts.push({ text: `memdir: ${explicit.notice}${savedAlready(explicit.result)}` });

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
      alreadySurfaced: [
        ...(options.alreadySurfaced ?? []),
        ...(explicit?.result.action === "saved" ? [explicit.result.path] : []),
      ],
      surfacedBytes: options.surfacedBytes,
    });
    for (const memory of result.memories) {
      const content = memory.message.content as string;
      parts.push({ text: WRAPPER.exec(content)?.[1] ?? content, path: memory.path });
    }
  }
  return parts;
}

/**
 * The explicit-memory rule for one prompt, or null when the prompt asks for nothing. The writer
 * (and the secret, quarantine and proposal checks it runs) and the history load only for a prompt
 * that asks to remember or forget: most prompts do not, and a hook process per prompt should not
 * pay for it.
 */
async function explicitMemory(
  prompt: string,
  memdir: Memdir,
  options: UserPromptSubmitOptions,
): Promise<{ result: ExplicitMemoryResult; notice: string | null } | null> {
  if (parseExplicitMemory(prompt) === null) return null;
  const [{ applyExplicitMemory, explicitMemoryNotice }, { changeRecorder }] = await Promise.all([
    import("../extract/explicit.ts"),
    import("../dream/history.ts"),
  ]);
  const result = await applyExplicitMemory(prompt, {
    memoryDir: options.location.memoryDir,
    memdir,
    now: options.now,
    origin: {
      source: "user",
      projectRoot: options.location.projectRoot,
      ...(options.sessionId ? { session: options.sessionId } : {}),
    },
    // One history entry per save or removal, so `memdir undo` takes back exactly it (docs/design.md#undo).
    record: changeRecorder({
      command: "memdir hook user-prompt-submit",
      ...(options.now ? { now: options.now } : {}),
    }),
  });
  return { result, notice: explicitMemoryNotice(result) };
}

/**
 * What the model is told after the hook saved a "remember …" (docs/design.md#one-explicit-save):
 * the rules say to save such a request at once, so without this it saves the same memory a second
 * time with its memory tool.
 */
function savedAlready(result: ExplicitMemoryResult): string {
  return result.action === "saved"
    ? ". This request is already saved: do not save it again; change that memory only if the user adds to it."
    : "";
}
