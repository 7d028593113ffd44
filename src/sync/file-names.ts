import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { INDEX_FILE } from "../memdir/format/index-file.ts";
import { utf8OrNull } from "../memdir/fs/regular-file.ts";
import { fileNameRefusal, memoryFileRefusal } from "../memdir/fs/safe-path.ts";

// The names a sync carries (docs/design.md#sync, "One name rule, both ways"; docs/sync.md, "What
// is held stays"): one rule for which names every machine's memdir writes, applied both ways, so
// no machine pushes a name that every other one refuses to pull; and names that are not UTF-8,
// read from their bytes, never from a lossy decode (test/sync/file-names.test.ts).

const INDEX_NAME = INDEX_FILE.toLowerCase();

/**
 * Why `file` (relative to the memory dir, `/`-separated; not the top `MEMORY.md`, which is the
 * index itself) is a name no memdir writes as a memory, or null when every machine writes it: a
 * memory file (`*.md`, no dot-path), not named like the index in any case or folder
 * (`memory.md`, `notes/MEMORY.md`: a scan would read it as an index, not a memory), and a name
 * the common file systems and index lines hold. The pulling side refuses exactly these, and the
 * pushing side holds exactly these (src/sync/local.ts), so a name refused on one side never
 * piles up in the remote from the other.
 */
export function syncNameRefusal(file: string): string | null {
  const base = file.slice(file.lastIndexOf("/") + 1);
  if (base.length === INDEX_NAME.length && base.toLowerCase() === INDEX_NAME)
    return `${JSON.stringify(file)} is named like the index (${INDEX_FILE}), not a memory file`;
  // memoryFileRefusal's rule, its path split only for a name that may break it: sync asks this of
  // every name, 20,000 at a time (docs/benchmarks.md#sync).
  const notMemory = file[0] === "." || file.includes("/.") || !/\.md$/i.test(file);
  return (notMemory ? memoryFileRefusal(file) : null) ?? fileNameRefusal(file);
}

/** Why a name whose bytes are not UTF-8 is held, both ways. */
export const NAME_NOT_UTF8 =
  "a name that is not valid UTF-8 (shown with \\xNN for its bytes): memdir holds no such name";

/**
 * A path's bytes as the name a sync knows it by: the text when the bytes are UTF-8, else a
 * spelling with every byte outside printable ASCII as `\xNN` (and `\` as `\\`), with `notUtf8`.
 * A lossy decode would give `caf\xe9.md` and `caf\xe8.md` one name, `caf\uFFFD.md`, and writing
 * it would make a third file; this spelling keeps them apart. It holds a `\` when it differs
 * from the bytes, a name {@link syncNameRefusal} refuses, so no sync writes or pushes it.
 */
export function nameOfBytes(bytes: Uint8Array): { name: string; notUtf8: boolean } {
  const text = utf8OrNull(bytes);
  if (text !== null) return { name: text, notUtf8: false };
  let name = "";
  for (const byte of bytes)
    if (byte === 0x5c) name += "\\\\";
    else if (byte >= 0x20 && byte < 0x7f) name += String.fromCharCode(byte);
    else name += `\\x${byte.toString(16).padStart(2, "0")}`;
  return { name, notUtf8: true };
}

/** One entry of a memory dir listed by its bytes: its name ({@link nameOfBytes}) and kind. */
export interface ByteListedEntry {
  /** Relative to the memory dir, `/`-separated. */
  file: string;
  notUtf8: boolean;
  isFile: boolean;
  isSymbolicLink: boolean;
}

/**
 * Every entry under `dir` but dot-paths, listed with names as bytes, for a memory dir where a
 * name is not UTF-8: Node's string listing decodes such a name lossily, so two names can come
 * back as one, and its recursive listing fails on a folder so named (it opens the decoded name,
 * which does not exist). Folders are entered, never through a link. None when `dir` does not
 * exist.
 *
 * @throws MemdirError("io") when a folder in it cannot be read: a sync that took that for an
 * empty folder pushed the deletion of every memory in it (test/sync/file-names.test.ts).
 */
export async function listByBytes(dir: string): Promise<ByteListedEntry[]> {
  if (!(await fs.stat(dir).catch(() => null))?.isDirectory()) return [];
  const entries: ByteListedEntry[] = [];
  const separator = Buffer.from(path.sep);
  const walk = async (folder: Buffer, relative: Buffer | null): Promise<void> => {
    const listed: Dirent<Buffer>[] = await fs.readdir(folder, { withFileTypes: true, encoding: "buffer" });
    for (const entry of listed) {
      if (entry.name[0] === 0x2e) continue; // a dot-path: memdir's own state, never synced
      const own = relative === null ? entry.name : Buffer.concat([relative, Buffer.from("/"), entry.name]);
      if (entry.isDirectory()) {
        await walk(Buffer.concat([folder, separator, entry.name]), own);
        continue;
      }
      const { name, notUtf8 } = nameOfBytes(own);
      entries.push({ file: name, notUtf8, isFile: entry.isFile(), isSymbolicLink: entry.isSymbolicLink() });
    }
  };
  try {
    await walk(Buffer.from(dir), null);
  } catch (error) {
    throw new MemdirError("io", `sync: cannot list ${dir}: ${(error as Error).message}; nothing was synced`, {
      cause: error,
    });
  }
  return entries;
}
