import { MemdirError } from "../errors.ts";
import { withMemoryLock } from "../memdir/fs/lock.ts";
import { openFolderInside } from "../memdir/fs/open-safely.ts";
import type { ChangeRecorder, Clock } from "../types.ts";
import {
  gitAvailable,
  gitCommit,
  gitFullHash,
  gitHistoryExists,
  gitImportPack,
  gitLog,
  gitVersions,
  initGitHistory,
} from "./history-git.ts";
import { beginJournal, journalExists, journalLog, journalNote, journalVersions } from "./history-journal.ts";
import {
  type HistoryBackendName,
  type HistoryEntry,
  type HistoryKind,
  UNDOABLE_BY_DEFAULT,
} from "./history-types.ts";
import { applyUndoPlan, planUndo } from "./undo-plan.ts";

/**
 * "Never silently destroy" (docs/design.md#history): every change a consolidation makes is recorded
 * before it happens, so `memdir history` can show it and `memdir undo` can take it back.
 * With `git` on the PATH the memory dir gets its own repository (`.git` inside it); without,
 * a `.history/` journal keeps the prior version of every file a change touched.
 */
export interface HistoryOptions {
  now?: Clock;
  /** Force a backend for a dir that has none yet (default: git when available). */
  backend?: HistoryBackendName;
}

/** The backend a memory dir uses: the one it already has, else git when available, else the journal. */
export async function historyBackend(
  memoryDir: string,
  options: HistoryOptions = {},
): Promise<HistoryBackendName> {
  if ((await gitHistoryExists(memoryDir)) && gitAvailable()) return "git";
  if (await journalExists(memoryDir)) return "journal";
  if (options.backend) return options.backend;
  return gitAvailable() ? "git" : "journal";
}

/** A change being recorded: call `finish` once the files have changed (also after a failure). */
export interface PendingChange {
  readonly backend: HistoryBackendName;
  /** The `snapshot` entry recorded first, when files had changed since the last entry (git only). */
  readonly snapshot: HistoryEntry | null;
  /**
   * Records what changed since `begin`; null when nothing did. `madeFiles`: files the change
   * created that `begin` could not name (the journal watches only the `files` it was given).
   */
  finish(message: string, madeFiles?: readonly string[]): Promise<HistoryEntry | null>;
}

/** What {@link beginChange} records: the entry's kind, and the command that makes it. */
export interface ChangeOptions extends HistoryOptions {
  kind: HistoryKind;
  /** The command shown by `memdir history` and `memdir undo` (`memdir forget`); default: from the kind. */
  command?: string;
  /**
   * The files the change may touch, relative to the memory dir (the journal copies them first;
   * default: every memory file and the index). Git records whatever changed.
   */
  files?: string[];
  /**
   * A git pack of the blobs the change writes, from a repository that already holds them (a
   * sync's clone), or null. With git it is stored before the change's commit, so the files are
   * not compressed and written a second time; if it cannot be, the commit stores them itself.
   */
  objects?: () => Promise<Uint8Array | null>;
  /**
   * A tag the entry carries (`HistoryEntry.mark`), chosen by the writer before anything is
   * recorded, so it can find its entry without the id: also an entry recorded "failed part-way",
   * whose id never reaches it (a sync's pull: {@link undonePulls}).
   */
  mark?: string;
}

/**
 * Starts recording one change BEFORE it happens. With git, whatever changed since the last
 * commit (saves, hand edits) is committed first as a `snapshot`, so the change's own commit holds
 * only its own edits and undoing it never touches anything else. With the journal, the current
 * versions of `files` (every memory file and the index when omitted) are copied aside.
 *
 * @example
 * const pending = await beginChange(memoryDir, { kind: "dream" });
 * await consolidate();
 * const entry = await pending.finish("merged two memories about the login tests");
 */
