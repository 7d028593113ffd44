import { readFileSync, type Stats, statSync } from "node:fs";
import { throwIfAborted } from "../../errors.ts";
import { type Candidate, onLocalFileSystem } from "./scan-list.ts";
import { WatchedListing } from "./scan-watch-listing.ts";
import type { ScanWatchStats, ScanWatchTuning, WatchOwner } from "./scan-watch-types.ts";

/**
 * Watch-backed listings (docs/design.md#caches-and-watchers): a process that scans the same memory directory again (the
 * MCP server, the agent loop) keeps, in its {@link WatchRegistry} (one per Memdir), the last listing of each root and one NON-recursive
 * `fs.watch` per listed folder, so a rescan re-`stat`s only the paths an event named instead of
 * all 20,000 files (~100 ms of `statSync` per rescan, the bulk of a warm scan).
 *
 * Correctness rests on three rules:
 * - A folder is watched BEFORE it is read, and files are stat'ed after that, so every change after
 *   the listing saw a path raises an event naming it (write in place, `utimes`/`chmod`, an atomic
 *   temp+rename over it, delete, create, a new sub-folder).
 * - A rescan first lets one full poll phase run ({@link afterPollPhase}), so every event the
 *   kernel queued before the rescan was called has been read.
 * - Whenever the watch set may have missed something, the caller falls back to the full stat
 *   scan and builds a new one: a watcher error, the root replaced or retargeted, a folder whose
 *   identity changed, more events than the kernel queue could surely hold (inotify drops events
 *   silently on overflow, and libuv ignores the overflow notice), too many changes at once.
 *
 * Symlinked memory files (and files with several hard links) can change without any event in
 * their folder, so they are re-checked on every rescan; a sweep re-stats a few more files per
 * rescan for what no event reports at all (a hard link made from outside after the listing).
 * Only Linux (inotify) on local file systems is watched: elsewhere events arrive late (macOS
 * FSEvents) or not at all for remote writers (NFS, SMB, 9p, FUSE), and the plain stat scan runs.
 * `MEMDIR_NO_WATCH=1` turns watching off.
 */

// Roots kept watched per registry (least recently scanned closed first): a server serves one or
// two memory dirs, while a test process scans many temp dirs.
const WATCHED_ROOTS_KEPT = 4;

/** Options of {@link WatchRegistry}. */
export interface WatchRegistryOptions {
  /** See {@link ScanWatchTuning.sweepPerRescan} (default 256). */
  sweepPerRescan?: number;
}

/**
 * The folder watchers of one owner (a Memdir): the watched roots, their shared event count and
 * counters. Two registries share nothing; {@link close} ends every watcher.
 */
export class WatchRegistry implements WatchOwner {
  readonly tuning: ScanWatchTuning;
  readonly stats: ScanWatchStats = { watchedRescans: 0, watchSetsBuilt: 0 };
  eventsSeen = 0;
  #burstLimit: number | undefined;
  /** Watched roots, most recently scanned last; a marker for roots that cannot be watched. */
  readonly #listings = new Map<string, WatchedListing | "unwatchable">();
  #closed = false;

  constructor(options: WatchRegistryOptions = {}) {
    this.tuning = { sweepPerRescan: options.sweepPerRescan ?? 256 };
  }

