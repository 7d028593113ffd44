import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../memdir/atomic.ts";

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
  try {
    const stored = JSON.parse(
      await fs.readFile(cursorFile(memoryDir, transcript), "utf8"),
    ) as Partial<StoredCursor>;
    // A hash collision (or a hand-copied file) must not move another session's cursor.
    if (stored.transcript !== path.resolve(transcript) || typeof stored.cursor !== "string") return null;
    return stored.cursor;
  } catch {
    return null;
  }
}

/**
 * Saves `cursor` as the last processed message of `transcript` (atomically: a crash leaves the
 * old cursor or the new one). Called only after a run succeeded or was skipped (SPEC §5).
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
