import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { assertRegularFile, NONBLOCKING_READ_FLAGS } from "../../../memdir/fs/regular-file.ts";

/** How many files are checked at once while (re)indexing (the stats of files gone missing). */
export const READ_CONCURRENCY = 16;
/**
 * How much of each memory file is read and indexed. Memories are notes (the surfacing caps are
 * 200 lines / 4 KB); a 50 MB file pasted into the directory must cost no more than a normal one
 * (it used to be read and tokenized whole: ~5 s CPU and +300 MB resident).
 */
export const INDEX_MAX_BYTES = 64 * 1024;

/**
 * Reads the part of a memory file that is indexed, synchronously, into one buffer the reader
 * keeps (a fresh 64 KB per file would be 1.3 GB of short-lived allocations at 20,000 files).
 * Synchronous like the header scan (memdir/scan/scan.ts), which has just read the head of the same
 * files: an awaited open/fstat/read/close was four thread-pool round trips and four promises per
 * file, ~100 µs of the main thread's time each (docs/design.md#the-prompt-hook-process: 200 ms of a 2,000-file cold build).
 * The caller reads in time slices and yields between them (lexical-index.ts).
 */
export class IndexedPartReader {
  #buffer: Buffer | null = null;

  /**
   * The first {@link INDEX_MAX_BYTES} of a file as text, read with bounded `read`s (never the
   * whole file). A file cut at the cap ends at its last complete line, so no half word or broken
   * UTF-8 sequence is indexed. Throws when the file cannot be opened or read, or is no regular file.
   */
  readSync(filePath: string): string {
    // Opened without blocking and checked first: a FIFO swapped in must not hang (docs/design.md#reading-files).
    const fd = openSync(filePath, NONBLOCKING_READ_FLAGS);
    try {
      assertRegularFile(filePath, fstatSync(fd));
      // One byte past the cap tells a file of exactly the cap from a longer one.
      this.#buffer ??= Buffer.allocUnsafeSlow(INDEX_MAX_BYTES + 1);
      const buffer = this.#buffer;
      let total = 0;
      while (total < buffer.length) {
        const bytesRead = readSync(fd, buffer, total, buffer.length - total, total);
        if (bytesRead === 0) return buffer.toString("utf8", 0, total);
        total += bytesRead;
      }
      // Longer than the cap: keep its whole lines (all of the cap when it holds a single line).
      const lastNewline = buffer.lastIndexOf(0x0a, INDEX_MAX_BYTES - 1);
      return buffer.toString("utf8", 0, lastNewline > 0 ? lastNewline : INDEX_MAX_BYTES);
    } finally {
      closeSync(fd);
    }
  }
}
