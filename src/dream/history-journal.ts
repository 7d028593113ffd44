import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { isMemoryFileName } from "../memdir/scan.ts";
import { listTrackedFiles } from "../memdir/scratch.ts";
import { removeMemoryIfPresent, writeMemoryText } from "../memdir/write.ts";
import type { Clock } from "../types.ts";
import { type FileChange, type HistoryEntry, type HistoryKind, restoreOrder } from "./history-types.ts";

/**
 * The history without git: `.history/<id>/manifest.json` plus `.history/<id>/before/<file>`, the
 * prior version of every file the entry modified or deleted. Recorded in two steps: `begin`
 * copies the files that may change BEFORE anything changes; `finish` compares and keeps only the
 * copies of files that did change.
 */
export const JOURNAL_DIR = ".history";

export { listTrackedFiles } from "../memdir/scratch.ts";

interface Manifest {
  id: string;
  kind: HistoryKind;
  message: string;
  at: string;
  changes: FileChange[];
  undoes?: string;
}

/** True when the memory dir has a journal. */
export async function journalExists(memoryDir: string): Promise<boolean> {
  return fs
    .stat(path.join(memoryDir, JOURNAL_DIR))
    .then((s) => s.isDirectory())
    .catch(() => false);
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(file);
  } catch {
    return null;
  }
}

function journalId(nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** A journal entry being recorded. */
export interface JournalRecording {
  finish(kind: HistoryKind, message: string, extra?: { undoes?: string }): Promise<HistoryEntry | null>;
}

/**
 * Copies the current version of `files` (every tracked file when omitted) into a pending entry.
 * Files that do not exist yet are remembered as absent, so a later `finish` sees them as added.
 */
export async function beginJournal(
  memoryDir: string,
  options: { files?: string[]; now?: Clock } = {},
): Promise<JournalRecording> {
  const now = options.now ?? Date.now;
  const id = journalId(now());
  const pending = path.join(memoryDir, JOURNAL_DIR, `${id}.pending`);
  const watched = options.files ?? (await listTrackedFiles(memoryDir));
  const existed: string[] = [];
  for (const file of watched) {
    const content = await readOrNull(path.join(memoryDir, file));
    if (content === null) continue;
    const copy = path.join(pending, "before", file);
    await fs.mkdir(path.dirname(copy), { recursive: true });
    await fs.writeFile(copy, content);
    existed.push(file);
  }
  await fs.mkdir(pending, { recursive: true });
  return {
    async finish(kind, message, extra = {}) {
      const current = options.files ?? (await listTrackedFiles(memoryDir));
      const candidates = [...new Set([...watched, ...current])].sort();
      const changes: FileChange[] = [];
      for (const file of candidates) {
        const before = existed.includes(file) ? await readOrNull(path.join(pending, "before", file)) : null;
        const after = await readOrNull(path.join(memoryDir, file));
        if (before === null && after === null) continue;
        if (before === null) changes.push({ file, change: "added" });
        else if (after === null) changes.push({ file, change: "deleted" });
        else if (!before.equals(after)) changes.push({ file, change: "modified" });
        else await fs.rm(path.join(pending, "before", file), { force: true });
      }
      if (changes.length === 0) {
        await fs.rm(pending, { recursive: true, force: true });
        return null;
      }
      const manifest: Manifest = { id, kind, message, at: new Date(now()).toISOString(), changes, ...extra };
      await fs.writeFile(path.join(pending, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
      await fs.rename(pending, path.join(memoryDir, JOURNAL_DIR, id));
      return { ...manifest };
    },
  };
}

/** Records an entry that changed no file (an inbox proposal expired or was rejected). */
export async function journalNote(
  memoryDir: string,
  kind: HistoryKind,
  message: string,
  options: { now?: Clock } = {},
): Promise<HistoryEntry> {
  const now = options.now ?? Date.now;
  const id = journalId(now());
  const manifest: Manifest = { id, kind, message, at: new Date(now()).toISOString(), changes: [] };
  const pending = path.join(memoryDir, JOURNAL_DIR, `${id}.pending`);
  await fs.mkdir(pending, { recursive: true });
  await fs.writeFile(path.join(pending, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.rename(pending, path.join(memoryDir, JOURNAL_DIR, id));
  return { ...manifest };
}

/** Journal entries, newest first. Pending (unfinished) entries are not listed. */
export async function journalLog(memoryDir: string): Promise<HistoryEntry[]> {
  let names: string[];
  try {
    names = await fs.readdir(path.join(memoryDir, JOURNAL_DIR));
  } catch {
    return [];
  }
  const entries: HistoryEntry[] = [];
  for (const name of names) {
    if (name.endsWith(".pending")) continue;
    try {
      const text = await fs.readFile(path.join(memoryDir, JOURNAL_DIR, name, "manifest.json"), "utf8");
      entries.push(JSON.parse(text) as Manifest);
    } catch {
      // a broken entry is skipped; the rest of the history stays usable
    }
  }
  return entries.sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1));
}

/**
 * Undoes one entry as a new `undo` entry: files it added are removed, files it modified or
 * deleted get their prior version back. The undo itself records what it overwrites.
 */
export async function journalRevert(
  memoryDir: string,
  target: HistoryEntry,
  options: { now?: Clock } = {},
): Promise<HistoryEntry | null> {
  const files = target.changes.map((c) => c.file);
  const recording = await beginJournal(memoryDir, { files, now: options.now });
  // Through the single writer (path and memory-file checks, atomic, under the writer lock the
  // caller holds), MEMORY.md last so its restored text is what stays.
  const ordered = restoreOrder(target.changes);
  for (const change of ordered) {
    if (!isMemoryFileName(change.file) && change.file !== "MEMORY.md") continue;
    if (change.change === "added") {
      await removeMemoryIfPresent(memoryDir, change.file);
      continue;
    }
    const prior = await readOrNull(path.join(memoryDir, JOURNAL_DIR, target.id, "before", change.file));
    if (prior === null)
      throw new MemdirError(
        "not-found",
        `history: ${target.id}: the prior version of ${change.file} is missing`,
      );
    await writeMemoryText(memoryDir, change.file, prior.toString("utf8"));
  }
  return recording.finish("undo", `${target.kind}: ${target.message}`, { undoes: target.id });
}
