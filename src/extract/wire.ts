import type { BeforeModelHook, HookRegistry, StopHook } from "../agent/hooks.ts";
import { type Memdir, memdirFor } from "../memdir/instance.ts";
import type { ModelClient } from "../model/client.ts";
import { type ChangeRecorder, type Clock, type MemoryMode, messageText } from "../types.ts";
import { applyExplicitMemory, explicitMemoryNotice } from "./explicit.ts";
import { createExtractor, type ExtractionReport, type Extractor } from "./extractor.ts";

/** Hook names, so an embedder can tell them apart in logs. */
export const EXPLICIT_MEMORY_HOOK = "explicit-memory";
export const EXTRACTION_HOOK = "extract";

export interface MemoryHooksOptions {
  hooks: HookRegistry;
  /** The auto-memory dir, or null when auto memory is off (then nothing is installed). */
  memoryDir: string | null;
  /** The main agent's working directory (see `ExtractorOptions.cwd`). */
  cwd: string;
  /** The instance for `memoryDir` that the explicit rule and extraction scan with (default: private ones). */
  memdir?: Memdir;
  /** The model for background extraction; null (offline) → only the explicit "remember …" rule. */
  client: ModelClient | null;
  model?: string;
  /** Bare mode: no background extraction (the explicit rule still applies). */
  bare?: boolean;
  /** Set false to turn background extraction off while keeping the explicit rule. Default true. */
  extract?: boolean;
  now?: Clock;
  /** Extraction failures (default: stderr). */
  log?: (message: string) => void;
  /** User-visible lines from extraction (default: the loop's `notify`). */
  notify?: (text: string) => void;
  onReport?: (report: ExtractionReport) => void;
  /** `ResolvedConfig.memoryMode`: `manual` installs no extraction, `review` makes its writes proposals. */
  memoryMode?: MemoryMode;
  /** The session id stamped on what is saved (docs/design.md#provenance). */
  session?: string;
  /** Where anchors resolve (default: the memory dir's project marker). */
  projectRoot?: string | null;
  /**
   * Records each explicit save or removal, and each extraction run that writes, as one history
   * entry (see `ExplicitMemoryOptions.record`).
   */
  record?: ChangeRecorder;
}

export interface MemoryHooks {
  /** The background extractor, or null when extraction is off (offline, bare, or auto memory off). */
  extractor: Extractor | null;
  /** Waits for a running extraction (default 60 s); true when nothing is left running. */
  drain(timeoutMs?: number): Promise<boolean>;
  /** Unregisters the hooks and aborts a running extraction. */
  dispose(): void;
}

/**
 * The explicit-memory rule as a before-model hook (docs/design.md#explicit-remember): a user message that plainly asks to
 * remember (`记住：…`, `remember that …`) is saved at once, "forget …" removes the best match —
 * with or without a model, before the model is called. Only the user's own message is read.
 */
export function explicitMemoryHook(
  options: { now?: Clock; memdir?: Memdir; record?: ChangeRecorder } = {},
): BeforeModelHook {
  return async (context) => {
    if (context.memoryDir === null) return undefined;
    const result = await applyExplicitMemory(messageText(context.userMessage), {
      memoryDir: context.memoryDir,
      memdir: memdirFor(options.memdir, context.memoryDir),
      now: options.now,
      ...(options.record ? { record: options.record } : {}),
    });
    const notice = explicitMemoryNotice(result);
    return {
      saved: result.action === "saved" ? [result.file] : [],
      notices: notice ? [notice] : [],
    };
  };
}

/** The stop hook that hands the finished turn to the extractor (main agent only, docs/design.md#when-extraction-runs). */
export function extractionStopHook(extractor: Extractor): StopHook {
  return (context) => {
    if (!context.isMainAgent || context.memoryDir === null) return;
    return extractor.schedule({
      messages: context.messages,
      notify: context.notify,
      cwd: context.toolContext.cwd,
    });
  };
}

/**
 * Installs memdir's writing side on an agent loop's hooks: the explicit "remember …" rule before
 * each model call, and background extraction after each turn when a model is configured, not in
 * bare mode, and auto memory is on. Entry points call `drain()` (or `hooks.drain()`) before exit.
 *
 * @example
 * const memoryHooks = installMemoryHooks({ hooks, memoryDir: config.autoMemory ? location.memoryDir : null,
 *   client, bare: config.bare });
 * // … run turns …
 * await memoryHooks.drain(); // waits up to 60 s for a running extraction
 */
export function installMemoryHooks(options: MemoryHooksOptions): MemoryHooks {
  if (options.memoryDir === null) {
    return { extractor: null, drain: async () => true, dispose: () => {} };
  }
  const removers = [
    options.hooks.beforeModel(
      EXPLICIT_MEMORY_HOOK,
      explicitMemoryHook({ now: options.now, memdir: options.memdir, record: options.record }),
    ),
  ];
  let extractor: Extractor | null = null;
  if (
    options.client !== null &&
    !options.bare &&
    options.extract !== false &&
    options.memoryMode !== "manual"
  ) {
    extractor = createExtractor({
      memoryDir: options.memoryDir,
      cwd: options.cwd,
      memdir: options.memdir,
      client: options.client,
      model: options.model,
      now: options.now,
      log: options.log,
      notify: options.notify,
      onReport: options.onReport,
      memoryMode: options.memoryMode,
      session: options.session,
      projectRoot: options.projectRoot,
      ...(options.record ? { record: options.record } : {}),
    });
    removers.push(options.hooks.onStop(EXTRACTION_HOOK, extractionStopHook(extractor)));
  }
  return {
    extractor,
    drain: (timeoutMs) => extractor?.drain(timeoutMs) ?? Promise.resolve(true),
    dispose() {
      for (const remove of removers) remove();
      extractor?.dispose();
    },
  };
}
