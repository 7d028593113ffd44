/**
 * What a history entry records. `snapshot` is the state recorded before a change when files had
 * changed since the last entry (unrecorded saves, hand edits); `expire` and `reject` record an
 * inbox proposal dropped (no file changes); the rest name what made the change: `add`, `forget`
 * and `rm` the CLI commands (`forget` also a "forget …" the prompt hook or an agent session
 * applied), `remember` an explicit "remember …" (`memdir remember`, the prompt hook, an agent
 * session), `extract` a background extraction's run, `sync` a sync's pull, `import` one `memdir import`, `save` the web view's edits and
 * deletions and the memory tools' writes (`memory_save`, `memory_update`, `memory_delete`).
 */
export type HistoryKind =
  | "snapshot"
  | "save"
  | "add"
  | "remember"
  | "extract"
  | "forget"
  | "rm"
  | "sync"
  | "import"
  | "dream"
  | "dedupe"
  | "apply"
  | "undo"
  | "expire"
  | "reject";

export const HISTORY_KINDS: readonly HistoryKind[] = [
  "snapshot",
  "save",
  "add",
  "remember",
  "extract",
  "forget",
  "rm",
  "sync",
  "import",
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

/**
 * A file's text just before and just after one entry: null where it did not exist; `after`
 * undefined when the history does not know it (journal entries written before it kept both).
 */
export interface EntryVersions {
  before: string | null;
  after: string | null | undefined;
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
  /** The command that made it (`memdir forget`), when the writer named one. */
  command?: string;
  /**
   * A tag its writer chose before recording it, to find the entry without knowing its id: a
   * sync's pull, or the apply of a sync's proposal (src/sync/undone-pulls.ts).
   */
  mark?: string;
}

/** How the history is kept: a git repository inside the memory dir, or a `.history/` journal. */
export type HistoryBackendName = "git" | "journal";

/**
 * The kinds `memdir undo` picks by default: the newest entry a command made that is not yet undone
 * (docs/design.md#undo). Not a `snapshot` (changes no command recorded: undone by id only),
 * not an `undo` (so repeated undos walk back), not the events that changed no file.
 */
export const UNDOABLE_BY_DEFAULT: readonly HistoryKind[] = [
  "dream",
  "dedupe",
  "apply",
  "save",
  "add",
  "remember",
  "extract",
  "forget",
  "rm",
  "sync",
  "import",
];

const COMMAND_OF_KIND: Readonly<Record<HistoryKind, string>> = {
  snapshot: "changes recorded before another command",
  save: "memdir ui",
  add: "memdir add",
  remember: "memdir remember",
  extract: "memdir extract",
  forget: "memdir forget",
  rm: "memdir rm",
  sync: "memdir sync",
  import: "memdir import",
  dream: "memdir dream",
  dedupe: "memdir dream",
  apply: "memdir inbox accept",
  undo: "memdir undo",
  expire: "memdir inbox",
  reject: "memdir inbox reject",
};

/** What made `entry`: the command its writer recorded, else the one its kind implies. */
export function commandOf(entry: HistoryEntry): string {
  return entry.command ?? COMMAND_OF_KIND[entry.kind];
}

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
