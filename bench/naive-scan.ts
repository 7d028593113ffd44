/**
 * The naive reference for the scan benchmark: the header scan of docs/design.md#header-scan written the plain way, with
 * no cache. Every call lists the tree, reads every `*.md` file (except `MEMORY.md`) whole, keeps
 * its first 30 lines, parses the frontmatter with the same parser memdir uses, and sorts newest
 * first. Files are read with `Promise.all` in batches of 100 (one `Promise.all` over 20,000
 * files runs out of file descriptors and silently loses files); nothing here is slowed down on
 * purpose, and nothing is remembered between calls.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { parseFrontmatter } from "../src/memdir/format/frontmatter.ts";
import type { MemoryHeader } from "../src/types.ts";

const HEADER_LINES = 30;
const BATCH = 100;

/**
 * Scans `memoryDir` the naive way and returns the headers newest first.
 *
 * @example
 * const headers = await naiveScanHeaders("/tmp/mem-2000");
 */
export async function naiveScanHeaders(memoryDir: string): Promise<MemoryHeader[]> {
  const names = await fs.readdir(memoryDir, { recursive: true }).catch(() => [] as string[]);
  const files = names
    .map((name) => String(name).split(path.sep).join("/"))
    .filter((file) => file.toLowerCase().endsWith(".md") && path.posix.basename(file) !== "MEMORY.md")
    .filter((file) => !file.split("/").some((part) => part.startsWith(".")));
  const headers: (MemoryHeader | null)[] = [];
  for (let start = 0; start < files.length; start += BATCH) {
    const batch = files.slice(start, start + BATCH);
    headers.push(...(await Promise.all(batch.map(readHeader))));
  }
  return headers
    .filter((header): header is MemoryHeader => header !== null)
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

  async function readHeader(file: string): Promise<MemoryHeader | null> {
    const full = path.join(memoryDir, file);
    try {
      const stat = await fs.stat(full);
      if (!stat.isFile()) return null;
      const text = await fs.readFile(full, "utf8");
      const head = text.split("\n", HEADER_LINES).join("\n");
      const parsed = parseFrontmatter(head, { maxLines: HEADER_LINES });
      return {
        file,
        path: full,
        mtimeMs: stat.mtimeMs,
        size: stat.size,
        type: parsed.type,
        description: parsed.description,
      };
    } catch {
      return null; // unreadable or vanished: skipped, as docs/design.md#header-scan says
    }
  }
}
