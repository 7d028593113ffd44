import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { openFolderInside, type PinnedFolder, removeFileInside } from "./open-safely.ts";

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
 * mix. With `inside` (the memory dir holding `filePath`), the target's folder is opened first,
 * created as needed, one component at a time without following links, and the temp file is
 * created, renamed and cleaned up through that open folder: a folder swapped for a symlink after
 * the path check cannot redirect the write (docs/design.md#path-safety). With `mode`, the new file
 * has exactly that mode before it takes the target's name (a private file is never readable by
 * others, not even for a moment). With `durability`, fewer fsyncs: `"file"` leaves the folder's
 * fsync to the caller, who writes many files and syncs each folder once ({@link syncFoldersInside}).
 * Two fsyncs per file were most of a first pull of 2,000 memories (docs/benchmarks.md#sync).
 *
 * @example
 * await writeFileAtomic("/…/memory/MEMORY.md", "- [A](a.md) — a\n");
 */
export async function writeFileAtomic(
  filePath: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  await writeAtomicWith(filePath, (handle) => handle.writeFile(data), options);
}

/** How {@link writeFileAtomic} and {@link writeFileAtomicStreamed} write: see the former. */
export interface AtomicWriteOptions {
  inside?: string;
  mode?: number;
  durability?: "full" | "file";
}

// Text handed to a streamed write is joined and written in blocks of about this many UTF-16
// units: one write per line would be 20,000 thread-pool round trips for an export at 20,000.
const STREAM_BLOCK = 64 * 1024;

/**
 * {@link writeFileAtomic} for content made piece by piece: `produce` is handed a `write` that
 * appends text (as UTF-8) or bytes to the temp file, and only when it resolves does the temp file take `filePath`'s
 * name, so memory stays at one block however large the file grows (`memdir export --out` at
 * 20,000 memories held 597 MB when it joined every line first: docs/benchmarks.md#whole-commands-at-20000-memories).
 * If `produce` throws (an abort included), the temp file is removed, the target is untouched and
 * that error is thrown as it is. Resolves to what `produce` resolved to.
 *
 * @example
 * const count = await writeFileAtomicStreamed("/tmp/out.jsonl", async (write) => {
 *   for (const line of lines) await write(line);
 *   return lines.length;
 * });
 */
export async function writeFileAtomicStreamed<T>(
  filePath: string,
  produce: (write: (chunk: string | Uint8Array) => Promise<void>) => Promise<T>,
  options: AtomicWriteOptions = {},
): Promise<T> {
  let result: T | undefined;
  await writeAtomicWith(
    filePath,
    async (handle) => {
      let pending: string[] = [];
      let pendingLength = 0;
      let writeFailure: unknown = null;
      const writeAll = async (bytes: Uint8Array) => {
        try {
          // A write may take fewer bytes than it was given (a full disk): go on until all are in.
          for (let at = 0; at < bytes.byteLength; )
            at += (await handle.write(bytes, at, bytes.byteLength - at)).bytesWritten;
        } catch (error) {
          writeFailure = error;
          throw error;
        }
      };
      const flush = async () => {
        if (pendingLength === 0) return;
        const block = Buffer.from(pending.join(""), "utf8");
        pending = [];
        pendingLength = 0;
        await writeAll(block);
      };
      result = await produce(async (chunk) => {
        if (typeof chunk !== "string") {
          // Bytes go out as they are, after the text before them: no copy of a large array.
          await flush();
          await writeAll(chunk);
          return;
        }
        pending.push(chunk);
        pendingLength += chunk.length;
        if (pendingLength >= STREAM_BLOCK) await flush();
      }).catch((error: unknown) => {
        // The file's own write failing is an io error like any other; the caller's is its own.
        throw error !== null && error === writeFailure ? error : new ContentFailure(error);
      });
      await flush();
    },
    options,
  );
  return result as T;
}

/** A failure of the caller's own content (not of the write), rethrown unwrapped. */
class ContentFailure {
  constructor(readonly error: unknown) {}
}

async function writeAtomicWith(
  filePath: string,
  fill: (handle: fs.FileHandle) => Promise<void>,
  options: AtomicWriteOptions,
): Promise<void> {
  const durability = options.durability ?? "full";
  const dir = path.dirname(filePath);
  const base = path.basename(filePath);
  const tempName = `.${base}.${process.pid}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`;
  let folder: PinnedFolder | null = null;
  const at = (name: string) => (folder ? folder.entry(name) : path.join(dir, name));
  try {
    if (options.inside) {
      const relative = path.relative(path.resolve(options.inside), path.resolve(dir));
      folder = await openFolderInside(options.inside, relative, { create: true });
    }
    try {
      const handle = await fs.open(
        at(tempName),
        fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0),
        0o644,
      );
      try {
        await fill(handle);
        if (options.mode !== undefined) await handle.chmod(options.mode);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await folder?.verify();
      await fs.rename(at(tempName), at(base));
    } catch (error) {
      await fs.rm(at(tempName), { force: true }).catch(() => undefined);
      throw error;
    }
    if (durability !== "full") return;
    if (folder) await folder.sync();
    else await syncDirectory(dir);
  } catch (error) {
    if (error instanceof ContentFailure) throw error.error;
    if (error instanceof MemdirError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new MemdirError("io", `write: cannot write ${filePath}: ${code ?? String(error)}`, {
      cause: error,
    });
  } finally {
    await folder?.close().catch(() => undefined);
  }
}

/**
 * Fsyncs each of `folders` (relative to `root`, opened without following links like
 * {@link writeFileAtomic}'s `inside`): the one folder fsync of a batch written with
 * `durability: "file"`. A folder gone or refusing fsync is skipped (each rename was atomic).
 */
export async function syncFoldersInside(root: string, folders: Iterable<string>): Promise<void> {
  for (const relative of new Set(folders)) {
    const folder = await openFolderInside(root, relative).catch(() => null);
    if (folder === null) continue;
    try {
      await folder.sync();
    } finally {
      await folder.close().catch(() => undefined);
    }
  }
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
export async function restoreFile(memoryDir: string, filePath: string, before: string | null): Promise<void> {
  if (before === null) await removeFileInside(memoryDir, filePath).catch(() => undefined);
  else await writeFileAtomic(filePath, before, { inside: memoryDir }).catch(() => undefined);
}
