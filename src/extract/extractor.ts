import type { LoopEvent } from "../agent/loop.ts";
import type { ToolSpec } from "../agent/tools/spec.ts";
import type { Memdir } from "../memdir/instance.ts";
import type { ModelClient } from "../model/client.ts";
import type { ChangeRecorder, Clock, MemoryMode, Message } from "../types.ts";
import { countNewMessages, mainAgentWroteMemory, messagesAfterCursor } from "./cursor.ts";
import { type ExtractionRunResult, extractionNotice, runExtraction } from "./run-extraction.ts";

/** docs/design.md#when-extraction-runs: on exit, a running extraction gets this long to finish. */
export const EXTRACTION_DRAIN_TIMEOUT_MS = 60_000;

export interface ExtractorOptions {
  memoryDir: string;
  /** The session's instance for `memoryDir` (default: each run scans with a private one). */
  memdir?: Memdir;
  client: ModelClient;
  model?: string;
  /**
   * The main agent's working directory (a request's `cwd` wins): where the relative paths of its
   * writes resolve when the skip rule looks for a write into the memory dir.
   */
  cwd: string;
  tools?: readonly ToolSpec[];
  maxTurns?: number;
  now?: Clock;
  /** Failures go here (default: stderr). They never fail the user's turn. */
  log?: (message: string) => void;
  /** The user-visible line after a run (`Saved 1 memory`); default: the request's `notify`. */
  notify?: (text: string) => void;
  /** Every outcome, for UIs, `--json` output and tests. */
  onReport?: (report: ExtractionReport) => void;
  /** Sees the fork's events. */
  onEvent?: (event: LoopEvent) => void;
  /** Aborting it aborts a running extraction. */
  signal?: AbortSignal;
  /** Start from this cursor (a message id) instead of the beginning. */
  cursor?: string | null;
  /** `ResolvedConfig.memoryMode` (default `auto`; docs/design.md#memory-modes). */
  memoryMode?: MemoryMode;
  /** The session id stamped on what the runs write. */
  session?: string;
  /** Where anchors resolve (default: the memory dir's project marker). */
  projectRoot?: string | null;
  /** Records each run that writes as one history entry (see `ExtractionRunOptions.record`). */
  record?: ChangeRecorder;
}

/** What the stop hook hands over: the conversation as it stands when a turn ended. */
export interface ExtractionRequest {
  messages: readonly Message[];
  notify?: (text: string) => void;
  /** The main agent's working directory for this conversation (see `ExtractorOptions.cwd`). */
  cwd?: string;
}

/** The outcome of one pass over a request. */
export type ExtractionReport =
  | { status: "done"; newMessages: number; notice: string | null; result: ExtractionRunResult }
  | { status: "failed"; newMessages: number; error: Error; result: ExtractionRunResult }
  /** The main agent wrote into the memory dir itself since the cursor: nothing to do, cursor advanced. */
  | { status: "skipped"; newMessages: number; reason: "main-agent-wrote-memory" }
  /** Nothing after the cursor. */
  | { status: "up-to-date"; newMessages: 0 };

