import fs from "node:fs/promises";
import path from "node:path";
import { persistedCacheEnabled } from "../../../config.ts";
import { throwIfAborted } from "../../../errors.ts";
import { yieldToEventLoop } from "../../../event-loop.ts";
import {
  loadPersistedBinary,
  PersistedCaches,
  worthPersisting,
} from "../../../memdir/cache/persisted-cache.ts";
import { mapBounded } from "../../../memdir/scan/scan-list.ts";
import type { MemoryHeader, ProgressSink } from "../../../types.ts";
import { bundledWordVectors, type WordVectors } from "../text/word-vectors.ts";
import {
  isPersistedIndex,
  LEXICAL_CACHE_NAME,
  lexicalFingerprint,
  persistedContent,
  persistedIndexOf,
  snapshotCorpus,
} from "./cache-file.ts";
import { Corpus } from "./corpus.ts";
import type { IndexedMemory } from "./memory-record.ts";
import { IndexedPartReader, READ_CONCURRENCY } from "./read-file.ts";
import { RankScratch } from "./scratch.ts";
import { type SaveOrder, saveOrder } from "./times.ts";

/**
 * An incremental, in-memory index of one memory directory for the lexical selector.
 *
 * Each file is read and tokenized once per `(path, mtimeMs, size)`; a file that changes behind
 * our back gets a new key from the next header scan and is re-read, a file that disappears is
 * dropped. The statistics live in a {@link Corpus}; this class keeps it in step with the disk
 * and with the cache file (cache-file.ts), and owns the scratch space ranking reuses.
 */

/** How long the index reads and tokenizes files before it lets the event loop run (ms). */
const INDEX_SLICE_MS = 5;

/** Index of one memory directory. Obtain it from a {@link LexicalIndexCache}. */
export class LexicalIndex {
  readonly corpus = new Corpus();
  /** Buffers the ranking of one query reuses (ranking is synchronous, so one set per index). */
  readonly scratch = new RankScratch();
  readonly #reader = new IndexedPartReader();
  // Persistence (see LexicalIndexCache): the memory dir, and whether the cache file needs saving.
  readonly #root: string | null;
  readonly #persisted: PersistedCaches | null;
  // The load of the cache file, once: a sync that comes while it runs waits for the same one.
  #persistLoading: Promise<void> | null = null;
  #persistDirty = false;
  #fingerprint: string | null = null;
  readonly #fromCacheFile = new WeakSet<IndexedMemory>();
  // The last completed sync (see syncedWith): its headers, and the corpus version then.
  #syncedHeaders: MemoryHeader[] | null = null;
  #syncedVersion = 0;
  #headerByFile: Map<string, MemoryHeader> | null = null;
  #saveOrder: SaveOrder | null = null;

  /**
   * `persistRoot`: the absolute memory directory whose `.memdir-cache/lexical.bin` to load and
   * save, through `persisted` (its background saves and counters; a Memdir's own, see
   * `openMemdir`). Without either, nothing is loaded or saved.
   */
  constructor(persistRoot: string | null = null, persisted: PersistedCaches | null = null) {
    this.#root = persisted === null ? null : persistRoot;
    this.#persisted = persisted;
  }

  /** Memories indexed. */
  get size(): number {
    return this.corpus.size;
  }

