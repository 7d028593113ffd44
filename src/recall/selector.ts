import type { MemoryHeader } from "../types.ts";

/** One selected memory, ranked: higher `score` first. */
export interface Pick {
  /** Path relative to the memory dir (same as `MemoryHeader.file`). */
  file: string;
  /** Selector-specific relevance; only comparable within one selection. */
  score: number;
  /** Human-readable why, for `recall --explain` (e.g. matched terms and fields). */
  reason: string;
}

/** Options every selector receives. */
export interface SelectorOptions {
  /** Aborts the selection (prefetch dispose, timeouts). */
  signal?: AbortSignal;
  /** Tools used recently in the session; selectors skip their usage docs (docs/design.md#selectors). */
  recentTools?: string[];
  /** At most this many picks. */
  k: number;
  /** Absolute memory dir the headers belong to (selectors may read bodies from it). */
  memoryDir: string;
}

/**
 * Ranks memories for a query: returns at most `k` picks, best first. An empty
 * array is a valid answer ("nothing clearly helps").
 */
export type Selector = (query: string, headers: MemoryHeader[], options: SelectorOptions) => Promise<Pick[]>;
