import { debugEnabled, persistedCacheEnabled, watchingEnabled } from "../config.ts";
import type { Clock, MemoryHeader } from "../types.ts";
import type { CacheLog, PersistedCacheStats } from "./cache/persisted-cache.ts";
import type { MemdirCore, MemdirSetup, ScanState } from "./scan/instance-core.ts";
import type { ScanOptions } from "./scan/scan.ts";
import type { ScanWatchStats } from "./scan/scan-watch-types.ts";

// Taken, not imported: this file loads with `import("memdir")` (see config.ts).
const path = process.getBuiltinModule("node:path");

/**
 * How a {@link Memdir} keeps memory headers between scans:
 * - `persisted` (default): in memory, and in `<memoryDir>/.memdir-cache/` so a fresh process
 *   parses only the files changed since (off with `MEMDIR_NO_CACHE=1`: then as `memory`);
 * - `memory`: in memory only;
 * - `off`: every scan reads every header (and no folder is watched).
 */
export type MemdirCacheMode = "persisted" | "memory" | "off";

/** Options of {@link openMemdir}: the side effects an instance may have. */
export interface MemdirOptions {
  /**
   * The environment that `MEMDIR_NO_CACHE`, `MEMDIR_NO_WATCH` and `MEMDIR_DEBUG` are read from.
   * A switch set there turns its feature off even when an option below asks for it. The root's
   * `openMemdir` hands in the process's when none is given; without one, no switch is set.
   */
  env?: NodeJS.ProcessEnv;
  /** The clock of everything this instance stamps or compares with now (default `Date.now`). */
  clock?: Clock;
  /** Default `persisted`; see {@link MemdirCacheMode}. */
  cache?: MemdirCacheMode;
  /**
   * Keep the scanned folders watched, so a rescan re-stats only the files that changed (default
   * true; only on Linux and local file systems, see `scan-watch.ts`). Call {@link Memdir.close}
   * to end the watchers.
   */
  watch?: boolean;
  /**
   * How many listed files each watched rescan re-stats anyway (default 256; tests set 0 to check
   * the events alone). See `ScanWatchTuning`.
   */
  sweepPerRescan?: number;
  /** Where failed background cache saves are reported (default: stderr with `MEMDIR_DEBUG`, else nowhere). */
  log?: CacheLog;
  /**
   * Where long jobs on this directory report how far they are (reading headers, building the
   * lexical index, doctor's checks); the CLI passes one that draws on a terminal (docs/design.md#progress).
   */
  progress?: (step: string, done: number, total: number) => void;
}

/** Counters of one {@link Memdir}: what came from cache files and how scans were served. */
export interface MemdirStats {
  /** Memory headers and lexical-index entries taken from the cache files / read from disk. */
  cache: PersistedCacheStats;
  /** Rescans served by folder watchers, and watch sets built. */
  watch: ScanWatchStats;
}

/**
 * Everything that lives as long as a process works on one memory directory: the header cache,
 * the folder watchers, the background saves of the cache files and their counters, the scratch
 * buffers of the scan, and the lexical index (in {@link extensions}). Two
 * instances share nothing. Create one with {@link openMemdir}.
 *
 * The constructor only resolves its options (and the environment's switches); the caches and
 * watchers (`MemdirCore`, `instance-core.ts`) are made on the first scan or recall, so this
 * class loads with `import("memdir")` at almost no cost (docs/design.md#lazy-entry).
 */
export class Memdir implements ScanState {
  /** The memory directory (absolute). */
  readonly memoryDir: string;
  readonly clock: Clock;
  readonly cacheMode: MemdirCacheMode;
  /** What the options and the environment decided, read once here: all the core needs. @internal */
  readonly setup: MemdirSetup;
  /**
   * Caches of the layers above, each kept under a key its owner made: the lexical index of this
   * directory lives here (`select-lexical.ts`), saved through the core's persisted caches. @internal
   */
  readonly extensions = new Map<symbol, unknown>();
  /** See {@link MemdirOptions.progress}. */
  readonly progress: MemdirOptions["progress"];
  #core: MemdirCore | undefined;
  #closed = false;

