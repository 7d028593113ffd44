import type { Message } from "../types.ts";
import type { ToolContext } from "./tools/spec.ts";

/** What a stop hook sees when the model ends a turn with no tool call. */
export interface StopHookContext {
  /** The whole conversation, final answer included. */
  messages: Message[];
  /** The auto-memory dir, or null when memory is off. */
  memoryDir: string | null;
  toolContext: ToolContext;
  /** Forked agents never run stop hooks; hooks may still check this. */
  isMainAgent: boolean;
  /** Prints a line for the user (e.g. `Saved 2 memories`); a UI may show it after the answer. */
  notify: (text: string) => void;
}

/** Runs after a turn (extraction, consolidation). Never awaited by the loop. */
export type StopHook = (context: StopHookContext) => Promise<void> | void;

/** What a before-model hook sees: the user message about to be answered. */
export interface BeforeModelContext {
  messages: Message[];
  /** The last real (non-meta) user message. */
  userMessage: Message;
  memoryDir: string | null;
  signal?: AbortSignal;
}

/** What a before-model hook may report (e.g. the offline "remember …" rule saved a file). */
export interface BeforeModelResult {
  /** Memory files saved, relative to the memory dir; the loop yields `memory_saved`. */
  saved?: string[];
  /** Lines for the user. */
  notices?: string[];
}

/** Runs before the first model call of a turn, awaited (it is fast and local: docs/design.md#explicit-remember's rule). */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook with nothing to report simply returns.
export type BeforeModelHook = (context: BeforeModelContext) => Promise<BeforeModelResult | undefined | void>;

/**
 * Hook points of the agent loop. Stop hooks are fire-and-forget: `runStopHooks` returns at
 * once, errors are logged, and `drain` lets an entry point wait for them before exiting.
 */
export interface HookRegistry {
  onStop(name: string, hook: StopHook): () => void;
  beforeModel(name: string, hook: BeforeModelHook): () => void;
  /** Removes the hooks registered under `name` (e.g. the explicit-memory rule, to show the model's own path). */
  off(name: string): void;
  /** Starts every stop hook in the background; never throws, never waits. */
  runStopHooks(context: StopHookContext): void;
  /** Runs the before-model hooks in order; a failing hook is logged and skipped. */
  runBeforeModel(context: BeforeModelContext): Promise<BeforeModelResult>;
  /** Resolves when running stop hooks finish, or after `timeoutMs` (default 60 s). */
  drain(timeoutMs?: number): Promise<void>;
}

/**
 * A hook registry. `log` receives hook failures (they never fail the user's turn).
 *
 * @example
 * const hooks = createHookRegistry();
 * hooks.onStop("extract", (context) => extractor.schedule(context));
 */
export function createHookRegistry(options: { log?: (message: string) => void } = {}): HookRegistry {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const stopHooks = new Map<string, StopHook>();
  const beforeModelHooks = new Map<string, BeforeModelHook>();
  const running = new Set<Promise<void>>();
  const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

  return {
    onStop(name, hook) {
      stopHooks.set(name, hook);
      return () => stopHooks.delete(name);
    },
    beforeModel(name, hook) {
      beforeModelHooks.set(name, hook);
      return () => beforeModelHooks.delete(name);
    },
    off(name) {
      stopHooks.delete(name);
      beforeModelHooks.delete(name);
    },
    runStopHooks(context) {
      for (const [name, hook] of stopHooks) {
        // Deferred to the next macrotask so even a synchronous hook cannot delay the answer.
        const run = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => hook(context))
          .catch((error: unknown) => log(`memdir: stop hook ${name} failed: ${describe(error)}`))
          .finally(() => running.delete(run));
        running.add(run);
      }
    },
    async runBeforeModel(context) {
      const merged: Required<BeforeModelResult> = { saved: [], notices: [] };
      for (const [name, hook] of beforeModelHooks) {
        try {
          const result = await hook(context);
          if (result?.saved) merged.saved.push(...result.saved);
          if (result?.notices) merged.notices.push(...result.notices);
        } catch (error) {
          log(`memdir: before-model hook ${name} failed: ${describe(error)}`);
        }
      }
      return merged;
    },
    async drain(timeoutMs = 60_000) {
      if (running.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      // Hooks started while draining (a trailing extraction) are waited for too.
      const all = (async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
      })();
      await Promise.race([all, timeout]);
      clearTimeout(timer);
    },
  };
}
