import { closeSync, constants, fstatSync, openSync, type Stats } from "node:fs";
import fs from "node:fs/promises";
import { MemdirError } from "../../errors.ts";

/**
 * Opening a FIFO for reading blocks until a writer comes, and reading a character device never
 * ends: one such file named like a memory or `MEMORY.md` hung `show`, `doctor`, `context`, `add`
 * and, after a few calls had used up libuv's threads, the whole MCP server (docs/design.md#reading-files).
 * So every read of a memory or index file opens without blocking and looks at what it opened
 * (docs/design.md#reading-files) before it reads a byte.
 */
export const NONBLOCKING_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
const READ_FLAGS = NONBLOCKING_READ_FLAGS;

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * `bytes` as text when they are valid UTF-8, else null: a lossy decode would turn bad bytes into
 * the replacement character, which a later write would save over the original bytes.
 */
export function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/** What a file that is not a regular file is, in words. */
function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/**
 * Throws unless `stat` (of a file opened with {@link NONBLOCKING_READ_FLAGS}) is a regular file's.
 *
 * @throws MemdirError("not-a-file") naming what the file is.
 * @example assertRegularFile(filePath, await handle.stat());
 */
export function assertRegularFile(filePath: string, stat: Stats): void {
  if (!stat.isFile()) throw notRegular(filePath, stat);
}

function notRegular(filePath: string, stat: Stats): MemdirError {
  return new MemdirError(
    "not-a-file",
    `memdir: read: ${filePath} is ${kindOf(stat)}, not a regular file; memdir reads only regular files`,
  );
}

/**
 * Opens `filePath` for reading without blocking and checks it is a regular file.
 * Open errors (ENOENT, EACCES, ENXIO for a socket…) are thrown as they are.
 *
 * @throws MemdirError("not-a-file") for a folder, FIFO, socket or device (the handle is closed).
 * @example
 * const { handle, stat } = await openRegularFile(indexPath);
 */
export async function openRegularFile(filePath: string): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  return openRegularWith(filePath, READ_FLAGS);
}

/**
 * {@link openRegularFile} that also refuses a symbolic link in the last component (`O_NOFOLLOW`,
 * `ELOOP`): for files in memdir's own repositories, where a link has no business.
 */
export async function openRegularFileNoFollow(
  filePath: string,
): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  return openRegularWith(filePath, READ_FLAGS | (constants.O_NOFOLLOW ?? 0));
}

async function openRegularWith(
  filePath: string,
  flags: number,
): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  const handle = await fs.open(filePath, flags);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegular(filePath, stat);
    return { handle, stat };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** {@link openRegularFile}, synchronous: the descriptor (the caller closes it) and its stat. */
export function openRegularFileSync(filePath: string): { fd: number; stat: Stats } {
  const fd = openSync(filePath, READ_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(filePath, stat);
    return { fd, stat };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Reads a regular file's first `maxBytes` bytes (all of it when left out) and never blocks on a
 * special file. Returns the bytes read and the file's stat (its size is the whole file's).
 *
 * @throws MemdirError("not-a-file") when the path is not a regular file; open errors as they are.
 * @example
 * const { bytes } = await readRegularFile(path.join(memoryDir, "MEMORY.md"));
 */
export async function readRegularFile(
  filePath: string,
  options: {
    maxBytes?: number;
    /** How to open it (default {@link openRegularFile}; the memory tools pin it inside the memory dir). */
    open?: (filePath: string) => Promise<{ handle: fs.FileHandle; stat: Stats }>;
  } = {},
): Promise<{ bytes: Buffer; stat: Stats }> {
  const { handle, stat } = await (options.open ?? openRegularFile)(filePath);
  try {
    const wanted = Math.min(options.maxBytes ?? Number.POSITIVE_INFINITY, stat.size);
    // The size can grow between fstat and read: read up to what was asked, then stop at the end.
    let buffer = Buffer.alloc(Math.max(0, wanted));
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (options.maxBytes !== undefined && filled >= options.maxBytes) break;
        const grown = Buffer.alloc(Math.min(options.maxBytes ?? Number.MAX_SAFE_INTEGER, filled * 2 + 4096));
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: buffer.subarray(0, filled), stat };
  } finally {
    await handle.close();
  }
}

/**
 * {@link readRegularFile} as UTF-8 text (a leading BOM kept, as `fs.readFile` keeps it).
 *
 * @example
 * const text = await readRegularText(memoryPath);
 */
export async function readRegularText(filePath: string): Promise<string> {
  return (await readRegularFile(filePath)).bytes.toString("utf8");
}

/**
 * A `.catch` for reads that treat an unreadable file as absent: null, except that a FIFO or
 * device in the file's place is still refused (the MemdirError is thrown on).
 *
 * @example const existing = await readRegularText(target).catch(nullUnlessRefused);
 */
export function nullUnlessRefused(error: unknown): null {
  if (error instanceof MemdirError) throw error;
  return null;
}
