import fs from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { MemdirError } from "../../errors.ts";
import { formatJsonConfig, type JsonObject, parseJsonConfig } from "../../hosts/shared/json-config.ts";
import {
  type PriorRecord,
  parsePriorRecord,
  priorRecord,
  priorRecordPath,
  type RecommendedSetting,
  restoreRecommended,
} from "../../hosts/shared/prior-values.ts";
import { writeFileAtomic } from "../../memdir/fs/atomic.ts";
import type { FileEdit } from "./agents.ts";

/** One file's planned change: its text before (null when absent) and after. */
export interface PlannedFile {
  /** The file as the agent names it (a symbolic link stays one). */
  path: string;
  /** Where the text is written: `path`, or the file a symbolic link at `path` leads to. */
  target: string;
  before: string | null;
  after: string;
  changed: boolean;
  /**
   * The record of prior values beside the file (prior-values.ts): its path, and its new text, or
   * null to delete it (after `--remove` put the values back).
   */
  record?: { path: string; text: string | null };
  /**
   * The file is removed on `--remove`: a file memdir owns whole, or a config file setup made
   * that holds nothing but memdir's entries (`{}` once they are out).
   */
  remove?: true;
  /** No backup: what the file holds is memdir's alone (a config file setup made, now removed). */
  noBackup?: true;
}

function refuse(file: string, reason: string): never {
  throw new MemdirError("invalid-input", `memdir: setup: ${file}: ${reason}; nothing was changed`);
}

/**
 * The file a config path's text lives in: the path itself, or — for a symbolic link (a dotfiles
 * checkout's `settings.json`) — the file it leads to, a relative link resolved against the
 * link's folder, so the write keeps the link. A dangling or looping link is refused.
 */
async function writeTarget(file: string): Promise<string> {
  const stat = await fs.lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!stat?.isSymbolicLink()) return file;
  try {
    return await fs.realpath(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const link = await fs.readlink(file).catch(() => "?");
    const why =
      code === "ENOENT" ? "which does not exist" : code === "ELOOP" ? "a loop of links" : String(code);
    return refuse(file, `is a symbolic link to ${link}, ${why} — fix or remove the link`);
  }
}

/**
 * A file setup would change must be one it may write: a file without write permission for this
 * user, or with no write bit at all (root may write anything, but the user marked it read-only),
 * is refused, and so is a folder the atomic replace cannot create its temp file in.
 */
async function checkWritable(file: string, target: string, exists: boolean): Promise<void> {
  const shown = target === file ? file : `${file} (a link to ${target})`;
  if (exists) {
    const mode = (await fs.stat(target)).mode & 0o777;
    const writable = await fs.access(target, fs.constants.W_OK).then(
      () => true,
      () => false,
    );
    if (!writable || (mode & 0o222) === 0)
      refuse(
        shown,
        `is read-only (mode ${mode.toString(8).padStart(4, "0")}) — make it writable or add the snippet from docs/integrations.md by hand`,
      );
  }
  const folder = await nearestFolder(path.dirname(target));
  const folderWritable = await fs.access(folder, fs.constants.W_OK).then(
    () => true,
    () => false,
  );
  if (!folderWritable) refuse(shown, `its folder ${folder} is not writable`);
}

/** `dir`, or its nearest ancestor that exists (setup creates the rest). */
async function nearestFolder(dir: string): Promise<string> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (
      await fs.stat(current).then(
        (stat) => stat.isDirectory(),
        () => false,
      )
    )
      return current;
    if (path.dirname(current) === current) return current;
  }
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** What the run does: `--remove`, `--recommended` (prior-values.ts). */
export interface PlanOptions {
  checkWrites: boolean;
  remove?: boolean;
  recommended?: boolean;
}

/**
 * Works out every file's new text before writing any, so a file memdir cannot edit (broken JSON,
 * an inline TOML server, a read-only file, a dangling link) stops the whole setup with nothing
 * changed. With `checkWrites` (not for `--print`), a file that would change must be writable.
 */
