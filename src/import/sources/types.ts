import type { MemoryType } from "../../types.ts";

/**
 * What `memdir import` reads from another tool, before anything is written
 * (docs/design.md#import-and-export): one memory to be, in memdir's terms.
 */
export interface ImportCandidate {
  /**
   * Where it came from, stable across runs (`claude-mem:observation:42`, `mem0:<id>`): recorded as
   * the memory's `imported_from`, so a second import of the same source skips it.
   */
  key: string;
  /** How a user names it in a report (`claude-mem observation 42 "Login race fixed"`). */
  label: string;
  type: MemoryType;
  description: string;
  body: string;
  /** Index title; derived from the file name when omitted. */
  title?: string;
  /** When the source tool recorded it (ms since the epoch): kept as the memory's `modified`. */
  modifiedMs?: number | null;
  /**
   * The project the source names (claude-mem's `project` column); undefined when the source
   * belongs to whichever project is being imported into.
   */
  project?: string;
  /** Other frontmatter keys to keep (a memdir or Claude Code memory's own keys). */
  extra?: Record<string, unknown>;
  /**
   * The file name the source gave it (a note's own name): used when the memory dir has no file of
   * that name, so a memory keeps its name and the `[[links]]` to it hold.
   */
  fileName?: string;
}

/** Something in the source that was not imported, and why (the `skipped` of `--json`). */
export interface SkippedSource {
  source: string;
  reason: string;
}

/** What a reader found in one source. */
export interface SourceRead {
  candidates: ImportCandidate[];
  skipped: SkippedSource[];
}

/** What an import did (or, with `dryRun`, would do) in one memory dir. */
export interface ImportReport {
  /** Memory files written new. */
  imported: string[];
  /** Existing memory files a near-duplicate was merged into. */
  merged: string[];
  skipped: SkippedSource[];
}

/**
 * True for a skip reason that says the memory waits in the inbox (`memoryMode` review or manual)
 * rather than being left out.
 */
export function isWaitingForReview(reason: string): boolean {
  return /^(waits|would wait) for review as /.test(reason);
}

/** The source formats `memdir import` reads, one reader each. */
export const IMPORT_KINDS = [
  "claude-mem",
  "mcp-memory",
  "gemini",
  "qwen",
  "mem0",
  "markdown",
  "jsonl",
] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** True when `value` names one of {@link IMPORT_KINDS}. */
export function isImportKind(value: unknown): value is ImportKind {
  return typeof value === "string" && (IMPORT_KINDS as readonly string[]).includes(value);
}

/** What a reader may need besides its source path: side effects passed in. */
export interface ReaderContext {
  /** The user's home (for a source's default places). */
  home: string;
  /** The project being imported into, when there is one (Qwen keeps memory per project). */
  projectRoot: string | null;
}
