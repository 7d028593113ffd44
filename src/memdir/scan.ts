import { closeSync, openSync, readSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { MemoryHeader, MemoryType } from "../types.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import {
  codeFingerprint,
  loadPersistedCache,
  persistedCacheEnabled,
  persistedCacheStats,
  saveInBackground,
  worthPersisting,
} from "./persisted-cache.ts";
import {
  type Candidate,
  listMarkdownFiles,
  newestFirst,
  statCandidates,
  throwIfAborted,
} from "./scan-list.ts";
import { startWatching, stopWatching, watchedCandidates, watchingEnabled } from "./scan-watch.ts";

export { INDEX_FILE_NAME, isMemoryFileName } from "./scan-list.ts";
export { NO_WATCH_ENV } from "./scan-watch.ts";
/** How many lines of each file the header scan reads (docs/design.md#header-scan). */
export const HEADER_MAX_LINES = 30;
/** The selector's cap on headers (docs/design.md#header-scan). */
export const SCAN_DEFAULT_LIMIT = 200;

// Reads go in small chunks: most frontmatter fits in the first 8 KB, and a 50 MB file must cost
// no more than its first lines. The hard cap stops a file of 30 enormous lines from being read whole.
const CHUNK_BYTES = 8192;
const HEADER_MAX_BYTES = 256 * 1024;
// Header reads on a cold scan run synchronously for at most this long between yields.
const READ_SLICE_MS = 1;
/** The chunk buffer of the synchronous header reads (one at a time, so one buffer). */
const syncChunk = Buffer.allocUnsafeSlow(CHUNK_BYTES * 2);

interface CachedHeader {
  mtimeMs: number;
  size: number;
  type: MemoryType | null;
  description: string | null;
  /**
   * The header object last handed out for this entry: an unchanged file gets the same object
   * on every rescan (no per-rescan garbage, and the lexical index recognizes an unchanged list
   * by identity). Headers are treated as read-only by every caller.
   */
  header?: MemoryHeader;
}

/**
 * Remembers parsed headers by absolute path, valid while `(mtimeMs, size)` are unchanged, so a
 * rescan of an unchanged directory only `stat`s (docs/design.md#caches-and-watchers, "nothing re-reads unchanged files").
 *
 * @example
 * const cache = new HeaderCache();
 * await scanHeaders(dir, { cache }); // reads every header
 * await scanHeaders(dir, { cache }); // reads none
 */
export class HeaderCache {
  private readonly entries = new Map<string, CachedHeader>();
  /** Header reads from disk since creation (cache misses). */
  reads = 0;
  /** Headers served from the cache. */
  hits = 0;
  /** Whether scans load and save `<memoryDir>/.memdir-cache/headers.v8` (see {@link HeaderCacheOptions}). */
  readonly persist: boolean;
  // Roots whose cache file was loaded (once per process), and whether it needs saving.
  readonly #persistedRoots = new Map<string, { dirty: boolean }>();

  constructor(options: HeaderCacheOptions = {}) {
    this.persist = options.persist === true;
  }

  /** The cached header of `filePath` when its mtime and size still match. @internal */
  get(filePath: string, mtimeMs: number, size: number): CachedHeader | undefined {
    const entry = this.entries.get(filePath);
    if (entry && entry.mtimeMs === mtimeMs && entry.size === size) {
      this.hits++;
      return entry;
    }
    return undefined;
  }

  /** @internal */
  set(filePath: string, entry: CachedHeader): void {
    this.entries.set(filePath, entry);
  }

  /** Drops entries for paths not in `keep` (files deleted since the last scan); returns how many. @internal */
  retainOnly(keep: Set<string>, under: string): number {
    let dropped = 0;
    for (const key of this.entries.keys())
      if (key.startsWith(under) && !keep.has(key)) {
        this.entries.delete(key);
        dropped++;
      }
    return dropped;
  }

