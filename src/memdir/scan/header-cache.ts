import path from "node:path";
import { persistedCacheEnabled } from "../../config.ts";
import { yieldToEventLoop } from "../../event-loop.ts";
import type { MemoryHeader, MemoryType } from "../../types.ts";
import {
  codeFingerprint,
  loadPersistedCache,
  PersistedCaches,
  worthPersisting,
} from "../cache/persisted-cache.ts";
import { frontmatterParserCode, frontmatterParserVersion } from "../format/frontmatter.ts";
import { provenanceOf } from "../trust/provenance.ts";
import { joinRoot } from "./scan-list.ts";

/** How many lines of each file the header scan reads (docs/design.md#header-scan). */
export const HEADER_MAX_LINES = 30;
/** The hard cap on the bytes a header read takes: a file of 30 enormous lines is never read whole. */
export const HEADER_MAX_BYTES = 256 * 1024;

/** One cached header: valid while the file's `(mtimeMs, size)` are unchanged. */
export interface CachedHeader {
  mtimeMs: number;
  size: number;
  type: MemoryType | null;
  description: string | null;
  name: string | null;
  modifiedMs: number | null;
  /** The frontmatter's `source` and `session` (docs/design.md#provenance), or null: `memdir list --json` shows them. */
  source: string | null;
  session: string | null;
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
 * A {@link Memdir} owns one (see `openMemdir`); a cache of your own stays isolated.
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
  /** Where the cache file is saved from, and its hit/miss counters (`headers`). @internal */
  readonly persisted: PersistedCaches;
  // Roots whose cache file was loaded (once per cache), and whether it needs saving.
  readonly #persistedRoots = new Map<string, { dirty: boolean }>();
  #fingerprint: string | null = null;

  constructor(options: HeaderCacheOptions = {}) {
    this.persist = options.persist === true;
    this.persisted =
      options.persisted ?? new PersistedCaches({ enabled: this.persist && persistedCacheEnabled() });
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

  /**
   * The `source` and `session` read with `header` when this cache's entry for its path is the one
   * the header came from (same mtime and size), else undefined. Counts no hit. @internal
   */
  provenance(header: MemoryHeader): { source: string | null; session: string | null } | undefined {
    const entry = this.entries.get(header.path);
    return entry && entry.mtimeMs === header.mtimeMs && entry.size === header.size
      ? { source: entry.source, session: entry.session }
      : undefined;
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
   * Loads the cache file of memory directory `root` (absolute) once per cache, adding its
   * entries. Each is still checked against a fresh `stat` by {@link get}, so a file changed
   * behind the cache's back is read again. No-op unless persisting.
   * @internal
   */
  async loadPersisted(root: string): Promise<void> {
    if (!this.persist || !this.persisted.enabled || this.#persistedRoots.has(root)) return;
    const state = { dirty: false };
    this.#persistedRoots.set(root, state);
    const data = (await loadPersistedCache(
      root,
      HEADERS_CACHE_NAME,
      this.#headersFingerprint(),
    )) as PersistedHeaders | null;
    if (!isPersistedHeaders(data)) {
      state.dirty = true; // absent or unusable: write a fresh one after this scan
      return;
    }
    // Decoded and taken in in turns of their own (~80 + ~40 ms at 20,000 memories), as the
    // lexical index is (docs/design.md#the-memory-helper).
    await yieldToEventLoop();
    for (let i = 0; i < data.files.length; i++) {
      // Concatenated, as the listing makes paths: `path.join` cost ~10 ms per 2,000 names
      // (docs/design.md#the-prompt-hook-process), and a name that is not normalized never matches a listed path anyway.
      const filePath = joinRoot(root, data.files[i]);
      if (this.entries.has(filePath)) continue; // this process knows better
      this.entries.set(filePath, {
        mtimeMs: data.mtimeMs[i],
        size: data.sizes[i],
        type: data.types[i] as MemoryType | null,
        description: data.descriptions[i],
        name: data.names[i],
        modifiedMs: Number.isNaN(data.modified[i]) ? null : data.modified[i],
        source: data.sources[i],
        session: data.sessions[i],
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
    this.persisted.saveInBackground(root, HEADERS_CACHE_NAME, this.#headersFingerprint(), () =>
      this.#snapshot(root),
    );
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
      names: rows.map(([, entry]) => entry.name),
      modified: Float64Array.from(rows, ([, entry]) => entry.modifiedMs ?? Number.NaN),
      sources: rows.map(([, entry]) => entry.source),
      sessions: rows.map(([, entry]) => entry.session),
    };
  }

  /**
   * Changes whenever the header parsing or the header's shape changes, so a cache file from older
   * code is rebuilt: the version names the columns (2: `names`, `modified`; 3: the parser is
   * fingerprinted by its code and the yaml version instead of by parsing probes, which loaded the
   * YAML parser into every process that only reads the cache, docs/design.md#the-prompt-hook-process; 4: `sources`, `sessions`,
   * so `memdir list --json` reads no file the cache knows).
   */
  #headersFingerprint(): string {
    this.#fingerprint ??= codeFingerprint(
      "headers/4",
      HEADER_MAX_LINES,
      HEADER_MAX_BYTES,
      ...frontmatterParserCode(),
      provenanceOf,
      frontmatterParserVersion(),
    );
    return this.#fingerprint;
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
   * files changed since (off unless asked: a cache of your own stays isolated; a {@link Memdir}'s
   * cache persists). `MEMDIR_NO_CACHE=1` turns it off everywhere.
   */
  persist?: boolean;
  /**
   * The owner's background saves and counters (a Memdir passes its own); by default the cache
   * has private ones, enabled when `persist` and `MEMDIR_NO_CACHE` is not set.
   * @internal
   */
  persisted?: PersistedCaches;
}

const HEADERS_CACHE_NAME = "headers";

/** The cache file's content: one column per field, file names relative to the memory dir. */
interface PersistedHeaders {
  files: string[];
  mtimeMs: Float64Array;
  sizes: Float64Array;
  types: (string | null)[];
  descriptions: (string | null)[];
  names: (string | null)[];
  /** NaN where the file has no valid `modified`. */
  modified: Float64Array;
  sources: (string | null)[];
  sessions: (string | null)[];
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
    data.descriptions.length === count &&
    Array.isArray(data.names) &&
    data.names.length === count &&
    data.modified instanceof Float64Array &&
    data.modified.length === count &&
    Array.isArray(data.sources) &&
    data.sources.length === count &&
    Array.isArray(data.sessions) &&
    data.sessions.length === count
  );
}
