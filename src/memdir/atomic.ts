import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";

// Temp files: `.NAME.PID.RANDOM.memdir-tmp` in the target's folder. The leading dot and the
// suffix keep them out of scans; the PID lets `doctor --fix` tell a dead writer's leftovers apart.
const TEMP_SUFFIX = ".memdir-tmp";
/**
 * Bytes a temp name adds to its target's name: the leading and separating dots, a PID of up to
 * 7 digits (Linux's pid_max is 4,194,304), 12 hex digits and the suffix. A file name longer than
 * 255 bytes minus this cannot be written atomically on file systems with a 255-byte name limit.
 */
export const TEMP_NAME_OVERHEAD_BYTES = 1 + 1 + 7 + 1 + 12 + TEMP_SUFFIX.length;
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]+\.memdir-tmp$/;

/**
 * Writes `data` to `filePath` atomically: a temp file in the same folder is written, fsynced and
 * renamed over the target, so a reader (or a crash) sees the old file or the new one, never a
 * mix.
 *
 * @example
 * await writeFileAtomic("/…/memory/MEMORY.md", "- [A](a.md) — a\n");
 */
export async function writeFileAtomic(filePath: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(filePath);
  const temp = path.join(
    dir,
    `.${path.basename(filePath)}.${process.pid}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`,
  );
  try {
    const handle = await fs.open(temp, "wx", 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, filePath);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    throw new MemdirError("io", `write: cannot write ${filePath}: ${code ?? String(error)}`, {
      cause: error,
    });
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  }
}

/** The PID that wrote a temp file of {@link writeFileAtomic}, or null for other names. */
export function tempFileWriterPid(name: string): number | null {
  const match = TEMP_NAME.exec(name);
  return match ? Number(match[1]) : null;
}

/**
 * Puts a file back as it was before a write whose index update then failed: removed when it was
 * new (which also frees the space a full disk needs), else rewritten. A failure to restore is
 * left as it is: the original error is the one to report.
 */
export async function restoreFile(filePath: string, before: string | null): Promise<void> {
  if (before === null) await fs.rm(filePath, { force: true }).catch(() => undefined);
  else await writeFileAtomic(filePath, before).catch(() => undefined);
}
