import fs from "node:fs/promises";
import { MemdirError } from "../errors.ts";
import { type Memdir, memdirFor } from "../memdir/instance.ts";
import { agentMemoryDir, type MemoryLocation } from "../memdir/location/paths.ts";
import type { HeaderCache } from "../memdir/scan/header-cache.ts";
import { type Clock, isRealUserMessage, type Message, messageText, type ReadFileState } from "../types.ts";
import { collectSurfacedMemories, SESSION_MEMORY_BUDGET_BYTES } from "./budget.ts";
import { cutQuery } from "./lexical/text/query-text.ts";
import { type RecallResult, recall, type SurfacedMemory } from "./recall.ts";
import type { Selector } from "./selector.ts";
import { DEFAULT_RECALL_K } from "./selector.ts";
import { isSingleWord } from "./words.ts";

/** What the agent loop hands the prefetch (its slice of the tool-use context). */
export interface PrefetchContext {
  /** The project's memory location (`resolveMemoryLocation`); `@agent-NAME` routes under its projectDir. */
  location: Pick<MemoryLocation, "memoryDir" | "projectDir"> & Partial<MemoryLocation>;
  selector: Selector;
  /** `resolveConfig(...).autoMemory`; default on. */
  autoMemory?: boolean;
  /** Files read or surfaced in this session; dropped before selection. */
  readFileState?: ReadFileState;
  /** The loop's abort signal: aborting it aborts the prefetch too. */
  signal?: AbortSignal;
  now?: Clock;
  scanCache?: HeaderCache | null;
  /** The session's instance: used for the scans of its own memory dir (see `openMemdir`). */
  memdir?: Memdir;
  /** At most this many memories (default 5). */
  k?: number;
  /** Session budget of surfaced memory (default 60 KB). */
  budgetBytes?: number;
  /** Told about failures, which never reach the loop (docs/design.md#the-prefetch: recall must not break a turn). */
  onError?: (error: unknown) => void;
}

/** What a prefetch settles to. It never rejects. */
export interface PrefetchResult {
  /** The memories to surface, each with its hidden message, before consumption de-duplicates. */
  memories: SurfacedMemory[];
  /** Why nothing was searched or surfaced (a gate, an abort, a failure); `null` after a search. */
  skipReason: string | null;
  /** The recall of each memory dir searched (for logs and `--explain`). */
  recalls: RecallResult[];
}

/**
 * A running prefetch. The agent loop checks `settledAt` after each iteration and consumes the
 * result once through {@link collectSettledMemories}; it must dispose the handle when the loop
 * ends (normally, on interrupt, or on error) — `using` or `try/finally` — which aborts a search
 * still running. `Symbol.dispose` is built into Node ≥ 20.4, so no polyfill is needed on 20.19.
 */
export interface MemoryPrefetch extends Disposable {
  /** Settles to the result; never rejects. */
  readonly promise: Promise<PrefetchResult>;
  /** Clock time the search settled, `null` while it runs. */
  settledAt: number | null;
  /** Loop iteration whose request carried the result, `null` until consumed. */
  consumedOnIteration: number | null;
  /** The settled result (same value as `promise`), readable without awaiting. */
  result: PrefetchResult | null;
  /** The child signal the search runs under; aborted by dispose or by the parent. */
  readonly signal: AbortSignal;
}

/** Why the prefetch does not search for this input, or the input to search for. */
export type PrefetchGate =
  | { skip: string }
  | { skip: null; input: string; surfacedPaths: Set<string>; surfacedBytes: number; recentTools: string[] };

/**
 * The prefetch gates (docs/design.md#prefetch-gates), pure: auto memory off; no real (non-meta) user message; an input
 * of a single word (counted with `Intl.Segmenter`, so `修复登录测试` is three words); or the memory
 * already surfaced in `messages` reached the session budget. Otherwise the input is the last real
 * user message's text only — never the whole conversation — cut by {@link cutQuery}
 * (docs/design.md#long-input).
 *
 * @example
 * prefetchGate([{ id: "1", role: "user", content: "hello" }], {}) // { skip: "single-word input" }
 */