  /**
   * Brings the index in line with `headers` (the files as they are on disk now): reads new or
   * changed files, forgets files that no longer exist. Files indexed earlier but absent from
   * `headers` (e.g. filtered out by the caller) stay as long as they still exist, so filtering
   * does not thrash the cache. Unreadable files are skipped, never fatal.
   */
  async sync(headers: readonly MemoryHeader[], signal?: AbortSignal, progress?: ProgressSink): Promise<void> {
    if (this.#root !== null) {
      // A load that failed counts as no cache file (rebuilt and saved), here and for every later sync.
      this.#persistLoading ??= this.#loadPersisted(this.#root).catch(() => {
        this.#persistDirty = true;
      });
      await this.#persistLoading;
    }
    // Nothing changed since the last sync: the same header objects (the scan hands back the
    // same object for an unchanged file) and no add/remove since. Comparing 20,000 references
    // costs microseconds; the full check below costs ~15 ms of map look-ups.
    if (this.syncedWith(headers)) return;
    const sizeBefore = this.corpus.size;
    let read = 0;
    try {
      read = await this.#syncFiles(headers, signal, progress);
    } finally {
      // Also after an abort (a hook's time bound): what was indexed so far is kept for next time.
      if (read > 0 || this.corpus.size !== sizeBefore) this.#persistDirty = true;
      this.#savePersisted();
    }
    // Only a complete sync is remembered (an abort or a failed read leaves the next one to redo it).
    this.#syncedHeaders = headers.slice();
    this.#syncedVersion = this.corpus.version;
    this.#headerByFile = null;
    this.#saveOrder = null;
  }

  /**
   * True when `headers` are exactly the header objects of the last completed {@link sync}, in
   * order, and no memory was added or removed since: the index is in line with them.
   */
  syncedWith(headers: readonly MemoryHeader[]): boolean {
    const last = this.#syncedHeaders;
    if (last === null || this.#syncedVersion !== this.corpus.version || last.length !== headers.length)
      return false;
    for (let i = 0; i < last.length; i++) if (last[i] !== headers[i]) return false;
    return true;
  }

  /**
   * Header by file name of the last completed {@link sync} (built once, reused by every query
   * until the next sync that changes something). Callers check {@link syncedWith} first.
   */
  syncedHeaderByFile(): ReadonlyMap<string, MemoryHeader> {
    if (this.#headerByFile === null) {
      const byFile = new Map<string, MemoryHeader>();
      for (const header of this.#syncedHeaders ?? []) byFile.set(header.file, header);
      this.#headerByFile = byFile;
    }
    return this.#headerByFile;
  }

  /** The last completed {@link sync}'s headers in save order (built once per sync, like the times). */
  syncedSaveOrder(): SaveOrder {
    this.#saveOrder ??= saveOrder(this.#syncedHeaders ?? []);
    return this.#saveOrder;
  }

  /** The body of {@link sync}; returns how many files were read. */
  async #syncFiles(
    headers: readonly MemoryHeader[],
    signal: AbortSignal | undefined,
    progress: ProgressSink | undefined,
  ): Promise<number> {
    const stale: MemoryHeader[] = [];
    const wanted = new Set<string>();
    let reused = 0;
    for (const header of headers) {
      wanted.add(header.file);
      const known = this.corpus.get(header.file);
      if (
        !known ||
        known.mtimeMs !== header.mtimeMs ||
        known.size !== header.size ||
        known.path !== header.path
      ) {
        stale.push(header);
      } else if (this.#fromCacheFile.delete(known)) {
        reused++;
      }
    }
    if (this.#root !== null && this.#persisted !== null) {
      this.#persisted.stats.index.hits += reused;
      this.#persisted.stats.index.misses += stale.length;
    }
    // Synchronous reads in time slices, yielding to the event loop between slices (as the header
    // scan does, memdir/scan/scan.ts), so a hook's time bound and a helper's socket are still served.
    // Files are indexed in the order given: term ids and posting order then never depend on
    // timing, so equal scores break the same way in every process.
    let sliceEnd = performance.now() + INDEX_SLICE_MS;
    for (let i = 0; i < stale.length; i++) {
      if (performance.now() >= sliceEnd) {
        progress?.("indexing memories", i, stale.length);
        await yieldToEventLoop();
        sliceEnd = performance.now() + INDEX_SLICE_MS;
      }
      throwIfAborted(signal, "recall: lexical selection");
      let text: string | null;
      try {
        text = this.#reader.readSync(stale[i].path);
      } catch {
        text = null; // unreadable or vanished: skipped
      }
      this.corpus.remove(stale[i].file);
      if (text !== null) this.corpus.add(stale[i], text);
    }
    if (stale.length > 0) progress?.("indexing memories", stale.length, stale.length);
    // Common case: the caller passed every indexed file, so nothing can be missing.
    const missing =
      this.corpus.size <= wanted.size && headers.every((h) => this.corpus.has(h.file))
        ? []
        : [...this.corpus.files()].filter((file) => !wanted.has(file));
    await mapBounded(missing, READ_CONCURRENCY, undefined, async (file) => {
      const memory = this.corpus.get(file);
      if (!memory) return;
      const exists = await fs.stat(memory.path).then(
        (stat) => stat.mtimeMs === memory.mtimeMs && stat.size === memory.size,
        () => false,
      );
      if (!exists) this.corpus.remove(file);
    });
    return stale.length;
  }

  /**
   * Adopts the cache file of the memory dir into this (still empty) index: the dictionary with
   * its ids, every memory's statistics and the collection totals. Nothing is trusted blindly:
   * `sync` compares every adopted memory with the fresh header (re-reading a changed file) and
   * stats the ones the caller did not pass (dropping files changed or deleted behind our back).
   */
  async #loadPersisted(root: string): Promise<void> {
    if (!this.#persisted?.enabled) return;
    const data = persistedIndexOf(
      await loadPersistedBinary(root, LEXICAL_CACHE_NAME, this.#cacheFingerprint()),
    );
    // Read, checked and adopted in turns of the event loop of their own: at 20,000 memories
    // (a 52 MB file) the three took ~540 ms in one stretch, longer than a helper client waits
    // for its acknowledgement (docs/design.md#the-memory-helper).
    await yieldToEventLoop();
    if (!isPersistedIndex(data)) {
      this.#persistDirty = true;
      return;
    }
    await yieldToEventLoop();
    // Only into an empty index: the file's term ids become this index's ids.
    if (this.corpus.size > 0 || this.corpus.dictionary.size > 0) return;
    for (const memory of this.corpus.adopt(data, root)) this.#fromCacheFile.add(memory);
    await yieldToEventLoop(); // before the sync compares every adopted memory with its header
  }

  #savePersisted(): void {
    if (this.#root === null || this.#persisted === null) return;
    if (!this.#persisted.enabled || !this.#persistDirty || !worthPersisting(this.corpus.size)) return;
    this.#persistDirty = false;
    void this.#persisted.saveInBackground(
      this.#root,
      LEXICAL_CACHE_NAME,
      this.#cacheFingerprint(),
      () => persistedContent(snapshotCorpus(this.corpus)),
      "binary",
    );
  }

  #cacheFingerprint(): string {
    this.#fingerprint ??= lexicalFingerprint();
    return this.#fingerprint;
  }
}

