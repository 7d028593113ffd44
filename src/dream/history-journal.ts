import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { listTrackedFiles } from "../memdir/write/scratch.ts";
import type { Clock } from "../types.ts";
import type { EntryVersions, FileChange, HistoryEntry, HistoryKind } from "./history-types.ts";

/**
 * The history without git: `.history/<id>/manifest.json` plus `.history/<id>/before/<file>`, the
 * prior version of every file the entry modified or deleted, and `.history/<id>/after/<file>`, the
 * version it left of every file it added or modified (an undo checks the file still holds it:
 * docs/design.md#undo). Recorded in two steps: `begin` copies the files that may change BEFORE
 * anything changes; `finish` compares and keeps only the copies of files that did change.
 */
export const JOURNAL_DIR = ".history";

interface Manifest {
  id: string;
  kind: HistoryKind;
  message: string;
  at: string;
  changes: FileChange[];
  undoes?: string;
  command?: string;
  mark?: string;
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
  /** `files`: files the change made that were not known at `begin` (a memory saved under a new name). */
  finish(
    kind: HistoryKind,
    message: string,
    extra?: { undoes?: string; command?: string; mark?: string; files?: readonly string[] },
  ): Promise<HistoryEntry | null>;
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
      const { files: madeFiles = [], ...recorded } = extra;
      const current = options.files ?? (await listTrackedFiles(memoryDir));
      const candidates = [...new Set([...watched, ...current, ...madeFiles])].sort();
      const changes: FileChange[] = [];
      for (const file of candidates) {
        const before = existed.includes(file) ? await readOrNull(path.join(pending, "before", file)) : null;
        const after = await readOrNull(path.join(memoryDir, file));
        if (before === null && after === null) continue;
        if (before !== null && after !== null && before.equals(after)) {
          await fs.rm(path.join(pending, "before", file), { force: true });
          continue;
        }
        changes.push({ file, change: before === null ? "added" : after === null ? "deleted" : "modified" });
        if (after === null) continue;
        const copy = path.join(pending, "after", file);
        await fs.mkdir(path.dirname(copy), { recursive: true });
        await fs.writeFile(copy, after);
      }
      if (changes.length === 0) {
        await fs.rm(pending, { recursive: true, force: true });
        return null;
      }
      const manifest: Manifest = {
        id,
        kind,
        message,
        at: new Date(now()).toISOString(),
        changes,
        ...recorded,
      };
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
 * The text of each file `target` changed, just before and just after it, from its copies (the
 * undo plan's input, `undo-plan.ts`). `after` is undefined for entries recorded before the journal
 * kept it.
 */
export function journalVersions(
  memoryDir: string,
  target: HistoryEntry,
): (file: string) => Promise<EntryVersions> {
  const entryDir = path.join(memoryDir, JOURNAL_DIR, target.id);
  return async (file) => {
    const change = target.changes.find((c) => c.file === file)?.change;
    let before: string | null = null;
    if (change !== "added") {
      const prior = await readOrNull(path.join(entryDir, "before", file));
      if (prior === null)
        throw new MemdirError("not-found", `history: ${target.id}: the prior version of ${file} is missing`);
      before = prior.toString("utf8");
    }
    if (change === "deleted") return { before, after: null };
    const left = await readOrNull(path.join(entryDir, "after", file));
    return { before, after: left === null ? undefined : left.toString("utf8") };
  };
}