export function prefetchGate(
  messages: readonly Message[],
  options: { autoMemory?: boolean; budgetBytes?: number } = {},
): PrefetchGate {
  if (options.autoMemory === false) return { skip: "auto memory is off" };
  const lastIndex = messages.findLastIndex(isRealUserMessage);
  if (lastIndex === -1) return { skip: "no real user message" };
  const input = cutQuery(messageText(messages[lastIndex]).trim());
  if (isSingleWord(input)) return { skip: "single-word input" };
  const budgetBytes = options.budgetBytes ?? SESSION_MEMORY_BUDGET_BYTES;
  const surfaced = collectSurfacedMemories(messages);
  if (surfaced.bytes >= budgetBytes) {
    return { skip: `session memory budget reached (${surfaced.bytes} of ${budgetBytes} bytes surfaced)` };
  }
  return {
    skip: null,
    input,
    surfacedPaths: surfaced.paths,
    surfacedBytes: surfaced.bytes,
    recentTools: recentSuccessfulTools(messages.slice(lastIndex + 1)),
  };
}

/** Names of tools whose calls in `messages` succeeded (the selector skips their usage notes). */
export function recentSuccessfulTools(messages: readonly Message[]): string[] {
  const nameById = new Map<string, string>();
  const succeeded = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_use") nameById.set(block.id, block.name);
      if (block.type === "tool_result" && !block.isError) {
        const name = nameById.get(block.toolUseId);
        if (name) succeeded.add(name);
      }
    }
  }
  return [...succeeded];
}

// `@agent-NAME` at the start or after whitespace; names as agent files spell them.
const AGENT_MENTION = /(?:^|\s)@agent-([A-Za-z0-9][A-Za-z0-9_-]*)/g;

/** Agent names mentioned as `@agent-NAME` in `text`, in order, without duplicates. */
export function agentMentions(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(AGENT_MENTION)) names.add(match[1]);
  return [...names];
}

/**
 * The memory dirs to search: each mentioned agent's own memory dir that exists (an agent with no
 * memory dir has nothing to recall, as in the original, where only agents with memory count),
 * else the project's auto-memory dir.
 */
export async function prefetchMemoryDirs(
  input: string,
  location: PrefetchContext["location"],
): Promise<string[]> {
  const dirs: string[] = [];
  for (const name of agentMentions(input)) {
    const dir = agentMemoryDir(location as MemoryLocation, name);
    const stat = await fs.stat(dir).catch(() => null);
    if (stat?.isDirectory()) dirs.push(dir);
  }
  return dirs.length > 0 ? dirs : [location.memoryDir];
}

/**
 * Starts the relevant-memory prefetch for the conversation's last real user message (docs/design.md#the-prefetch)
 * and returns at once: the agent loop calls this before its first model call and never waits.
 * The search runs under a child `AbortController` of `context.signal`; disposing the handle
 * aborts it, removes the listener on the parent, and settles the promise with an "aborted"
 * reason even when a selector ignores its signal.
 *
 * @example
 * using prefetch = startRelevantMemoryPrefetch(messages, { location, selector, readFileState, signal });
 * // … after each iteration's tool results:
 * nextMessages.push(...collectSettledMemories(prefetch, readFileState, iteration));
 */
export function startRelevantMemoryPrefetch(
  messages: readonly Message[],
  context: PrefetchContext,
): MemoryPrefetch {
  const now = context.now ?? Date.now;
  const gate = prefetchGate(messages, { autoMemory: context.autoMemory, budgetBytes: context.budgetBytes });
  if (gate.skip !== null) return settledHandle({ memories: [], skipReason: gate.skip, recalls: [] }, now);
  return new RunningPrefetch((signal) => searchMemories(gate, context, signal), context, now);
}

/**
 * Takes the prefetch's memories for the next model request, once (docs/design.md#consuming-the-prefetch): when the
 * handle has settled and was not consumed, drops memories whose path is already in
 * `readFileState` (read by the model, or surfaced earlier), records the kept ones there with
 * `source: "memory"`, marks the handle consumed on `iteration`, and returns their hidden
 * messages. Unsettled → `[]` at once; the loop checks again after its next iteration.
 *
 * @example
 * const memoryMessages = collectSettledMemories(prefetch, readFileState, iteration);
 */