  /**
   * Loads the cache file of memory directory `root` (absolute) once per process, adding its
   * entries. Each is still checked against a fresh `stat` by {@link get}, so a file changed
   * behind the cache's back is read again. No-op unless persisting.
   * @internal
   */
  async loadPersisted(root: string): Promise<void> {
    if (!this.persist || !persistedCacheEnabled() || this.#persistedRoots.has(root)) return;
    const state = { dirty: false };
    this.#persistedRoots.set(root, state);
    const data = (await loadPersistedCache(
      root,
      HEADERS_CACHE_NAME,
      headersFingerprint(),
    )) as PersistedHeaders | null;
    if (!isPersistedHeaders(data)) {
      state.dirty = true; // absent or unusable: write a fresh one after this scan
      return;
    }
    for (let i = 0; i < data.files.length; i++) {
      const filePath = path.join(root, data.files[i]);
      if (this.entries.has(filePath)) continue; // this process knows better
      this.entries.set(filePath, {
        mtimeMs: data.mtimeMs[i],
        size: data.sizes[i],
        type: data.types[i] as MemoryType | null,
        description: data.descriptions[i],
      });
    }
  }

  /**
   * Marks `root`'s cache file as out of date and saves it in the background (never blocks);
   * `memoryCount` (files in the directory) decides whether a file is worth having at all.
   * @internal
   */
  savePersisted(root: string, changed: boolean, memoryCount: number): void {
    const state = this.#persistedRoots.get(root);
    if (!state) return;
    if (changed) state.dirty = true;
    if (!state.dirty || !worthPersisting(memoryCount)) return;
    state.dirty = false;
    saveInBackground(root, HEADERS_CACHE_NAME, headersFingerprint(), () => this.#snapshot(root));
  }

  /** The entries under `root`, in the columnar form of the cache file. */
  #snapshot(root: string): PersistedHeaders {
    const prefix = root.endsWith(path.sep) ? root : root + path.sep;
    const rows: [string, CachedHeader][] = [];
    for (const [filePath, entry] of this.entries)
      if (filePath.startsWith(prefix)) rows.push([filePath.slice(prefix.length), entry]);
    return {
      files: rows.map(([file]) => file),
      mtimeMs: Float64Array.from(rows, ([, entry]) => entry.mtimeMs),
      sizes: Float64Array.from(rows, ([, entry]) => entry.size),
      types: rows.map(([, entry]) => entry.type),
      descriptions: rows.map(([, entry]) => entry.description),
    };
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Options of {@link HeaderCache}. */
export interface HeaderCacheOptions {
  /**
   * Load and save `<memoryDir>/.memdir-cache/headers.v8`, so a fresh process parses only the
   * files changed since (off unless asked: a cache of your own stays isolated; the process-wide
   * {@link defaultHeaderCache} persists). `MEMDIR_NO_CACHE=1` turns it off everywhere.
   */
  persist?: boolean;
}

/** The process-wide cache used when a caller passes none; persisted in the memory directory. */
export const defaultHeaderCache = new HeaderCache({ persist: true });

const HEADERS_CACHE_NAME = "headers";

/** The cache file's content: one column per field, file names relative to the memory dir. */
interface PersistedHeaders {
  files: string[];
  mtimeMs: Float64Array;
  sizes: Float64Array;
  types: (string | null)[];
  descriptions: (string | null)[];
}

function isPersistedHeaders(data: PersistedHeaders | null): data is PersistedHeaders {
  if (data === null || typeof data !== "object") return false;
  const count = Array.isArray(data.files) ? data.files.length : -1;
  return (
    count >= 0 &&
    data.mtimeMs instanceof Float64Array &&
    data.mtimeMs.length === count &&
    data.sizes instanceof Float64Array &&
    data.sizes.length === count &&
    Array.isArray(data.types) &&
    data.types.length === count &&
    Array.isArray(data.descriptions) &&
    data.descriptions.length === count
  );
}

let cachedHeadersFingerprint: string | null = null;
/** Changes whenever the header parsing changes, so a cache file from older code is rebuilt. */
function headersFingerprint(): string {
  cachedHeadersFingerprint ??= codeFingerprint(
    "headers/1",
    HEADER_MAX_LINES,
    HEADER_MAX_BYTES,
    parseFrontmatter,
    parseFrontmatter("---\nname: n\ndescription: a probe, with: colons\ntype: feedback\n---\nbody", {
      maxLines: HEADER_MAX_LINES,
    }),
  );
  return cachedHeadersFingerprint;
}

export interface ScanOptions {
  /** Keep only the newest `limit` headers (the selector uses 200); only those are read. */
  limit?: number;
  signal?: AbortSignal;
  /** Defaults to {@link defaultHeaderCache}; pass `null` to read every file fresh. */
  cache?: HeaderCache | null;
  /**
   * Keep the folders watched so a rescan in this process re-stats only the files that changed
   * (default true; off with `cache: null`, on platforms other than Linux, on file systems that
   * are not local, and everywhere with `MEMDIR_NO_WATCH=1`). See `scan-watch.ts`.
   */
  watch?: boolean;
}

/**
 * Scans a memory directory for memory headers (docs/design.md#header-scan): every `*.md` file at any depth except
 * files named `MEMORY.md` (at any depth: a `MEMORY.md` in a sub-folder is an index too, as in the
 * original), reading only the first 30 lines of each. Newest first (ties by file name).
 *
 * Skipped: unreadable files and folders, non-regular files, dot-folders (`.git`, backups),
 * symlinked folders (never followed, so no loops), and symlinked files whose real path leaves
 * the memory directory. A missing directory yields `[]`.
 *
 * A rescan in the same process is served by folder watchers where it can (Linux, local file
 * systems; see `scan-watch.ts` and {@link ScanOptions.watch}): only the paths that changed are
 * `stat`ed again, and the result is the one a full scan would give.
 *
 * @example
 * const headers = await scanHeaders("/home/me/.claude/projects/-work-shop/memory", { limit: 200 });
 * console.log(formatManifest(headers));
 */
export async function scanHeaders(memoryDir: string, options: ScanOptions = {}): Promise<MemoryHeader[]> {
  const cache = options.cache === undefined ? defaultHeaderCache : options.cache;
  const root = path.resolve(memoryDir);
  const realRoot = await fs.realpath(root).catch(() => null);
  if (realRoot === null) {
    stopWatching(root);
    return [];
  }
  // The cache file is read while the tree is listed (it never throws).
  const loading = cache?.persist ? cache.loadPersisted(root) : null;
  const watch = cache !== null && options.watch !== false && watchingEnabled();
  const candidates = await sortedCandidates(root, realRoot, watch, options.signal);
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
    persistedCacheStats.headers.hits += chosen.length - misses.length;
    persistedCacheStats.headers.misses += misses.length;
  }
  const readsBefore = cache?.reads ?? 0;
  try {
    await readMissingHeaders(chosen, misses, headers, cache, options.signal);
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
 * watch set built alongside, when `watch`). The array is never changed afterwards.
 */
async function sortedCandidates(
  root: string,
  realRoot: string,
  watch: boolean,
  signal: AbortSignal | undefined,
): Promise<readonly Candidate[]> {
  if (watch) {
    const watched = await watchedCandidates(root, realRoot, signal);
    if (watched) return watched;
  }
  const listing = watch ? startWatching(root, realRoot) : null;
  try {
    const listed = await listMarkdownFiles(root, realRoot, signal, listing ?? undefined);
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
  chosen: readonly Candidate[],
  misses: readonly number[],
  headers: (MemoryHeader | null)[],
  cache: HeaderCache | null,
  signal: AbortSignal | undefined,
): Promise<void> {
  // Synchronous reads in time slices, yielding to the event loop between slices: an awaited
  // open/read/close costs three thread-pool round trips and three promises per file, which made
  // a cold scan of 20,000 files slower than the naive reference. A slice stops after
  // READ_SLICE_MS (measured at 20,000 files on a loaded 2-core box: 3.2–4.0 s → ~1.6 s cold).
  let next = 0;
  while (next < misses.length) {
    if (next > 0) await new Promise((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    const sliceEnd = performance.now() + READ_SLICE_MS;
    do {
      const i = misses[next++];
      const candidate = chosen[i];
      let text: string;
      try {
        text = readHeadLinesSync(candidate.path, HEADER_MAX_LINES);
      } catch {
        continue; // unreadable or vanished: skipped
      }
      const parsed = parseFrontmatter(text, { maxLines: HEADER_MAX_LINES });
      const entry: CachedHeader = {
        mtimeMs: candidate.mtimeMs,
        size: candidate.size,
        type: parsed.type,
        description: parsed.description,
      };
      const header = toHeader(candidate, entry);
      entry.header = header;
      if (cache) {
        cache.reads++;
        cache.set(candidate.path, entry);
      }
      headers[i] = header;
    } while (next < misses.length && performance.now() < sliceEnd);
  }
}

/**
 * Reads the first `maxLines` lines of a file in small chunks (never the whole file, at most
 * {@link HEADER_MAX_BYTES}) with one reused buffer, and returns them as text without the newline
 * that ends the last one.
 */
function readHeadLinesSync(filePath: string, maxLines: number): string {
  const fd = openSync(filePath, "r");
  try {
    let buffer = syncChunk;
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
  };
}

/**
 * One manifest line (docs/design.md#the-manifest): `- [type] file (ISO mtime): description`. When the scan found no
 * valid type the `[type] ` tag is left out, and with no description the `: description` part is
 * left out, as the original does — the model sees exactly what is known, never a placeholder.
 *
 * @example
 * manifestLine(h) // "- [feedback] feedback-real-database.md (2026-01-03T10:00:00.000Z): login tests hit a real DB"
 */
export function manifestLine(
  header: Pick<MemoryHeader, "file" | "mtimeMs" | "type" | "description">,
): string {
  const tag = header.type ? `[${header.type}] ` : "";
  const time = isoTime(header.mtimeMs);
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
