import { closeSync, readSync, realpathSync } from "node:fs";
import { MemdirError } from "../../errors.ts";
import { openReadableInsideSync } from "./open-safely.ts";
import { openRegularFileSync } from "./regular-file.ts";

/** Surfacing limits for one memory body (docs/design.md#surfacing). */
export const MEMORY_MAX_LINES = 200;
export const MEMORY_MAX_BYTES = 4096;

/**
 * The largest memory file the writer writes (docs/design.md#the-single-writer) and the size over
 * which `memdir doctor` calls one too large: no note is this long, and recall surfaces only its
 * first {@link MEMORY_MAX_BYTES} bytes.
 */
export const MEMORY_FILE_MAX_BYTES = 1024 * 1024;

export interface CappedRead {
  /** The text (at most the limits), followed by the truncation note when a limit cut it. */
  content: string;
  /** Which limit cut the file, or `false` when it was read whole. */
  truncated: false | "lines" | "bytes";
  /** UTF-8 bytes of file text included in `content` (the note not counted). */
  bytes: number;
  /** Size of the whole file on disk. */
  fileBytes: number;
}

/**
 * Reads a memory file up to `maxLines` lines AND `maxBytes` bytes (docs/design.md#surfacing), reading no
 * more than `maxBytes + 1` bytes from disk and never cutting a UTF-8 character. When a limit cuts
 * the file, a note naming that limit and the full path is appended so the model can read the rest.
 * With `memoryDir`, a file that turns out to lie outside it (a folder swapped for a symlink after
 * the file was listed) is refused with `path-outside` instead of read (docs/design.md#path-safety).
 *
 * @example
 * const { content, truncated } = await readMemoryCapped("/…/memory/feedback-real-database.md");
 */
export async function readMemoryCapped(
  filePath: string,
  options: { maxLines?: number; maxBytes?: number; memoryDir?: string } = {},
): Promise<CappedRead> {
  const maxLines = options.maxLines ?? MEMORY_MAX_LINES;
  const maxBytes = options.maxBytes ?? MEMORY_MAX_BYTES;
  let fd: number;
  let fileBytes: number;
  try {
    // Never blocks: a FIFO or device is refused before a byte is read (docs/design.md#reading-files);
    // with the memory dir, opened first and then checked to lie inside (docs/design.md#path-safety).
    // Synchronous, as the header scan reads (docs/design.md#caches-and-watchers): a few KB of one
    // regular file, where the promise calls' six thread-pool round trips per file cost the memory
    // helper ~0.3 ms of a ~4 ms prompt at 5 picks (docs/design.md#the-prompt-hook-process).
    ({
      fd,
      stat: { size: fileBytes },
    } = options.memoryDir
      ? openReadableInsideSync(realpathSync.native(options.memoryDir), filePath)
      : openRegularFileSync(filePath));
  } catch (error) {
    if (error instanceof MemdirError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new MemdirError("not-found", `read: no memory file at ${filePath}`, { cause: error });
    throw new MemdirError("io", `read: cannot open ${filePath}: ${code ?? String(error)}`, { cause: error });
  }
  let head: Buffer;
  try {
    // One byte past the cap tells "exactly maxBytes" from "more than maxBytes".
    head = Buffer.alloc(Math.min(maxBytes + 1, Math.max(fileBytes, 0) + 1));
    let filled = 0;
    while (filled < head.length) {
      const bytesRead = readSync(fd, head, filled, head.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    head = head.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
  const { end, truncated } = capEnd(head, maxLines, maxBytes);
  let bodyStart = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) bodyStart = 3; // drop a BOM
  const text = head.toString("utf8", Math.min(bodyStart, end), end);
  if (!truncated) return { content: text, truncated, bytes: end - Math.min(bodyStart, end), fileBytes };
  return {
    content: `${text.replace(/\n?$/, "\n")}${truncationNote(truncated, maxLines, maxBytes, filePath)}`,
    truncated,
    bytes: end - Math.min(bodyStart, end),
    fileBytes,
  };
}

/** Where to cut `head` (bytes read so far) and which limit did it. Pure. */
export function capEnd(
  head: Uint8Array,
  maxLines: number,
  maxBytes: number,
): { end: number; truncated: false | "lines" | "bytes" } {
  const window = Math.min(head.length, maxBytes);
  let newlines = 0;
  for (let i = 0; i < window; i++) {
    if (head[i] !== 0x0a) continue;
    newlines++;
    // The limit fires only when something follows the last allowed line.
    if (newlines === maxLines && i + 1 < head.length) return { end: i, truncated: "lines" };
  }
  if (head.length <= maxBytes) return { end: head.length, truncated: false };
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so the cut lands between characters.
  while (end > 0 && (head[end] & 0xc0) === 0x80) end--;
  return { end, truncated: "bytes" };
}

/** The note appended to a cut memory (docs/design.md#surfacing): which limit fired and where the whole file is. */
export function truncationNote(
  limit: "lines" | "bytes",
  maxLines: number,
  maxBytes: number,
  filePath: string,
): string {
  const which = limit === "lines" ? `${maxLines}-line limit` : `${maxBytes}-byte limit`;
  return `\n> This memory was truncated at the ${which}. Read the complete file at: ${filePath}\n`;
}
