import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../memdir/fs/atomic.ts";

/**
 * Where background extraction keeps its state between processes, inside the memory dir: the
 * per-transcript cursors, the one-at-a-time lock and the pending request. A dot-folder, so scans,
 * `doctor`, the dream and its history never see it.
 */
export const EXTRACTION_STATE_DIR = ".memdir-extract";

/** A transcript's saved cursor: the id of the last message an extraction has processed. */
export interface StoredCursor {
  /** Absolute path of the transcript (the file name is only its hash). */
  transcript: string;
  cursor: string;
  updatedAt: string;
}

/** The folder of extraction state inside `memoryDir`. */
export function extractionStateDir(memoryDir: string): string {
  return path.join(path.resolve(memoryDir), EXTRACTION_STATE_DIR);
}

/** A file-name-safe key of a transcript path (its cursor and its pending request are named by it). */
export function transcriptKey(transcript: string): string {
  return createHash("sha256").update(path.resolve(transcript)).digest("hex").slice(0, 24);
}

function cursorFile(memoryDir: string, transcript: string): string {
  return path.join(extractionStateDir(memoryDir), "cursors", `${transcriptKey(transcript)}.json`);
}

/**
 * The saved cursor of `transcript` for this memory dir, or null when no extraction has finished
 * over it yet (or the file is unreadable: then everything counts, which is safe, only slower).
 *
 * @example
 * await loadTranscriptCursor(memoryDir, "/…/projects/-work-shop/3f2c.jsonl") // "m42" or null
 */
export async function loadTranscriptCursor(memoryDir: string, transcript: string): Promise<string | null> {
  const stored = await readStoredCursor(cursorFile(memoryDir, transcript));
  // A hash collision (or a hand-copied file) must not move another session's cursor.
  if (stored?.transcript !== path.resolve(transcript) || typeof stored.cursor !== "string") return null;
  return stored.cursor;
}

/** A cursor file's fields as stored, or null when it is missing or not JSON. */
async function readStoredCursor(file: string): Promise<Partial<StoredCursor> | null> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as Partial<StoredCursor>;
  } catch {
    return null;
  }
}

/**
 * Saves `cursor` as the last processed message of `transcript` (atomically: a crash leaves the
 * old cursor or the new one). Called only after a run succeeded or was skipped (docs/design.md#the-cursor-and-the-skip-rule).
 */
export async function saveTranscriptCursor(
  memoryDir: string,
  transcript: string,
  cursor: string,
  now: () => number = Date.now,
): Promise<void> {
  const file = cursorFile(memoryDir, transcript);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const stored: StoredCursor = {
    transcript: path.resolve(transcript),
    cursor,
    updatedAt: new Date(now()).toISOString(),
  };
  await writeFileAtomic(file, `${JSON.stringify(stored)}\n`);
}

/** Below this many saved cursors, {@link pruneOrphanCursors} does not look (one small file each). */
export const CURSOR_PRUNE_THRESHOLD = 100;

/** A cursor untouched this long whose transcript is gone may be removed. */
export const CURSOR_PRUNE_AGE_MS = 30 * 24 * 3_600_000;
/** Pruning looks at most this often per memory dir (it reads every cursor file). */
export const CURSOR_PRUNE_INTERVAL_MS = 24 * 3_600_000;

/**
 * Removes the saved cursors of transcripts that no longer exist (sessions deleted by the agent
 * or by hand) and that no extraction has moved for {@link CURSOR_PRUNE_AGE_MS}: one small file per
 * session ever extracted would otherwise pile up for good. The age rule spares a memory dir
 * synced between machines, whose other machine's live sessions are "missing" here. Only looks
 * once there are more than `threshold` cursors, and at most once per
 * {@link CURSOR_PRUNE_INTERVAL_MS} (the time of the last look is the mtime of `cursors/.pruned`),
 * so an extraction normally pays one directory listing. Returns how many were removed; never throws.
 */
export async function pruneOrphanCursors(
  memoryDir: string,
  options: { threshold?: number; now?: () => number } = {},
): Promise<number> {
  const threshold = options.threshold ?? CURSOR_PRUNE_THRESHOLD;
  const now = (options.now ?? Date.now)();
  const dir = path.join(extractionStateDir(memoryDir), "cursors");
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith(".json"));
  if (names.length <= threshold) return 0;
  const marker = path.join(dir, ".pruned");
  const lastLook = await fs.stat(marker).then(
    (stat) => stat.mtimeMs,
    () => Number.NEGATIVE_INFINITY,
  );
  if (now - lastLook < CURSOR_PRUNE_INTERVAL_MS) return 0;
  try {
    await fs.writeFile(marker, "");
    await fs.utimes(marker, new Date(now), new Date(now));
  } catch {
    return 0; // cannot record the look: do not pay for it on every extraction
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const stored = await readStoredCursor(file);
    if (typeof stored?.transcript !== "string") continue; // unreadable, or not ours to judge
    try {
      const updated = Date.parse(stored.updatedAt ?? "");
      if (!(now - updated > CURSOR_PRUNE_AGE_MS)) continue; // recent, or no date: keep
      const exists = await fs.stat(stored.transcript).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code !== "ENOENT",
      );
      if (exists) continue;
      await fs.rm(file, { force: true });
      removed++;
    } catch {
      // removed meanwhile, or cannot be removed: leave it
    }
  }
  return removed;
}
