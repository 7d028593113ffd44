import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { relativeInside } from "../memdir/fs/inside.ts";
import { readMemoryCapped } from "../memdir/fs/read.ts";
import { readRegularText } from "../memdir/fs/regular-file.ts";
import type { Memdir } from "../memdir/instance.ts";
import { scanHeaders } from "../memdir/scan/scan.ts";
import { anchorsOf, escapeRegExp } from "../memdir/trust/anchors.ts";
import { shownContent } from "../memdir/trust/withhold.ts";
import { SESSION_MEMORY_BUDGET_BYTES } from "../recall/budget.ts";
import { DEFAULT_RECALL_K } from "../recall/selector.ts";
import { formatSurfacedMemory, vanishedAnchorNotes } from "../recall/surface.ts";
import { type Clock, type MemoryHeader, savedAtMs } from "../types.ts";
import type { ContextPart } from "./context-limit.ts";
import type { SessionSeen } from "./session-seen.ts";

/** How a memory is tied to a file: an `anchors:` entry the writer stamped, or its text naming the path. */
export type FileLink = "anchor" | "named";

/**
 * Whether a memory's text names `relativePath` (project-relative, `/` separators) or
 * `absolutePath` as a whole path, or anchors it (docs/design.md#stale-anchors): `anchor` for an
 * `anchors:` entry on that file (a symbol anchor in it included), `named` for a path word in the
 * text (`src/auth/login.ts`, `./src/auth/login.ts`, the absolute path), else null. A longer path
 * that merely ends or starts with it (`lib/src/auth/login.ts`, `src/auth/login.ts.bak`) is no match.
 *
 * @example
 * fileLink("---\nanchors:\n  - path: src/auth/login.ts\n---\n…", "src/auth/login.ts", "/repo/src/auth/login.ts") // "anchor"
 * fileLink("The retry lives in src/auth/login.ts.", "src/auth/login.ts", "/repo/src/auth/login.ts") // "named"
 */
export function fileLink(text: string, relativePath: string, absolutePath: string): FileLink | null {
  // The cheap test first: most memories name neither form, and parse nothing.
  if (!text.includes(relativePath) && !text.includes(absolutePath)) return null;
  const { data, body } = parseFrontmatter(text);
  if (anchorsOf(data).some((anchor) => anchor.dir !== true && anchor.path === relativePath)) return "anchor";
  for (const form of [absolutePath, relativePath]) {
    // A path word as anchors.ts reads one: not inside a longer path, a trailing full stop allowed.
    const word = new RegExp(
      `(?<=^|[\\s\`'"([<]|[\\s\`'"([<]\\./|^\\./)${escapeRegExp(form)}(?=$|[\\s\`'")\\]>:,;!?#]|\\.(?:\\s|$))`,
      "m",
    );
    if (word.test(body)) return "named";
  }
  return null;
}

export interface FileMemoriesOptions {
  memoryDir: string;
  /** The project anchors and relative paths resolve against. */
  projectRoot: string;
  /** The absolute path of the file the tool touched. */
  file: string;
  /** What the session was already shown (left out, and counted against the budget). */
  seen: SessionSeen;
  memdir?: Memdir;
  now?: Clock;
  /** At most this many memories (default: recall's k). */
  k?: number;
  /** The session budget of memory text (default: the prefetch's). */
  budgetBytes?: number;
}

/** What the file hook adds, as parts for `fitHookContext`. */
export interface FileMemories {
  /** The project-relative path, or null when the file lies outside the project. */
  relativePath: string | null;
  /** A line naming the file, then one part per memory (`HEADER\n\nCONTENT`, with its path); or none. */
  parts: ContextPart[];
}

/** Files read at a time: enough to keep the disk busy, few enough to stay under any fd limit. */
const READ_BATCH = 64;

/**
 * The memories about one project file (docs/design.md#file-hook), for the hook a host runs after
 * its agent reads or edits that file: the memories anchored to it, then the ones whose text names
 * it, newest first within each, leaving out what the session was already shown, at most `k`, and
 * no more than the session budget allows. Each is read capped and formatted as recall surfaces
 * it (header, age caveat, vanished-anchor notes). Nothing for a file outside the project.
 *
 * @example
 * const found = await fileMemories({ memoryDir, projectRoot: "/repo", file: "/repo/src/auth/login.ts", seen });
 * const context = fitHookContext(found.parts);
 */
export async function fileMemories(options: FileMemoriesOptions): Promise<FileMemories> {
  const relative = relativeInside(options.projectRoot, options.file);
  if (relative === null || relative === "") return { relativePath: null, parts: [] };
  const relativePath = relative.split("\\").join("/");
  const headers = (await scanHeaders(options.memoryDir, { memdir: options.memdir })).filter(
    (header) => !options.seen.paths.has(header.path),
  );
  const linked: { header: MemoryHeader; link: FileLink }[] = [];
  for (let start = 0; start < headers.length; start += READ_BATCH) {
    const batch = headers.slice(start, start + READ_BATCH);
    const texts = await Promise.all(batch.map((header) => readRegularText(header.path).catch(() => null)));
    batch.forEach((header, index) => {
      const text = texts[index];
      const link = text === null ? null : fileLink(text, relativePath, options.file);
      if (link !== null) linked.push({ header, link });
    });
  }
  // Anchored first (the writer tied them to this file), each group newest first as scanned.
  linked.sort((a, b) => (a.link === b.link ? 0 : a.link === "anchor" ? -1 : 1));
  const nowMs = (options.now ?? Date.now)();
  const budget = options.budgetBytes ?? SESSION_MEMORY_BUDGET_BYTES;
  let used = options.seen.bytes;
  const parts: ContextPart[] = [];
  for (const { header } of linked.slice(0, options.k ?? DEFAULT_RECALL_K)) {
    const read = await readMemoryCapped(header.path, { memoryDir: options.memoryDir }).catch(() => null);
    if (read === null) continue;
    const text = formatSurfacedMemory({
      path: header.path,
      mtimeMs: savedAtMs(header),
      content: await shownContent(read.content),
      now: nowMs,
      notes: await vanishedAnchorNotes(read.content, options.projectRoot),
    });
    const bytes = Buffer.byteLength(text, "utf8");
    if (used + bytes > budget) continue;
    used += bytes;
    parts.push({ text, path: header.path });
  }
  if (parts.length > 0) parts.unshift({ text: `memdir: saved memories about ${relativePath}:` });
  return { relativePath, parts };
}
