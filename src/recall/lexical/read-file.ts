import {
  close as closeCallback,
  fstat as fstatCallback,
  open as openCallback,
  read as readCallback,
} from "node:fs";
import { promisify } from "node:util";
import { assertRegularFile, NONBLOCKING_READ_FLAGS } from "../../memdir/regular-file.ts";

/** How many files are read at once while (re)indexing. */
export const READ_CONCURRENCY = 16;
/**
 * How much of each memory file is read and indexed. Memories are notes (the surfacing caps are
 * 200 lines / 4 KB); a 50 MB file pasted into the directory must cost no more than a normal one
 * (it used to be read and tokenized whole: ~5 s CPU and +300 MB resident).
 */
export const INDEX_MAX_BYTES = 64 * 1024;
const openFile = promisify(openCallback);
const readInto = promisify(readCallback);
const fstatFile = promisify(fstatCallback);
const closeFile = promisify(closeCallback);

/**
 * Reads the part of a memory file that is indexed. Each reader keeps its own read buffers
 * (returned after each read, at most one per concurrent read).
 */
export class IndexedPartReader {
  readonly #spareBuffers: Buffer[] = [];

  /**
   * The first {@link INDEX_MAX_BYTES} of a file as text, read with one bounded `read` (never the
   * whole file). A file cut at the cap ends at its last complete line, so no half word or broken
   * UTF-8 sequence is indexed.
   */
  async read(filePath: string): Promise<string> {
    // Opened without blocking and checked first: a FIFO swapped in must not hang (docs/design.md#reading-files).
    const fd = await openFile(filePath, NONBLOCKING_READ_FLAGS);
    try {
      assertRegularFile(filePath, await fstatFile(fd));
      // One byte past the cap tells a file of exactly the cap from a longer one. Buffers are
      // reused: a fresh 64 KB per file would be 1.3 GB of short-lived allocations at 20,000 files.
      const buffer = this.#spareBuffers.pop() ?? Buffer.allocUnsafeSlow(INDEX_MAX_BYTES + 1);
      try {
        let total = 0;
        while (total < buffer.length) {
          const { bytesRead } = await readInto(fd, buffer, total, buffer.length - total, total);
          if (bytesRead === 0) return buffer.toString("utf8", 0, total);
          total += bytesRead;
        }
        // Longer than the cap: keep its whole lines (all of the cap when it holds a single line).
        const lastNewline = buffer.lastIndexOf(0x0a, INDEX_MAX_BYTES - 1);
        return buffer.toString("utf8", 0, lastNewline > 0 ? lastNewline : INDEX_MAX_BYTES);
      } finally {
        if (this.#spareBuffers.length < READ_CONCURRENCY) this.#spareBuffers.push(buffer);
      }
    } finally {
      await closeFile(fd);
    }
  }
}