  /**
   * Events between two rescans from which a lost event must be assumed. inotify drops events once
   * `max_queued_events` (16,384 by default) are unread, and an overflow only happens with that many
   * queued; they are all read in one go (libuv drains the queue until EAGAIN), so a rescan that
   * follows an overflow sees at least that many. A quarter leaves room for other watchers of the
   * process, which share the one inotify queue.
   */
  eventBurstLimit(): number {
    if (this.#burstLimit === undefined) {
      let queued = 16384;
      try {
        const value = Number.parseInt(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"), 10);
        if (value > 0) queued = value;
      } catch {
        // keep the kernel default
      }
      this.#burstLimit = Math.max(1, Math.floor(queued / 4));
    }
    return this.#burstLimit;
  }

  /**
   * The listing of `root` as the watchers see it now: every memory file with its current
   * `mtimeMs`/`size`, newest first. The array and its objects are never changed afterwards (a
   * later change makes new ones), so callers may keep them. `null` when `root` has no usable watch
   * set: the caller lists the tree itself, with {@link startWatching}'s observer.
   */
  async watchedCandidates(
    root: string,
    realRoot: string,
    signal: AbortSignal | undefined,
  ): Promise<readonly Candidate[] | null> {
    const listing = this.#listings.get(root);
    if (!(listing instanceof WatchedListing) || !listing.live) return null;
    this.#remember(root, listing);
    await afterPollPhase();
    throwIfAborted(signal, "scan");
    if (this.#listings.get(root) !== listing) return null; // closed by a concurrent scan meanwhile
    const sorted = listing.refresh(realRoot);
    if (sorted === null) listing.end();
    else this.stats.watchedRescans++;
    return sorted;
  }

  /**
   * A new watch set for `root`, to be passed as observer to the listing of the full scan and then
   * given its result ({@link WatchedListing.adopt}). `null` when `root` is not watched: watching
   * failed there before, its file system is not local, another scan is setting it up, or the
   * registry is closed.
   */
  startWatching(root: string, realRoot: string): WatchedListing | null {
    if (this.#closed) return null;
    const existing = this.#listings.get(root);
    if (existing === "unwatchable" || (existing instanceof WatchedListing && existing.building)) return null;
    existing?.end();
    if (this.#listings.get(root) === "unwatchable") return null; // what ended it rules watching out here
    let rootStat: Stats;
    try {
      rootStat = statSync(root);
    } catch {
      return null;
    }
    if (!onLocalFileSystem(root)) {
      this.#remember(root, "unwatchable");
      return null;
    }
    const listing = new WatchedListing(this, root, realRoot, rootStat);
    this.#remember(root, listing);
    return listing;
  }

  /** Closes the watchers of `root`, if any (its directory is gone). */
  stopWatching(root: string): void {
    const existing = this.#listings.get(root);
    if (existing instanceof WatchedListing) existing.end();
    else this.#listings.delete(root);
  }

  /**
   * Runs each watched root's next sweep now ({@link WatchedListing.sweepAhead}): for a process
   * that has idle time between rescans (the memory helper), so a rescan does not stat the sweep's
   * files while a prompt waits for it.
   */
  sweepAhead(): void {
    for (const entry of this.#listings.values()) if (entry instanceof WatchedListing) entry.sweepAhead();
  }

  /** Closes every watcher of this registry; it watches nothing afterwards. */
  close(): void {
    this.#closed = true;
    for (const root of [...this.#listings.keys()]) this.stopWatching(root);
    this.#listings.clear();
  }

  /** How many roots this registry watches now (for tests and diagnostics). */
  get watchedRoots(): number {
    let count = 0;
    for (const entry of this.#listings.values()) if (entry instanceof WatchedListing && entry.live) count++;
    return count;
  }

  ended(listing: WatchedListing, unwatchable: boolean): void {
    if (this.#listings.get(listing.root) !== listing) return;
    if (unwatchable) this.#remember(listing.root, "unwatchable");
    else this.#listings.delete(listing.root);
  }

  #remember(root: string, value: WatchedListing | "unwatchable"): void {
    this.#listings.delete(root); // re-inserted last: most recently used
    this.#listings.set(root, value);
    while (this.#listings.size > WATCHED_ROOTS_KEPT) {
      const [oldest, entry] = this.#listings.entries().next().value as [
        string,
        WatchedListing | "unwatchable",
      ];
      if (entry instanceof WatchedListing) entry.end();
      this.#listings.delete(oldest);
    }
  }
}

/**
 * Resolves once the event loop has run a full poll phase after this call.
 *
 * A change made before a scan was called (by this process, a child that has exited, any other
 * writer) is queued by the kernel when its syscall returns, but Node reads the inotify queue only
 * in the event loop's poll phase. Called from a poll-phase callback (an fs or socket callback, or
 * a promise continuation of one), the current poll phase may already be past the inotify fd, and
 * the first `setImmediate` runs in the check phase right after it, still before any further poll
 * phase. The second runs after the next poll phase. From any other phase one hop would do; two
 * cover every case. With immediates pending the poll phase does not block, so this costs two
 * loop turns, not a wait.
 */
export function afterPollPhase(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
