import fs from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { writeFileAtomic } from "../../memdir/atomic.ts";
import type { FileEdit } from "./agents.ts";
import { formatJsonConfig, parseJsonConfig } from "./json-config.ts";

/** One file's planned change: its text before (null when absent) and after. */
export interface PlannedFile {
  path: string;
  before: string | null;
  after: string;
  changed: boolean;
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Works out every file's new text before writing any, so a file memdir cannot edit (broken JSON,
 * an inline TOML server) stops the whole setup with nothing changed.
 */
export async function planEdits(edits: FileEdit[]): Promise<PlannedFile[]> {
  const planned: PlannedFile[] = [];
  for (const edit of edits) {
    const before = await readOrNull(edit.path);
    if (edit.format === "toml") {
      const after = edit.edit(before);
      planned.push({ path: edit.path, before, after, changed: after !== (before ?? "") });
      continue;
    }
    const doc = parseJsonConfig(before, edit.path);
    const next = edit.edit(doc);
    const changed = !isDeepStrictEqual(doc, next);
    planned.push({
      path: edit.path,
      before,
      after: changed ? formatJsonConfig(next, before) : (before ?? ""),
      changed,
    });
  }
  return planned;
}

function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/** Copies `file` to a backup name not taken yet (two runs within a second keep both backups). */
async function backUp(file: string, now: Date): Promise<string> {
  const base = `${file}.memdir-backup-${stamp(now)}`;
  for (let attempt = 0; ; attempt++) {
    const backup = attempt === 0 ? base : `${base}-${attempt}`;
    try {
      await fs.copyFile(file, backup, fs.constants.COPYFILE_EXCL);
      return backup;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/**
 * Writes the changed files: the old file is copied to `<file>.memdir-backup-<UTC time>` first,
 * the new text is written atomically (a crash leaves the old or the new file, never half of
 * one), and the file keeps its mode (`~/.claude.json` is private).
 * Returns each backup's path by file.
 */
export async function writePlanned(planned: PlannedFile[], now: Date): Promise<Map<string, string>> {
  const backups = new Map<string, string>();
  for (const file of planned) {
    if (!file.changed) continue;
    await fs.mkdir(path.dirname(file.path), { recursive: true });
    let mode: number | undefined;
    if (file.before !== null) {
      mode = (await fs.stat(file.path)).mode & 0o777;
      backups.set(file.path, await backUp(file.path, now));
    }
    await writeFileAtomic(file.path, file.after);
    if (mode !== undefined) await fs.chmod(file.path, mode);
  }
  return backups;
}

/**
 * The change as lines: the unchanged start and end are skipped, what lies between is shown as
 * `-` (old) and `+` (new) lines. Enough for a config file, where memdir's part is one block.
 */
export function describeChange(file: PlannedFile): string {
  const before = file.before === null ? [] : file.before.replace(/\n$/, "").split("\n");
  const after = file.after.replace(/\n$/, "").split("\n");
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  )
    end++;
  const lines = [`--- ${file.path}${file.before === null ? " (new file)" : ""}`, `@@ line ${start + 1} @@`];
  for (const line of before.slice(start, before.length - end)) lines.push(`-${line}`);
  for (const line of after.slice(start, after.length - end)) lines.push(`+${line}`);
  return `${lines.join("\n")}\n`;
}