  constructor(memoryDir: string, options: MemdirOptions = {}) {
    const env = options.env ?? {};
    this.memoryDir = path.resolve(memoryDir);
    this.clock = options.clock ?? Date.now;
    this.cacheMode = options.cache ?? "persisted";
    this.progress = options.progress;
    const headers = this.cacheMode !== "off";
    this.setup = {
      headers,
      persist: this.cacheMode === "persisted" && persistedCacheEnabled(env),
      watch: headers && options.watch !== false && watchingEnabled(env),
      sweepPerRescan: options.sweepPerRescan,
      log: options.log,
      debug: debugEnabled(env),
    };
  }

  /** This instance's caches and watchers, made with `make` on first use (see `coreOf`). @internal */
  core(make: (setup: MemdirSetup) => MemdirCore): MemdirCore {
    if (this.#core === undefined) {
      this.#core = make(this.setup);
      // Closed before its first scan: it keeps no folder watched, as a closed registry does not.
      if (this.#closed) this.#core.watchers?.close();
    }
    return this.#core;
  }

  /**
   * {@link scanHeaders} of this memory directory with this instance's cache and watchers.
   *
   * @example
   * const memdir = openMemdir(memoryDir);
   * const headers = await memdir.scan({ limit: 200 });
   */
  async scan(options: Omit<ScanOptions, "memdir"> = {}): Promise<MemoryHeader[]> {
    const { scanHeaders } = await import("./scan/scan.ts");
    return scanHeaders(this.memoryDir, { ...options, memdir: this });
  }

  /**
   * Does the folder watchers' next safety sweep now, while nothing waits for a scan (the memory
   * helper calls it after each answer; docs/design.md#the-memory-helper). @internal
   */
  sweepAhead(): void {
    if (!this.#closed) this.#core?.watchers?.sweepAhead();
  }

  /** A copy of this instance's counters. */
  stats(): MemdirStats {
    const watch = this.#core?.watchers?.stats ?? { watchedRescans: 0, watchSetsBuilt: 0 };
    const cache = this.#core ? structuredClone(this.#core.persisted.stats) : noCacheStats();
    return { cache, watch: { ...watch } };
  }

  /** Resolves when every background cache save started so far has finished. */
  async flush(): Promise<void> {
    await this.#core?.persisted.flush();
  }

  /** Waits for the background saves and ends the folder watchers. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#core?.watchers?.close();
    }
    await this.flush();
  }
}

/** The counters of an instance that has not scanned yet (those of a fresh `PersistedCaches`). */
function noCacheStats(): PersistedCacheStats {
  return { headers: { hits: 0, misses: 0 }, index: { hits: 0, misses: 0 } };
}

/**
 * Opens memory directory `memoryDir` for this process: entry points (CLI, MCP server, hooks,
 * the agent session) make one and pass it to the library functions that scan, recall or list.
 * Opening reads nothing yet; the first {@link Memdir.scan} does.
 *
 * @example
 * const memdir = openMemdir(location.memoryDir, { watch: false });
 * const headers = await memdir.scan();
 * await memdir.close();
 */
export function openMemdir(memoryDir: string, options: MemdirOptions = {}): Memdir {
  return new Memdir(memoryDir, options);
}

/**
 * `memdir` when it is the instance of `memoryDir`, else `undefined` (the caller then scans with
 * a private one): code that serves several directories (agent memory dirs, a tool context of
 * another directory) hands an instance only to the scans of its own.
 */
export function memdirFor(memdir: Memdir | undefined, memoryDir: string): Memdir | undefined {
  return memdir !== undefined && memdir.memoryDir === path.resolve(memoryDir) ? memdir : undefined;
}