export async function beginChange(memoryDir: string, options: ChangeOptions): Promise<PendingChange> {
  await assertRealMemoryDir(memoryDir);
  const backend = await historyBackend(memoryDir, options);
  const { command, mark } = options;
  // One line of the commit's body: a mark is a name (a proposal's id, a sync's hex), never text.
  if (mark !== undefined && !/^[A-Za-z0-9_-]{1,80}$/.test(mark))
    throw new MemdirError("invalid-input", `history: invalid mark ${JSON.stringify(mark)}`);
  if (backend === "git") {
    const body = [...(command ? [`Command: ${command}`] : []), ...(mark ? [`Mark: ${mark}`] : [])].join("\n");
    await initGitHistory(memoryDir);
    const snapshot = await gitCommit(memoryDir, "snapshot", `state before ${options.kind}`, {
      now: options.now,
    });
    return {
      backend,
      snapshot,
      finish: async (message) => {
        // Best effort: the commit below is the same with or without the pack, only slower without.
        const pack = await options.objects?.().catch(() => null);
        if (pack) await gitImportPack(memoryDir, pack).catch(() => undefined);
        return gitCommit(memoryDir, options.kind, message, {
          now: options.now,
          ...(body ? { body } : {}),
        });
      },
    };
  }
  const recording = await beginJournal(memoryDir, { files: options.files, now: options.now });
  return {
    backend,
    snapshot: null,
    finish: (message, madeFiles) =>
      recording.finish(options.kind, message, {
        ...(command ? { command } : {}),
        ...(mark ? { mark } : {}),
        files: madeFiles,
      }),
  };
}

/**
 * Refuses a memory dir that is a symbolic link before the history writes anything in it: the
 * writer refuses it too (docs/design.md#path-safety), and a history begun first would leave a
 * repository wherever the link points. A memory dir not made yet is fine (the change makes it).
 */
async function assertRealMemoryDir(memoryDir: string): Promise<void> {
  const folder = await openFolderInside(memoryDir, "").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  await folder?.close();
}

/**
 * Records one batch of changes as ONE history entry, so `memdir undo` takes the whole batch back
 * (docs/design.md#undo): runs `change` between {@link beginChange} and `finish`. The change is
 * recorded even when `change` throws (a half-done batch must be undoable too), then the error is
 * rethrown. With `lock`, the writer lock is held from before the recording starts until it is
 * finished, so no other writer's save lands in this entry (and an undo of it never takes that
 * save back); leave it off for long runs (a consolidation with a model) that must not block saves.
 *
 * @example
 * // a sync's pull: every file it writes, one entry
 * const { entry } = await recordChange(
 *   memoryDir,
 *   { kind: "sync", command: "memdir sync", message: "pulled 3 memories", lock: true },
 *   () => writePulledFiles(),
 * );
 */
export async function recordChange<T>(
  memoryDir: string,
  options: ChangeOptions & {
    message: string | ((result: T | undefined) => string);
    /** Files `change` created that `files` could not name beforehand (a memory saved under a new name). */
    madeFiles?: (result: T) => readonly string[];
    /** Hold the writer lock across the whole recording. */
    lock?: boolean;
  },
  change: () => Promise<T>,
): Promise<{ result: T; entry: HistoryEntry | null }> {
  const record = async () => {
    const pending = await beginChange(memoryDir, options);
    const messageFor = (result: T | undefined) =>
      typeof options.message === "function" ? options.message(result) : options.message;
    let result: T;
    try {
      result = await change();
    } catch (error) {
      await pending.finish(`${messageFor(undefined)} (failed part-way)`).catch(() => null);
      throw error;
    }
    const entry = await pending.finish(messageFor(result), options.madeFiles?.(result));
    return { result, entry };
  };
  return options.lock ? withMemoryLock(memoryDir, record) : record();
}

/**
 * The {@link ChangeRecorder} an entry point hands to the writers below the history (the explicit
 * "remember …" and "forget …", the memory tools, an extraction): each change is one entry made by
 * `command` (`memdir remember`, `memdir mcp (memory_save)`), recorded under the writer lock like
 * `memdir add`'s (an extraction's, a model's run, without it, as a consolidation's), so another
 * writer's save never lands in it and `memdir undo` takes back exactly it (docs/design.md#undo).
 *
 * @example
 * const record = changeRecorder({ command: "memdir mcp", now });
 * await record(memoryDir, { kind: "save", message: () => "saved x.md", files: ["x.md", "MEMORY.md"] }, save);
 */
export function changeRecorder(options: HistoryOptions & { command: string }): ChangeRecorder {
  return async (memoryDir, change, write) => {
    const { result } = await recordChange(
      memoryDir,
      {
        kind: change.kind,
        command: change.via ? `${options.command} (${change.via})` : options.command,
        message: change.message,
        ...(change.files ? { files: [...change.files] } : {}),
        ...(change.madeFiles ? { madeFiles: change.madeFiles } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.backend ? { backend: options.backend } : {}),
        lock: change.lock ?? true,
      },
      write,
    );
    return result;
  };
}

