import type { Memdir } from "../memdir/instance.ts";
import type { MemoryHeader } from "../types.ts";

/** One selected memory, ranked: higher `score` first. */
/** At most this many memories per recall (docs/design.md#recall-pipeline). */
export const DEFAULT_RECALL_K = 5;

export interface MemoryPick {
  /** Path relative to the memory dir (same as `MemoryHeader.file`). */
  file: string;
  /** Selector-specific relevance; only comparable within one selection. */
  score: number;
  /** Human-readable why, for `recall --explain` (e.g. matched terms and fields). */
  reason: string;
}

/** What a selector is asked to choose from. */
export interface SelectionRequest {
  /** The query: for the prefetch, the last real user message's text only. */
  query: string;
  /** The candidates, newest first (recall has already left out what was read or surfaced). */
  headers: readonly MemoryHeader[];
  /** At most this many picks. */
  k: number;
  /** Absolute memory dir the headers belong to (selectors may read bodies from it). */
  memoryDir: string;
  /** The process's instance of that memory dir, whose caches a selector may keep its own in (the lexical index). */
  memdir?: Memdir;
  /** Tools used recently in the session; selectors skip their usage docs (docs/design.md#selectors). */
  recentTools?: string[];
  /**
   * The caller explains the selection (`recall --explain`): a selector that can rank every
   * candidate should fill `ranking` even when that costs a second pass. The picks never change.
   */
  explain?: boolean;
  /** When the query is asked, in ms (dates it names are resolved against it); default: now. */
  now?: number;
}

/** Why a selector gave no usable answer. `message` is one line, fit for `recall --explain`. */
export interface SelectionFailure {
  kind: string;
  message: string;
}

/** A selector's answer: its picks and what it can tell `recall --explain` beyond them. */
export interface Selection {
  /** At most `k` picks, best first. Empty is a valid answer ("nothing clearly helps"). */
  picks: MemoryPick[];
  /** The full ranking above the selector's relevance floor, best first (not cut at `k`). */
  ranking?: MemoryPick[];
  /** Files a model saw in its manifest (the rest were capped out); set when a model chose. */
  shownToModel?: string[];
  /** Why the picks came from a fallback (hybrid: the model failed, lexical picks used). */
  fallback?: string;
  /** The selector gave no usable answer and had no fallback, so `picks` is empty for that reason. */
  failure?: SelectionFailure;
}

/**
 * Ranks memories for a query. `name` is only reported (`recall --explain`, `--json`, eval);
 * nothing branches on it, so what a selector says about itself travels in its {@link Selection}.
 *
 * @example
 * const selector: Selector = {
 *   name: "newest",
 *   async select(request) {
 *     return { picks: request.headers.slice(0, request.k).map((h) => ({ file: h.file, score: 1, reason: "newest" })) };
 *   },
 * };
 */
export interface Selector<S extends Selection = Selection> {
  readonly name: string;
  /** Rejects only when `signal` aborts or the selector itself breaks (model trouble is a `failure`). */
  select(request: SelectionRequest, signal?: AbortSignal): Promise<S>;
}

/** What a selection says beyond its picks (kept by recall for `explainRecall`). */
export type SelectionDetails = Omit<Selection, "picks">;
