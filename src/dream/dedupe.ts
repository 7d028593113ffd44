import path from "node:path";
import { throwIfAborted } from "../errors.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { applyIndexChanges, INDEX_FILE, type IndexEntry, parseIndex } from "../memdir/format/index-file.ts";
import { readRegularText } from "../memdir/fs/regular-file.ts";
import { scanHeaders } from "../memdir/scan/scan.ts";
import {
  removeMemory,
  type SaveMemoryInput,
  saveMemoriesTogether,
  updateIndex,
  withWriterHeld,
} from "../memdir/write/write.ts";
import type { Clock, ProgressSink } from "../types.ts";
import {
  type DuplicateGroup,
  describeGroups,
  findDuplicateGroups,
  type MemoryDocument,
} from "./dedupe-groups.ts";
import { recordChange } from "./history.ts";
import type { HistoryEntry } from "./history-types.ts";
import { changedSincePlanned } from "./proposal.ts";

/**
 * The offline duplicate merge carried out (docs/design.md#consolidation): memories read, the plan
 * of `dedupe-groups.ts` applied through the single writer, recorded in the history.
 */

/**
 * Reads every memory with a valid type and description (others are left alone). A `signal` that
 * aborts stops the reading (`MemdirError("aborted")`): nothing has changed yet.
 */
export async function loadMemoryDocuments(
  memoryDir: string,
  signal?: AbortSignal,
  progress?: ProgressSink,
): Promise<MemoryDocument[]> {
  const headers = await scanHeaders(memoryDir, { cache: null, signal });
  const indexText = await readRegularText(path.join(memoryDir, INDEX_FILE)).catch(() => "");
  const indexed = new Set(parseIndex(indexText).map((entry) => entry.file));
  const documents: MemoryDocument[] = [];
  for (const [done, header] of headers.entries()) {
    throwIfAborted(signal, "consolidation");
    // Once per 256 memories and at the end, not per file (docs/design.md#progress).
    if ((done + 1) % 256 === 0 || done + 1 === headers.length)
      progress?.("reading memories", done + 1, headers.length);
    const text = await readRegularText(header.path).catch(() => null);
    if (text === null) continue;
    const parsed = parseFrontmatter(text);
    if (!parsed.type || !parsed.description) continue;
    documents.push({
      file: header.file,
      type: parsed.type,
      description: parsed.description,
      body: parsed.body,
      mtimeMs: header.mtimeMs,
      indexed: indexed.has(header.file),
      text,
    });
  }
  return documents;
}

/** What applying a plan did: the groups merged, and the files left alone because they changed. */
export interface AppliedGroups {
  /** The groups carried out. */
  applied: DuplicateGroup[];
  merged: string[];
  removed: string[];
  /**
   * Files that changed between the plan and its application (a save, an edit, a removal): their
   * groups are not applied, nothing of them is touched.
   */
  leftAlone: string[];
  /**
   * True when the signal stopped the run between two groups: the groups in `applied` were carried
   * out whole, the rest not at all.
   */
  cancelled: boolean;
}

/**
 * Groups carried out per hold of the writer lock, with one `MEMORY.md` write for the survivors'
 * lines and one for the copies'. Once per group, reading, checking and rewriting the index made
 * the merge quadratic: at 20,000 memories each of ~1,000 groups rewrote a 20,000-line index
 * (docs/benchmarks.md, "Whole commands at 20,000 memories"). Bounded, so other writers wait for
 * one batch, not the whole run.
 */
export const GROUPS_PER_INDEX_WRITE = 64;

/**
 * Carries out the groups through the single writer: the survivor is saved, the copies removed with
 * their index lines. A group is applied only when every one of its files still holds the text the
 * plan was made from ({@link changedSincePlanned}, the check of `dream --apply`), checked under the
 * writer lock: the plan is made without the lock, and a memory re-saved meanwhile must not be
 * merged away (docs/design.md#the-consolidation-run). The groups go in batches of
 * {@link GROUPS_PER_INDEX_WRITE} under one hold of the lock. A `signal` that aborts stops it
 * between two groups (the groups begun are finished: their copies' lines and files go at the end
 * of the batch), with `cancelled` set: a SIGTERM never leaves a half-merged group
 * (docs/design.md#the-consolidation-run). `progress` counts the groups done.
 */