/** Background extraction with a cursor, the skip rule and coalescing (docs/design.md#extraction). */
export interface Extractor {
  /**
   * Starts an extraction for the conversation in `request`, or, while one runs, stores the request
   * (the latest wins) for exactly one trailing run. Resolves when the extractor is idle again;
   * never rejects. The stop hook calls this and does not wait.
   */
  schedule(request: ExtractionRequest): Promise<void>;
  /** Waits for a running extraction (and its trailing run) up to `timeoutMs`; true when idle. */
  drain(timeoutMs?: number): Promise<boolean>;
  /** Aborts a running extraction and drops a stored request. */
  dispose(): void;
  /** Id of the last message processed, or null before the first successful run. */
  readonly cursor: string | null;
  readonly running: boolean;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** What the steps of one extractor share. */
interface ExtractorState {
  readonly options: ExtractorOptions;
  readonly log: (message: string) => void;
  /** Aborted by `dispose` or by the caller's signal; every run gets its signal. */
  readonly controller: AbortController;
  cursor: string | null;
  /** The latest request that arrived during a run: the one trailing run. */
  pending: ExtractionRequest | null;
  /** Set while a run (and its trailing run) goes on; resolves when the extractor is idle. */
  idle: Promise<void> | null;
}

/** Hands `value` to `onReport`; a failing handler is logged, never thrown. */
function report(state: ExtractorState, value: ExtractionReport): void {
  try {
    state.options.onReport?.(value);
  } catch (error) {
    state.log(`memdir: extraction report handler failed: ${asError(error).message}`);
  }
}

/** One pass over a request: the cursor, the skip rule, the extraction, the cursor advanced on success. */
async function processRequest(state: ExtractorState, request: ExtractionRequest): Promise<void> {
  const { options, controller } = state;
  const last = request.messages.at(-1);
  if (last === undefined) return;
  const fresh = messagesAfterCursor(request.messages, state.cursor);
  if (fresh.length === 0) {
    report(state, { status: "up-to-date", newMessages: 0 });
    return;
  }
  const newMessages = countNewMessages(fresh);
  const cwd = request.cwd ?? options.cwd;
  if (await mainAgentWroteMemory(fresh, { memoryDir: options.memoryDir, cwd })) {
    state.cursor = last.id;
    report(state, { status: "skipped", newMessages, reason: "main-agent-wrote-memory" });
    return;
  }
  const result = await runExtraction({
    messages: request.messages,
    newMessageCount: newMessages,
    memoryDir: options.memoryDir,
    memdir: options.memdir,
    client: options.client,
    model: options.model,
    tools: options.tools,
    maxTurns: options.maxTurns,
    signal: controller.signal,
    now: options.now,
    onEvent: options.onEvent,
    memoryMode: options.memoryMode,
    session: options.session,
    projectRoot: options.projectRoot,
    ...(options.record ? { record: options.record } : {}),
  });
  if (!result.ok) {
    const error = result.error ?? new Error("extraction failed");
    if (!controller.signal.aborted) state.log(`memdir: extraction failed: ${error.message}`);
    report(state, { status: "failed", newMessages, error, result });
    return;
  }
  state.cursor = last.id;
  const notice = extractionNotice(result);
  if (notice) (options.notify ?? request.notify)?.(notice);
  report(state, { status: "done", newMessages, notice, result });
}

/** Runs `first`, then the request that arrived meanwhile, until none did. */
async function runUntilIdle(state: ExtractorState, first: ExtractionRequest): Promise<void> {
  let next: ExtractionRequest | null = first;
  while (next !== null && !state.controller.signal.aborted) {
    state.pending = null;
    try {
      await processRequest(state, next);
    } catch (error) {
      state.log(`memdir: extraction failed: ${asError(error).message}`);
    }
    // Whatever arrived during the run (only the latest) becomes the one trailing run.
    next = state.pending;
  }
  // Cleared in the same synchronous step as the last look at `pending`, so a request arriving
  // now starts a new run instead of waiting for a loop that has already decided to stop.
  state.pending = null;
  state.idle = null;
}

/** True once `idle` settles, false after `timeoutMs` (the timer keeps no process alive). */
async function settlesWithin(idle: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  const finished = idle.then(() => true as const);
  const outcome = await Promise.race([finished, timedOut]);
  clearTimeout(timer);
  return outcome;
}

/**
 * Creates the background extractor of one session.
 *
 * - Only messages after the cursor count; the cursor advances only when a run succeeds (or is
 *   skipped), so a failed run's messages are covered again by the next one. A cursor whose
 *   message is gone (compaction) counts everything.
 * - When the main agent wrote into the memory dir since the cursor, the run is skipped.
 * - One run at a time: requests arriving meanwhile are coalesced into one trailing run.
 *
 * @example
 * const extractor = createExtractor({ memoryDir, client, log: console.error });
 * hooks.onStop("extract", (context) => extractor.schedule({ messages: context.messages, notify: context.notify }));
 * await extractor.drain(); // before exiting
 */
export function createExtractor(options: ExtractorOptions): Extractor {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  else options.signal?.addEventListener("abort", onParentAbort, { once: true });
  const state: ExtractorState = {
    options,
    log: options.log ?? ((message: string) => process.stderr.write(`${message}\n`)),
    controller,
    cursor: options.cursor ?? null,
    pending: null,
    idle: null,
  };

  return {
    schedule(request) {
      if (controller.signal.aborted) return Promise.resolve();
      if (state.idle !== null) {
        state.pending = request;
        return state.idle;
      }
      // runUntilIdle always awaits before it finishes, so `idle` is set before it is cleared.
      state.idle = runUntilIdle(state, request);
      return state.idle;
    },
    async drain(timeoutMs = EXTRACTION_DRAIN_TIMEOUT_MS) {
      return state.idle === null ? true : settlesWithin(state.idle, timeoutMs);
    },
    dispose() {
      state.pending = null;
      options.signal?.removeEventListener("abort", onParentAbort);
      controller.abort();
    },
    get cursor() {
      return state.cursor;
    },
    get running() {
      return state.idle !== null;
    },
  };
}
