import { closeSync, readSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { throwIfAborted } from "../../errors.ts";
import { yieldToEventLoop } from "../../event-loop.ts";
import { type MemoryHeader, type ProgressSink, savedAtMs } from "../../types.ts";
import { parseFrontmatter } from "../format/frontmatter.ts";
import { openReadableInsideSync } from "../fs/open-safely.ts";
import { provenanceOf } from "../trust/provenance.ts";
import { type CachedHeader, HEADER_MAX_BYTES, HEADER_MAX_LINES, type HeaderCache } from "./header-cache.ts";
import { coreOf, SCAN_CHUNK_BYTES, type ScanState } from "./instance-core.ts";
import {
  type Candidate,
  type ListedCandidates,
  listMarkdownFiles,
  newestFirst,
  statCandidates,
} from "./scan-list.ts";
import type { WatchRegistry } from "./scan-watch.ts";

/** The selector's cap on headers (docs/design.md#header-scan). */
export const SCAN_DEFAULT_LIMIT = 200;

// Reads go in small chunks (SCAN_CHUNK_BYTES): most frontmatter fits in the first 8 KB, and a
// 50 MB file must cost no more than its first lines (HEADER_MAX_BYTES caps the whole read).
const CHUNK_BYTES = SCAN_CHUNK_BYTES;
// Header reads on a cold scan run synchronously for at most this long between yields.
const READ_SLICE_MS = 1;

export interface ScanOptions {
  /** Keep only the newest `limit` headers (the selector uses 200); only those are read. */
  limit?: number;
  signal?: AbortSignal;
  /**
   * Defaults to the header cache of `memdir` (without one, a private cache that only loads and
   * saves the cache file); pass `null` to read every file fresh.
   */
  cache?: HeaderCache | null;
  /**
   * Keep the folders watched so a rescan with the same `memdir` re-stats only the files that
   * changed (default true; off without a `memdir`, with `cache: null`, when the Memdir was opened
   * with `watch: false`, on platforms other than Linux, on file systems that are not local, and
   * everywhere with `MEMDIR_NO_WATCH=1`). See `scan-watch.ts`.
   */
  watch?: boolean;
  /** The instance whose caches and watchers the scan uses (a `Memdir`, see `openMemdir`); `memdir.scan()` passes itself. */
  memdir?: ScanState;
  /** Where the headers read so far are reported (default: `memdir`'s progress, if any); a `ProgressSink`. */
  progress?: (step: string, done: number, total: number) => void;
}

/**
 * Scans a memory directory for memory headers (docs/design.md#header-scan): every `*.md` file at any depth except
 * files named `MEMORY.md` (at any depth: a `MEMORY.md` in a sub-folder is an index too, as in the
 * original), reading only the first 30 lines of each. Newest first (ties by file name).
 *
 * Skipped: unreadable files and folders, non-regular files, dot-folders (`.git`, backups),
 * symlinked folders (never followed, so no loops), symlinked files whose real path leaves
 * the memory directory, and links to a memory listed under its own name (the same memory twice).
 * A missing directory yields `[]`.
 *
 * A rescan with the same {@link ScanOptions.memdir} is served by folder watchers where it can
 * (Linux, local file systems; see `scan-watch.ts` and {@link ScanOptions.watch}): only the paths
 * that changed are `stat`ed again, and the result is the one a full scan would give.
 *
 * @example
 * const headers = await scanHeaders("/home/me/.claude/projects/-work-shop/memory", { limit: 200 });
 * console.log(formatManifest(headers));
 */
export async function scanHeaders(memoryDir: string, options: ScanOptions = {}): Promise<MemoryHeader[]> {
  const state = coreOf(options.memdir);
  const cache = options.cache === undefined ? state.headerCache : options.cache;
  const root = path.resolve(memoryDir);
  const realRoot = await fs.realpath(root).catch(() => null);
  if (realRoot === null) {
    state.watchers?.stopWatching(root);
    return [];
  }
  // The cache file is read while the tree is listed (it never throws).
  const loading = cache?.persist ? cache.loadPersisted(root) : null;
  const watchers = cache !== null && options.watch !== false ? state.watchers : null;
  const candidates = await sortedCandidates(root, realRoot, watchers, state.listed, options.signal);
  const chosen = options.limit !== undefined ? candidates.slice(0, Math.max(0, options.limit)) : candidates;
  await loading;
  // Cache hits are resolved synchronously: 20,000 awaited no-op reads cost more than the stats.
  const headers = new Array<MemoryHeader | null>(chosen.length).fill(null);
  const misses: number[] = [];
  for (let i = 0; i < chosen.length; i++) {
    const candidate = chosen[i];
    const cached = cache?.get(candidate.path, candidate.mtimeMs, candidate.size);
    if (cached) {
      let header = cached.header;
      if (header === undefined || header.path !== candidate.path || header.file !== candidate.file) {
        header = toHeader(candidate, cached);
        cached.header = header;
      }
      headers[i] = header;
    } else misses.push(i);
  }
  if (cache?.persist) {
    cache.persisted.stats.headers.hits += chosen.length - misses.length;
    cache.persisted.stats.headers.misses += misses.length;
  }
  const readsBefore = cache?.reads ?? 0;
  try {
    await readMissingHeaders(
      realRoot,
      chosen,
      misses,
      headers,
      cache,
      state.readChunk,
      options.signal,
      options.progress ?? options.memdir?.progress,
    );
  } finally {
    // Also after an abort (a hook's time bound): the headers read so far are kept for next time.
    // Every cached entry is one of this scan's files when the cache holds exactly the hits plus
    // the reads: then nothing can be stale, and no 20,000-entry set is built per rescan.
    const present = cache ? chosen.length - misses.length + (cache.reads - readsBefore) : 0;
    const dropped =
      cache && options.limit === undefined && !options.signal?.aborted && cache.size > present
        ? cache.retainOnly(new Set(candidates.map((c) => c.path)), root)
        : 0;
    if (cache?.persist)
      cache.savePersisted(root, cache.reads !== readsBefore || dropped > 0, candidates.length);
  }
  // Usually every header resolved: no second 20,000-element array per rescan.
  return headers.includes(null)
    ? headers.filter((h): h is MemoryHeader => h !== null)
    : (headers as MemoryHeader[]);
}

/**
 * Every memory file under `root` with its `stat`, newest first: from the watched listing when
 * there is a live one (only changed paths re-stat'ed), else listed and stat'ed in full (and a
 * watch set built alongside, with `watchers`). The array is never changed afterwards.
 */
async function sortedCandidates(
  root: string,
  realRoot: string,
  watchers: WatchRegistry | null,
  reuse: ListedCandidates,
  signal: AbortSignal | undefined,
): Promise<readonly Candidate[]> {
  if (watchers) {
    const watched = await watchers.watchedCandidates(root, realRoot, signal);
    if (watched) return watched;
  }
  const listing = watchers ? watchers.startWatching(root, realRoot) : null;
  try {
    const listed = await listMarkdownFiles(root, realRoot, signal, listing ?? undefined, reuse);
    const candidates = await statCandidates(listed, signal, listing ?? undefined);
    candidates.sort(newestFirst);
    listing?.adopt(candidates);
    return candidates;
  } catch (error) {
    listing?.end();
    throw error;
  }
}

/** Reads and parses the headers at `misses` (indexes into `chosen`), filling `headers` and the cache. */
async function readMissingHeaders(
  realRoot: string,
  chosen: readonly Candidate[],
  misses: readonly number[],
  headers: (MemoryHeader | null)[],
  cache: HeaderCache | null,
  chunk: Buffer,
  signal: AbortSignal | undefined,
  progress: ProgressSink | undefined,
): Promise<void> {
  // Synchronous reads in time slices, yielding to the event loop between slices: an awaited
  // open/read/close costs three thread-pool round trips and three promises per file, which made
  // a cold scan of 20,000 files slower than the naive reference. A slice stops after
  // READ_SLICE_MS (measured at 20,000 files on a loaded 2-core box: 3.2–4.0 s → ~1.6 s cold).
  let next = 0;
  while (next < misses.length) {
    if (next > 0) await yieldToEventLoop();
    throwIfAborted(signal, "scan");
    const sliceEnd = performance.now() + READ_SLICE_MS;
    do {
      const i = misses[next++];
      const candidate = chosen[i];
      let text: string;
      try {
        text = readHeadLinesSync(realRoot, candidate.path, HEADER_MAX_LINES, chunk);
      } catch {
        continue; // unreadable or vanished: skipped
      }
      const parsed = parseFrontmatter(text, { maxLines: HEADER_MAX_LINES });
      const entry: CachedHeader = {
        mtimeMs: candidate.mtimeMs,
        size: candidate.size,
        type: parsed.type,
        description: parsed.description,
        name: parsed.name,
        modifiedMs: parsed.modifiedMs,
        ...provenanceOf(parsed.data),
      };
      const header = toHeader(candidate, entry);
      entry.header = header;
      if (cache) {
        cache.reads++;
        cache.set(candidate.path, entry);
      }
      headers[i] = header;
    } while (next < misses.length && performance.now() < sliceEnd);
    progress?.("reading memory headers", next, misses.length);
  }
}

/**
 * Reads the first `maxLines` lines of a file in small chunks (never the whole file, at most
 * {@link HEADER_MAX_BYTES}) with one reused buffer (`chunk`), and returns them as text without the
 * newline that ends the last one.
 */
function readHeadLinesSync(realRoot: string, filePath: string, maxLines: number, chunk: Buffer): string {
  // Opened, then checked to lie inside: a folder swapped for a symlink since the listing is skipped.
  const { fd } = openReadableInsideSync(realRoot, filePath);
  try {
    let buffer = chunk;
    let total = 0;
    let newlines = 0;
    while (total < HEADER_MAX_BYTES) {
      if (total + CHUNK_BYTES > buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(HEADER_MAX_BYTES, buffer.length * 2) + CHUNK_BYTES);
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const bytesRead = readSync(fd, buffer, total, CHUNK_BYTES, total);
      if (bytesRead === 0) break;
      for (let i = total; i < total + bytesRead; i++) {
        if (buffer[i] === 0x0a && ++newlines === maxLines) return buffer.toString("utf8", 0, i);
      }
      total += bytesRead;
    }
    return buffer.toString("utf8", 0, Math.min(total, HEADER_MAX_BYTES));
  } finally {
    closeSync(fd);
  }
}

function toHeader(candidate: Candidate, entry: CachedHeader): MemoryHeader {
  return {
    file: candidate.file,
    path: candidate.path,
    mtimeMs: candidate.mtimeMs,
    size: candidate.size,
    type: entry.type,
    description: entry.description,
    name: entry.name,
    modifiedMs: entry.modifiedMs,
  };
}

/**
 * One manifest line (docs/design.md#the-manifest): `- [type] file (ISO saved time): description`,
 * the saved time being `modified` when the file has a valid one, else its mtime. When the scan found no
 * valid type the `[type] ` tag is left out, and with no description the `: description` part is
 * left out, as the original does — the model sees exactly what is known, never a placeholder.
 *
 * @example
 * manifestLine(h) // "- [feedback] feedback-real-database.md (2026-01-03T10:00:00.000Z): login tests hit a real DB"
 */
export function manifestLine(
  header: Pick<MemoryHeader, "file" | "mtimeMs" | "modifiedMs" | "type" | "description">,
): string {
  return manifestLineWithTime(header, isoTime(savedAtMs(header)));
}

/**
 * A {@link manifestLine} with `time` in place of the ISO saved time: `memdir list` shows a
 * person the age ("2 days ago").
 *
 * @example
 * manifestLineWithTime(h, "2 days ago") // "- [feedback] feedback-real-database.md (2 days ago): login tests hit a real DB"
 */
export function manifestLineWithTime(
  header: Pick<MemoryHeader, "file" | "type" | "description">,
  time: string,
): string {
  const tag = header.type ? `[${header.type}] ` : "";
  const description = header.description ? `: ${header.description.replace(/\s*[\r\n]+\s*/g, " ")}` : "";
  return `- ${tag}${header.file} (${time})${description}`;
}

/**
 * An mtime as ISO text, rounded to the millisecond: `stat` reports nanosecond mtimes, so a file
 * stamped at `…738` ms reads back as `…737.999` and would otherwise print one millisecond early.
 */
export function isoTime(mtimeMs: number): string {
  return new Date(Math.round(mtimeMs)).toISOString();
}

/** The manifest of many headers: one {@link manifestLine} per header, joined by newlines. */
export function formatManifest(headers: readonly MemoryHeader[]): string {
  return headers.map(manifestLine).join("\n");
}
