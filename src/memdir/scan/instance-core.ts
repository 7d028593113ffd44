import { type CacheLog, debugCacheLog, PersistedCaches } from "../cache/persisted-cache.ts";
import { HeaderCache } from "./header-cache.ts";
import { ListedCandidates } from "./scan-list.ts";
import { WatchRegistry } from "./scan-watch.ts";

/**
 * What a {@link Memdir} keeps to scan and cache, made on its first scan or recall instead of in
 * its constructor: building it loads the header cache, the cache files and the folder watchers
 * (the frontmatter parser, `node:crypto`, `node:v8`…), and `import("memdir")` must not pay for
 * them (docs/design.md#lazy-entry). A scan without a Memdir makes a private one.
 */
export interface MemdirCore {
  /** The background saves of the instance's cache files and their hit/miss counters. */
  readonly persisted: PersistedCaches;
  /** The header cache scans use when the caller passes no `cache`; `null` with `cache: "off"`. */
  readonly headerCache: HeaderCache | null;
  /** Folder watchers; `null` when watching is off. */
  readonly watchers: WatchRegistry | null;
  /** Candidate objects reused by unwatched listings. */
  readonly listed: ListedCandidates;
  /** The chunk buffer of the synchronous header reads (one at a time, so one buffer). */
  readonly readChunk: Buffer;
}

/** What a Memdir's constructor resolved from its options and environment: all its core needs. */
export interface MemdirSetup {
  /** Header cache kept at all (`cache` other than `off`). */
  readonly headers: boolean;
  /** Cache files read and written (`cache: "persisted"` and no `MEMDIR_NO_CACHE`). */
  readonly persist: boolean;
  /** Folders watched (a header cache, `watch` not false, Linux, no `MEMDIR_NO_WATCH`). */
  readonly watch: boolean;
  readonly sweepPerRescan: number | undefined;
  readonly log: CacheLog | undefined;
  /** `MEMDIR_DEBUG` was set: failed background saves go to stderr unless `log` is given. */
  readonly debug: boolean;
}

/**
 * What a scan keeps between calls: a {@link Memdir} is one (`ScanOptions.memdir`). Without it
 * each scan starts from nothing (no watchers, no reused listing).
 */
export interface ScanState {
  /** The one {@link MemdirCore} of this owner, made with `make` the first time it is asked for. @internal */
  core(make: (setup: MemdirSetup) => MemdirCore): MemdirCore;
  /** Where the scan reports how many headers it has read, when the owner wants to know. */
  readonly progress?: (step: string, done: number, total: number) => void;
}

/** Reads go in chunks of this size (docs/design.md#header-scan): most frontmatter fits in the first 8 KB. */
export const SCAN_CHUNK_BYTES = 8192;

/** The core of `owner` (made now if this is its first use), or a private one without an owner. */
export function coreOf(owner: ScanState | undefined): MemdirCore {
  return owner === undefined ? privateCore() : owner.core(makeCore);
}

function makeCore(setup: MemdirSetup): MemdirCore {
  const persisted = new PersistedCaches({
    enabled: setup.persist,
    log: setup.log ?? debugCacheLog(setup.debug),
  });
  return {
    persisted,
    headerCache: setup.headers ? new HeaderCache({ persist: setup.persist, persisted }) : null,
    watchers: setup.watch ? new WatchRegistry({ sweepPerRescan: setup.sweepPerRescan }) : null,
    listed: new ListedCandidates(),
    readChunk: newReadChunk(),
  };
}

/**
 * The core of a scan made without a Memdir: its own header cache, which loads and saves the
 * cache file as a Memdir's would (so a large directory still costs a fresh process little), and
 * no watchers (nothing would ever close them).
 */
function privateCore(): MemdirCore {
  const headerCache = new HeaderCache({ persist: true });
  return {
    persisted: headerCache.persisted,
    headerCache,
    watchers: null,
    listed: new ListedCandidates(),
    readChunk: newReadChunk(),
  };
}

/** A fresh chunk buffer for {@link MemdirCore.readChunk}. */
function newReadChunk(): Buffer {
  return Buffer.allocUnsafeSlow(SCAN_CHUNK_BYTES * 2);
}