/**
 * A sync's pull as one history entry, as `memdir sync` records it (the `recordPull` of
 * src/sync/run.ts): `write` writes the pulled files under the writer lock, `files` is what it may
 * touch, `message` is asked once it is done (it counts what was written), `objects` the pulled
 * blobs as a pack when the sync has one, `mark` the tag the sync kept before the pull, by which it
 * notices later that the pull was undone ({@link undonePulls}), even one stopped part-way. Returns
 * the entry's id (null when nothing changed).
 */
export async function recordPull(
  memoryDir: string,
  change: {
    message: () => string;
    files: string[];
    objects?: () => Promise<Uint8Array | null>;
    mark: string;
  },
  write: () => Promise<void>,
): Promise<string | null> {
  const { message, files, objects, mark } = change;
  const { entry } = await recordChange(
    memoryDir,
    {
      kind: "sync",
      command: "memdir sync",
      message,
      files,
      mark,
      ...(objects ? { objects } : {}),
      lock: true,
    },
    write,
  );
  return entry?.id ?? null;
}

/**
 * Which of `marks` stand undone now, each with the files its undo put back (relative to the memory
 * dir): the `undonePulls` of src/sync/run.ts, so a sync decides those files against the base they
 * had before the pull instead of reading the undo as this machine's own edits (docs/design.md#undo,
 * docs/design.md#sync). A mark names the entry that carries it (`ChangeOptions.mark`: a pull, the
 * apply of a sync's proposal), or an entry by its id (a sync's state written before marks). An undo
 * that was itself undone leaves its entry standing. With git only the undo commits and the marked
 * ones are read (`--grep`), not the whole log with its file lists.
 *
 * @example
 * const undone = await undonePulls(memoryDir, ["5d1e9a0c7b2f"]); // Map { "5d1e9a0c7b2f" => ["project-ci.md", "MEMORY.md"] }
 */
export async function undonePulls(
  memoryDir: string,
  marks: readonly string[],
  options: HistoryOptions = {},
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (marks.length === 0) return found;
  const backend = await historyBackend(memoryDir, options);
  // Several --grep are any of them: the undos, and the entries that carry a mark.
  const read =
    backend === "git"
      ? await gitLog(memoryDir, ["--extended-regexp", "--grep=^Undoes: ", "--grep=^Mark: "])
      : (await journalLog(memoryDir)).filter(
          (entry) => entry.undoes !== undefined || entry.mark !== undefined,
        );
  const undoOf = new Map<string, HistoryEntry>();
  const idOf = new Map<string, string>();
  for (const entry of read) {
    if (entry.undoes) undoOf.set(entry.undoes, entry);
    // The oldest entry with a mark is the one the mark was chosen for.
    if (entry.mark) idOf.set(entry.mark, entry.id);
  }
  // An entry is undone when its undo stands, that is, is not undone in turn (an undo can be undone by id).
  const stands = (undo: HistoryEntry, depth: number): boolean => {
    const next = undoOf.get(undo.id);
    return next === undefined || depth > undoOf.size || !stands(next, depth + 1);
  };
  for (const mark of marks) {
    const undo = undoOf.get(idOf.get(mark) ?? mark);
    if (undo !== undefined && stands(undo, 0))
      found.set(
        mark,
        undo.changes.map((change) => change.file),
      );
  }
  return found;
}

/**
 * Records the memory dir's current state as one entry (git only: the journal cannot know prior
 * versions after the fact). Returns null with the journal or when nothing changed. For a writer
 * that records each save after making it.
 */
export async function commitHistory(
  memoryDir: string,
  message: string,
  options: HistoryOptions & { kind?: HistoryKind } = {},
): Promise<HistoryEntry | null> {
  if ((await historyBackend(memoryDir, options)) !== "git") return null;
  return gitCommit(memoryDir, options.kind ?? "save", message, { now: options.now });
}

/**
 * Records an event that changes no file, such as an inbox proposal expiring (never silently:
 * docs/design.md#the-inbox). With git, pending edits are committed first as a `snapshot`, so the
 * event's own entry holds nothing else.
 */
export async function recordEvent(
  memoryDir: string,
  kind: HistoryKind,
  message: string,
  options: HistoryOptions = {},
): Promise<HistoryEntry | null> {
  if ((await historyBackend(memoryDir, options)) === "journal")
    return journalNote(memoryDir, kind, message, options);
  await gitCommit(memoryDir, "snapshot", `state before ${kind}`, { now: options.now });
  return gitCommit(memoryDir, kind, message, { now: options.now, allowEmpty: true });
}