export function collectSettledMemories(
  handle: MemoryPrefetch,
  readFileState: ReadFileState,
  iteration: number,
  now: Clock = Date.now,
): Message[] {
  if (handle.settledAt === null || handle.result === null || handle.consumedOnIteration !== null) return [];
  handle.consumedOnIteration = iteration;
  const kept: Message[] = [];
  for (const memory of handle.result.memories) {
    if (readFileState.has(memory.path)) continue;
    readFileState.set(memory.path, { readAt: now(), source: "memory" });
    kept.push(memory.message);
  }
  return kept;
}

async function searchMemories(
  gate: Extract<PrefetchGate, { skip: null }>,
  context: PrefetchContext,
  signal: AbortSignal,
): Promise<PrefetchResult> {
  const dirs = await prefetchMemoryDirs(gate.input, context.location);
  let remaining = context.k ?? DEFAULT_RECALL_K;
  let surfacedBytes = gate.surfacedBytes;
  const memories: SurfacedMemory[] = [];
  const recalls: RecallResult[] = [];
  // Sequential so the budget and the k slots carry from one dir to the next (several dirs only
  // when several agents are mentioned, which is rare).
  for (const memoryDir of dirs) {
    if (remaining <= 0) break;
    const result = await recall({
      memoryDir,
      query: gate.input,
      selector: context.selector,
      k: remaining,
      readFileState: context.readFileState,
      alreadySurfaced: gate.surfacedPaths,
      surfacedBytes,
      budgetBytes: context.budgetBytes,
      now: context.now,
      signal,
      scanCache: context.scanCache,
      memdir: memdirFor(context.memdir, memoryDir),
      recentTools: gate.recentTools,
    });
    recalls.push(result);
    memories.push(...result.memories);
    remaining -= result.memories.length;
    for (const memory of result.memories)
      surfacedBytes += Buffer.byteLength(memory.message.content as string);
  }
  return { memories, skipReason: null, recalls };
}

function settledHandle(result: PrefetchResult, now: Clock): MemoryPrefetch {
  return {
    promise: Promise.resolve(result),
    settledAt: now(),
    consumedOnIteration: null,
    result,
    signal: AbortSignal.abort(new MemdirError("aborted", "prefetch: skipped")),
    [Symbol.dispose]() {},
  };
}

class RunningPrefetch implements MemoryPrefetch {
  readonly promise: Promise<PrefetchResult>;
  settledAt: number | null = null;
  consumedOnIteration: number | null = null;
  result: PrefetchResult | null = null;
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal | undefined;
  readonly #onParentAbort = () => this.#controller.abort(this.#parent?.reason);

  constructor(work: (signal: AbortSignal) => Promise<PrefetchResult>, context: PrefetchContext, now: Clock) {
    this.#parent = context.signal;
    if (this.#parent?.aborted) this.#controller.abort(this.#parent.reason);
    else this.#parent?.addEventListener("abort", this.#onParentAbort, { once: true });
    const signal = this.#controller.signal;
    const aborted = new Promise<PrefetchResult>((resolve) => {
      const onAbort = () => resolve({ memories: [], skipReason: "aborted", recalls: [] });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    const guarded = (async (): Promise<PrefetchResult> => {
      try {
        return await work(signal);
      } catch (error) {
        if (signal.aborted) return { memories: [], skipReason: "aborted", recalls: [] };
        context.onError?.(error);
        const message = error instanceof Error ? error.message : String(error);
        return { memories: [], skipReason: `recall failed: ${message}`, recalls: [] };
      }
    })();
    // Racing the abort settles the handle promptly even when a selector ignores its signal.
    this.promise = Promise.race([guarded, aborted]).then((result) => {
      this.result = result;
      this.settledAt = now();
      this.#parent?.removeEventListener("abort", this.#onParentAbort);
      return result;
    });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  [Symbol.dispose](): void {
    this.#parent?.removeEventListener("abort", this.#onParentAbort);
    if (!this.#controller.signal.aborted) {
      this.#controller.abort(new MemdirError("aborted", "prefetch: disposed"));
    }
  }
}
