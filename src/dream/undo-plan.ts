import path from "node:path";
import { MemdirError } from "../errors.ts";
import { INDEX_FILE } from "../memdir/format/index-file.ts";
import { nullUnlessRefused, readRegularText } from "../memdir/fs/regular-file.ts";
import { isMemoryFileName } from "../memdir/scan/scan-list.ts";
import { removeMemory, writeMemoryText } from "../memdir/write/write.ts";
import { commandOf, type EntryVersions, type HistoryEntry } from "./history-types.ts";
import { revertIndexLines } from "./index-revert.ts";

/** What an undo writes: each memory file's text to restore (null: remove it), then the index. */
export interface UndoPlan {
  memories: { file: string; text: string | null }[];
  /** The new `MEMORY.md`, or null when the entry did not change it. */
  index: string | null;
}

async function currentText(memoryDir: string, file: string): Promise<string | null> {
  return readRegularText(path.join(memoryDir, file)).catch(nullUnlessRefused);
}

/** One line naming an entry: `3f9c2a1b7d0e (memdir forget, 2026-02-01T10:00:00.000Z: forgot x.md)`. */
export function describeEntry(entry: HistoryEntry): string {
  return `${entry.id} (${commandOf(entry)}, ${entry.at}: ${entry.message})`;
}

function laterChangeError(target: HistoryEntry, newer: readonly HistoryEntry[], file: string, what: string) {
  const by = newer.find((entry) => entry.changes.some((change) => change.file === file));
  const since = by
    ? `by ${describeEntry(by)}; undo that first (memdir undo ${by.id})`
    : "outside memdir's history (by hand); put it back as it was, or edit it by hand";
  return new MemdirError(
    "invalid-input",
    `undo: cannot undo ${describeEntry(target)}: ${what} was changed since ${since}. Nothing was changed`,
  );
}

/**
 * Decides what undoing `target` writes, before anything is written (docs/design.md#undo): every
 * memory file it changed goes back to its text from before it, byte for byte, but only while the
 * file still holds what `target` left; `MEMORY.md` gets back the lines `target` changed, against
 * the index as it is now. When a later change touched the same file (or line), it throws a
 * `MemdirError("invalid-input")` naming that later entry (`newer`: the entries after `target`,
 * newest first) and nothing is written.
 */
export async function planUndo(
  memoryDir: string,
  target: HistoryEntry,
  newer: readonly HistoryEntry[],
  versionsOf: (file: string) => Promise<EntryVersions>,
): Promise<UndoPlan> {
  const plan: UndoPlan = { memories: [], index: null };
  // Memory files first: a conflict names the file a later change rewrote, not just its index line.
  const ordered = [...target.changes].sort(
    (a, b) => Number(a.file === INDEX_FILE) - Number(b.file === INDEX_FILE),
  );
  for (const change of ordered) {
    const isIndex = change.file === INDEX_FILE;
    if (!isIndex && !isMemoryFileName(change.file)) continue; // not memdir's to restore
    const { before, after } = await versionsOf(change.file);
    const current = await currentText(memoryDir, change.file);
    if (isIndex) {
      // Without the text the entry left, only its whole prior text can be restored (old journal entries).
      const reverted =
        after === undefined
          ? { text: before ?? "" }
          : revertIndexLines(before ?? "", after ?? "", current ?? "");
      if ("conflict" in reverted)
        throw laterChangeError(
          target,
          newer,
          change.file,
          `the line ${JSON.stringify(reverted.conflict.line)} of ${INDEX_FILE}`,
        );
      plan.index = reverted.text;
      continue;
    }
    if (after !== undefined && current !== after)
      throw laterChangeError(target, newer, change.file, change.file);
    plan.memories.push({ file: change.file, text: before });
  }
  return plan;
}

/**
 * Writes an {@link UndoPlan} through the single writer: memory files first, verbatim (no fresh
 * `modified`, no provenance stamp: the text that was there comes back as it was), then the index
 * in one write. The caller holds the writer lock.
 */
export async function applyUndoPlan(memoryDir: string, plan: UndoPlan): Promise<void> {
  for (const { file, text } of plan.memories) {
    if (text !== null) await writeMemoryText(memoryDir, file, text, { verbatim: true });
    else
      await removeMemory(memoryDir, file, { indexLinesRemoved: true }).catch((error: unknown) => {
        if (!(error instanceof MemdirError && error.code === "not-found")) throw error;
      });
  }
  if (plan.index !== null) await writeMemoryText(memoryDir, INDEX_FILE, plan.index, { verbatim: true });
}