export async function applyDuplicateGroups(
  memoryDir: string,
  groups: readonly DuplicateGroup[],
  signal?: AbortSignal,
  progress?: ProgressSink,
): Promise<AppliedGroups> {
  const result: AppliedGroups = { applied: [], merged: [], removed: [], leftAlone: [], cancelled: false };
  let done = 0;
  for (let start = 0; start < groups.length && !result.cancelled; start += GROUPS_PER_INDEX_WRITE) {
    const batch = groups.slice(start, start + GROUPS_PER_INDEX_WRITE);
    await withWriterHeld(memoryDir, async () => {
      const saved: DuplicateGroup[] = [];
      try {
        // The index as the batch begins: each group reads only its own files' lines, which no
        // other group of the batch touches (groups never share a file).
        const entries = parseIndex(await readRegularText(path.join(memoryDir, INDEX_FILE)).catch(() => ""));
        await saveMemoriesTogether(memoryDir, async (save) => {
          for (const group of batch) {
            if (signal?.aborted) {
              result.cancelled = true;
              break;
            }
            const files = [group.keep, ...group.remove];
            const changed = await changedSincePlanned(
              memoryDir,
              files.map((file) => ({ file, before: group.before[file] ?? null })),
            );
            if (changed.length > 0) result.leftAlone.push(...changed);
            else {
              await saveSurvivor(save, entries, group);
              saved.push(group);
            }
            progress?.("merging duplicates", ++done, groups.length);
          }
        });
      } finally {
        // Also after a failed save: the groups whose survivor was saved lose their copies, so
        // none is left half-merged.
        await removeCopies(memoryDir, saved);
        for (const group of saved) {
          result.applied.push(group);
          result.merged.push(group.keep);
          result.removed.push(...group.remove);
        }
      }
    });
  }
  return result;
}

/** Saves a group's survivor with the merged body, and an index line when it had none. */
async function saveSurvivor(
  save: (input: SaveMemoryInput) => Promise<unknown>,
  entries: readonly IndexEntry[],
  group: DuplicateGroup,
): Promise<void> {
  const needsIndexLine = !entries.some((e) => e.file === group.keep);
  if (parseFrontmatter(group.before[group.keep]).body === group.mergedBody && !needsIndexLine) return;
  const borrowed = entries.find((e) => group.remove.includes(e.file));
  await save({
    file: group.keep,
    type: group.type,
    description: group.description,
    body: group.mergedBody,
    ...(needsIndexLine && borrowed ? { title: borrowed.title, hook: borrowed.hook || undefined } : {}),
  });
}

/** The copies of the groups removed: their index lines in one write, then each file. */
async function removeCopies(memoryDir: string, groups: readonly DuplicateGroup[]): Promise<void> {
  if (groups.length === 0) return;
  const gone = new Set(groups.flatMap((group) => group.remove.map((file) => file.normalize("NFC"))));
  await updateIndex(memoryDir, (text) => applyIndexChanges(text, { remove: gone }));
  for (const group of groups)
    for (const file of group.remove) await removeMemory(memoryDir, file, { indexLinesRemoved: true });
}

export interface DedupeResult extends AppliedGroups {
  /** The plan: every group found (`applied` are those carried out). */
  groups: DuplicateGroup[];
  /** The history entry (null when nothing was a duplicate). */
  entry: HistoryEntry | null;
}

/**
 * The summary of an applied plan: what was merged, what was left alone because it changed, and
 * whether it was cancelled before the end.
 */
export function describeApplied(
  result: Pick<AppliedGroups, "applied" | "leftAlone"> & { cancelled?: boolean },
  planned?: number,
): string {
  const merged = result.applied.length > 0 ? describeGroups(result.applied) : "";
  const leftAlone =
    result.leftAlone.length > 0
      ? `left alone (changed since the plan was made): ${result.leftAlone.join(", ")}`
      : "";
  const cancelled = result.cancelled
    ? `cancelled after ${result.applied.length}${planned === undefined ? "" : ` of ${planned}`} merges`
    : "";
  return [merged, leftAlone, cancelled].filter(Boolean).join("; ") || describeGroups([]);
}

/**
 * Finds and merges duplicate memories, recorded in the history first so `memdir undo` can take
 * the merge back.
 *
 * @example
 * const { removed } = await dedupeMemories(memoryDir);
 */
export async function dedupeMemories(
  memoryDir: string,
  options: {
    now?: Clock;
    /** False on a scratch copy (propose mode): no history there. */
    record?: boolean;
    /**
     * Cancels the run: while reading, it throws `MemdirError("aborted")` (nothing changed); while
     * merging, it stops between two groups and returns with `cancelled` set (what was merged is
     * recorded, so it can be undone).
     */
    signal?: AbortSignal;
    /** Counts each step (reading, comparing, merging) for a terminal (docs/design.md#progress). */
    progress?: ProgressSink;
  } = {},
): Promise<DedupeResult> {
  const { signal, progress } = options;
  const groups = findDuplicateGroups(await loadMemoryDocuments(memoryDir, signal, progress), progress);
  throwIfAborted(signal, "consolidation");
  if (groups.length === 0)
    return { groups, applied: [], merged: [], removed: [], leftAlone: [], cancelled: false, entry: null };
  if (options.record === false)
    return { groups, ...(await applyDuplicateGroups(memoryDir, groups, signal, progress)), entry: null };
  const { result, entry } = await recordChange(
    memoryDir,
    {
      kind: "dedupe",
      message: (applied) => (applied ? describeApplied(applied, groups.length) : describeGroups(groups)),
      now: options.now,
    },
    () => applyDuplicateGroups(memoryDir, groups, signal, progress),
  );
  return { groups, ...result, entry };
}