/** Options of {@link LexicalIndexCache}. */
export interface LexicalIndexCacheOptions {
  /** Load and save each index's cache file (see the constructor). */
  persist?: boolean;
  /** Whose background saves and counters to use (a Memdir's). @internal */
  persisted?: PersistedCaches;
}

/**
 * One {@link LexicalIndex} per memory directory, kept for as long as the owner (a `Memdir`, or a
 * selector) keeps the cache.
 * Pass one explicitly to share or isolate caches; a selector given none makes its own.
 */
export class LexicalIndexCache {
  readonly #indexes = new Map<string, LexicalIndex>();
  readonly #persisted: PersistedCaches | null;
  /**
   * `persist`: each index loads `<memoryDir>/.memdir-cache/lexical.bin` on first use and saves it
   * in the background after a sync that read or dropped files, so a fresh process re-reads only
   * the files changed since. Off unless asked (a cache of your own stays isolated; the one
   * `createLexicalSelector()` makes when given none persists). `MEMDIR_NO_CACHE=1` turns it off.
   * `persisted`: whose background saves and counters to use (a Memdir's, which then decides
   * whether anything is persisted); by default the cache has its own.
   */
  constructor(options: LexicalIndexCacheOptions = {}) {
    this.#persisted =
      options.persisted ??
      (options.persist === true ? new PersistedCaches({ enabled: persistedCacheEnabled() }) : null);
  }
  /** The index of `memoryDir`, created empty on first use. @internal */
  forDirectory(memoryDir: string): LexicalIndex {
    let index = this.#indexes.get(memoryDir);
    if (!index) {
      index = new LexicalIndex(path.resolve(memoryDir), this.#persisted);
      this.#indexes.set(memoryDir, index);
    }
    return index;
  }
  /** Resolves when the background saves of this cache's index files have finished. */
  async flush(): Promise<void> {
    await this.#persisted?.flush();
  }
  /** The bundled word vectors (read once per process, see word-vectors.ts); null when unusable. */
  bundledWordVectors(): WordVectors | null {
    return bundledWordVectors();
  }
  /** Drops every cached index. */
  clear(): void {
    this.#indexes.clear();
  }
}
