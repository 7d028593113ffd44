/**
 * What a history entry records. `snapshot` is the state recorded before a change when files had
 * changed since the last entry (saves, hand edits); `expire` and `reject` record an inbox proposal
 * dropped (no file changes); the rest name what made the change.
 */
export type HistoryKind = "snapshot" | "save" | "dream" | "dedupe" | "apply" | "undo" | "expire" | "reject";

export const HISTORY_KINDS: readonly HistoryKind[] = [
  "snapshot",
  "save",
  "dream",
  "dedupe",
  "apply",
  "undo",
  "expire",
  "reject",
];

/** One file a history entry changed, relative to the memory dir with `/` separators. */
export interface FileChange {
  file: string;
  change: "added" | "modified" | "deleted";
}

/** One recorded change to the memory dir. */
export interface HistoryEntry {
  /** A git commit hash (12 characters) or a journal entry id. */
  id: string;
  kind: HistoryKind;
  /** One line, without the `kind: ` prefix. */
  message: string;
  /** ISO time. */
  at: string;
  changes: FileChange[];
  /** The entry this one undid (undo entries only). */
  undoes?: string;
  /** The undo entry that reverted this one, when there is one. */
  undoneBy?: string;
}

/** How the history is kept: a git repository inside the memory dir, or a `.history/` journal. */
export type HistoryBackendName = "git" | "journal";

/** The kinds `memdir undo` picks by default (the newest not yet undone). */
export const UNDOABLE_BY_DEFAULT: readonly HistoryKind[] = ["dream", "dedupe", "apply", "save"];

/** Splits `kind: message` (the first line of a commit message or manifest message). */
export function parseKindPrefix(line: string): { kind: HistoryKind; message: string } {
  const match = /^([a-z]+):\s*(.*)$/.exec(line);
  if (match && (HISTORY_KINDS as readonly string[]).includes(match[1]))
    return { kind: match[1] as HistoryKind, message: match[2] };
  return { kind: "snapshot", message: line };
}

/** Memory files an entry touched (the index is not a memory): the `N` of `Improved N memories`. */
export function changedMemoryCount(entry: HistoryEntry | null): number {
  if (!entry) return 0;
  return entry.changes.filter((c) => !/(^|\/)MEMORY\.md$/.test(c.file)).length;
}

/**
 * The files an undo restores, in the order it restores them: memories first, `MEMORY.md` last,
 * so the index text the undo brings back is what stays (each memory's own write may touch it).
 */
export function restoreOrder(changes: readonly FileChange[]): FileChange[] {
  return [...changes].sort((a, b) => Number(a.file === "MEMORY.md") - Number(b.file === "MEMORY.md"));
}