export async function planEdits(edits: FileEdit[], options: PlanOptions): Promise<PlannedFile[]> {
  const planned: PlannedFile[] = [];
  for (const edit of edits) {
    const target = await writeTarget(edit.path);
    const before = await readOrNull(target);
    let file: PlannedFile;
    if (edit.format === "file") {
      const ours = before === null || before.startsWith(edit.marker);
      const after = ours ? (edit.text ?? "") : before;
      const remove = ours && edit.text === null && before !== null;
      const changed = remove || (ours && edit.text !== null && edit.text !== before);
      file = {
        path: edit.path,
        target,
        before,
        after,
        changed,
        ...(remove ? { remove: true as const } : {}),
      };
    } else if (edit.format === "toml") {
      const after = edit.edit(before);
      file = { path: edit.path, target, before, after, changed: after !== (before ?? "") };
    } else {
      const doc = parseJsonConfig(before, edit.path);
      const recordPath = priorRecordPath(edit.path);
      const record = edit.recommended ? parsePriorRecord(await readOrNull(recordPath)) : null;
      let next = edit.edit(doc);
      if (edit.recommended && options.remove)
        next = restoreRecommended(next, edit.recommended, record, options.recommended === true);
      const changed = !isDeepStrictEqual(doc, next);
      const earlier =
        options.remove && changed ? [record?.before, await readOrNull(backupPath(edit.path))] : [];
      const after = changed ? textAfter(next, before, earlier) : (before ?? "");
      // A file setup made (no earlier text of the user's: no record, no backup) that `--remove`
      // leaves as `{}` goes with memdir's entries: an empty file and a backup of memdir's own
      // lines were left behind.
      const leftEmpty =
        options.remove &&
        changed &&
        earlier.every((text) => typeof text !== "string") &&
        Object.keys(withoutEmptyObjects(next) as JsonObject).length === 0;
      file = {
        path: edit.path,
        target,
        before,
        after,
        changed,
        ...(leftEmpty ? { remove: true as const, noBackup: true as const } : {}),
      };
      const recordChange = edit.recommended
        ? recordUpdate(edit.recommended, record, doc, before, options, file.changed)
        : undefined;
      if (recordChange !== undefined) file.record = { path: recordPath, text: recordChange };
    }
    if (options.checkWrites && file.changed) await checkWritable(edit.path, target, before !== null);
    planned.push(file);
  }
  return planned;
}

/** `value` without the keys that hold an empty object, at any depth. */
function withoutEmptyObjects(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const kept: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const pruned = withoutEmptyObjects(child);
    if (
      typeof pruned === "object" &&
      pruned !== null &&
      !Array.isArray(pruned) &&
      Object.keys(pruned).length === 0
    )
      continue;
    kept[key] = pruned;
  }
  return kept;
}

/**
 * The new text: after `--remove`, when the document is again what it was before setup (the
 * record's text, or the backup's: the file before setup's last change) — but for an empty
 * `"hooks": {}` or `"mcpServers": {}` memdir's removal dropped — that text byte for byte, its
 * formatting and empty objects kept; else the document in the file's own indentation.
 */
function textAfter(
  next: JsonObject,
  before: string | null,
  earlier: Array<string | null | undefined>,
): string {
  for (const text of earlier) {
    if (typeof text !== "string") continue;
    try {
      const earlier = parseJsonConfig(text, "earlier");
      if (isDeepStrictEqual(withoutEmptyObjects(next), withoutEmptyObjects(earlier))) return text;
    } catch {
      // an earlier text that is no JSON object is no candidate
    }
  }
  return formatJsonConfig(next, before);
}

/**
 * How the record changes: kept once, before the first `--recommended` change of the file (a later
 * run must not record memdir's own values as the user's); deleted by `--remove`; else unchanged
 * (undefined).
 */
function recordUpdate(
  settings: RecommendedSetting[],
  record: PriorRecord | null,
  doc: JsonObject,
  before: string | null,
  options: PlanOptions,
  changed: boolean,
): string | null | undefined {
  if (options.remove) return record === null ? undefined : null;
  if (record !== null || !options.recommended || !changed) return undefined;
  return `${JSON.stringify(priorRecord(before, doc, settings), null, 2)}\n`;
}

/** The one backup of `file` setup keeps: the newest, beside the name the agent uses. */
export function backupPath(file: string): string {
  return `${file}.memdir-backup`;
}

/**
 * Writes the changed files: the old text is saved to `<file>.memdir-backup` first (one per
 * file, replaced on each run), the new text is written atomically to the file — through a
 * symbolic link to the file it leads to, the link kept — (a crash leaves the old or the new
 * file, never half of one), and the file keeps its mode (`~/.claude.json` is private; so is its
 * backup). A file memdir owns whole is removed on `--remove` (after its backup). Returns each
 * backup's path by file.
 */
export async function writePlanned(planned: PlannedFile[]): Promise<Map<string, string>> {
  const backups = new Map<string, string>();
  for (const file of planned) {
    if (file.record?.text === null) await fs.rm(file.record.path, { force: true });
    if (!file.changed) continue;
    await fs.mkdir(path.dirname(file.target), { recursive: true });
    let mode: number | undefined;
    if (file.before !== null && !file.noBackup) {
      mode = (await fs.stat(file.target)).mode & 0o777;
      // Written, not copied: a link in the backup's place is replaced, never followed.
      const backup = backupPath(file.path);
      await writeFileAtomic(backup, file.before, { mode });
      backups.set(file.path, backup);
    }
    // The record holds the file's old text, so it is as private as the file.
    if (typeof file.record?.text === "string")
      await writeFileAtomic(file.record.path, file.record.text, { mode: mode ?? 0o600 });
    if (file.remove) await fs.rm(file.target, { force: true });
    else await writeFileAtomic(file.target, file.after, mode === undefined ? {} : { mode });
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