/** Every recorded change, newest first, each marked with the undo that reverted it (if any). */
export async function listHistory(memoryDir: string, options: HistoryOptions = {}): Promise<HistoryEntry[]> {
  const backend = await historyBackend(memoryDir, options);
  const entries = backend === "git" ? await gitLog(memoryDir) : await journalLog(memoryDir);
  const undoneBy = new Map<string, string>();
  for (const entry of entries) if (entry.undoes) undoneBy.set(entry.undoes, entry.id);
  return entries.map((entry) => {
    const by = undoneBy.get(entry.id);
    return by ? { ...entry, undoneBy: by } : entry;
  });
}

/**
 * The entry `id` names (a prefix of 4+ characters is enough), or the newest entry a command made
 * that is not yet undone (see `UNDOABLE_BY_DEFAULT`: snapshots and undos only by id).
 */
export function pickUndoTarget(entries: readonly HistoryEntry[], id?: string): HistoryEntry {
  if (id !== undefined) {
    const wanted = id.trim().toLowerCase();
    const matches = wanted.length >= 4 ? entries.filter((e) => e.id.toLowerCase().startsWith(wanted)) : [];
    if (matches.length === 0)
      throw new MemdirError("not-found", `undo: no history entry ${JSON.stringify(id)}`);
    if (matches.length > 1)
      throw new MemdirError("invalid-input", `undo: ${JSON.stringify(id)} matches several entries`);
    return matches[0];
  }
  const target = entries.find((e) => UNDOABLE_BY_DEFAULT.includes(e.kind) && !e.undoneBy);
  if (!target)
    throw new MemdirError("not-found", "undo: nothing to undo (no recorded change is left to undo)");
  return target;
}

/**
 * Undoes one recorded change as a new `undo` entry (history is never rewritten), exactly
 * (docs/design.md#undo): each memory file it changed gets back its text from before it, byte for
 * byte (what it added is removed, what it removed comes back); `MEMORY.md` gets back only the
 * lines it changed, so later unrelated lines stay. When a later change touched one of those
 * files (or index lines), it is refused with a `MemdirError("invalid-input")` naming that later
 * entry, and nothing is written. Runs under the writer lock so no save interleaves.
 *
 * @example
 * const { undone } = await undoChange(memoryDir); // the newest recorded change not yet undone
 */
export async function undoChange(
  memoryDir: string,
  id?: string,
  options: HistoryOptions = {},
): Promise<{ undone: HistoryEntry; entry: HistoryEntry | null }> {
  return withMemoryLock(memoryDir, async () => {
    const backend = await historyBackend(memoryDir, options);
    // The target is picked before anything is recorded: an undo with nothing to undo (or an
    // unknown id) leaves the history as it found it, without a stray "state before undo".
    const recorded = await listHistory(memoryDir, options);
    const target = pickUndoTarget(recorded, id);
    if (target.undoneBy)
      throw new MemdirError("invalid-input", `undo: ${target.id} was already undone by ${target.undoneBy}`);
    // Hand edits and unrecorded saves become a snapshot first: an undo refused because of them can name it.
    const snapshot =
      backend === "git"
        ? await gitCommit(memoryDir, "snapshot", "state before undo", { now: options.now })
        : null;
    const entries = snapshot ? [snapshot, ...recorded] : recorded;
    const newer = entries.slice(0, entries.indexOf(target));
    // The entry's full hash, asked of git once: the versions and the undo's `Undoes:` line use it.
    const fullHash = backend === "git" ? await gitFullHash(memoryDir, target.id) : null;
    const versionsOf =
      fullHash !== null ? gitVersions(memoryDir, fullHash) : journalVersions(memoryDir, target);
    const plan = await planUndo(memoryDir, target, newer, versionsOf);
    const message = `${target.kind}: ${target.message}`;
    if (backend === "git") {
      await applyUndoPlan(memoryDir, plan);
      const body = `Undoes: ${fullHash}`;
      return {
        undone: target,
        entry: await gitCommit(memoryDir, "undo", message, { body, now: options.now }),
      };
    }
    const recording = await beginJournal(memoryDir, {
      files: target.changes.map((change) => change.file),
      now: options.now,
    });
    await applyUndoPlan(memoryDir, plan);
    return { undone: target, entry: await recording.finish("undo", message, { undoes: target.id }) };
  });
}
