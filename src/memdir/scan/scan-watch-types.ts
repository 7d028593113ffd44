/** What a `WatchedListing` shares with the registry that made it (`WatchRegistry`). */
export interface WatchOwner {
  readonly tuning: ScanWatchTuning;
  readonly stats: ScanWatchStats;
  /** Events received by every watcher of the registry (for the overflow check). */
  eventsSeen: number;
  /** Events between two rescans from which a lost event must be assumed. */
  eventBurstLimit(): number;
  /** `listing` (a `WatchedListing`) has ended; `unwatchable`: its root is remembered as one that cannot be watched. */
  ended(listing: object, unwatchable: boolean): void;
}

/** Tuning of the watched rescans (tests set `sweepPerRescan` to 0 to check the events alone). */
export interface ScanWatchTuning {
  /**
   * How many listed files each watched rescan re-stats anyway, round-robin (a safety net, ~1 ms):
   * a change no event reports, such as a write through a hard link created outside the memory
   * dir after the listing, is seen within ⌈files / sweep⌉ rescans (one more where the sweep runs
   * ahead, between requests: `WatchRegistry.sweepAhead`). Default 256.
   */
  sweepPerRescan: number;
}

/** How scans were served by one registry (for tests and diagnostics). */
export interface ScanWatchStats {
  /** Rescans answered by a live watch set (only changed paths re-stat'ed). */
  watchedRescans: number;
  /** Watch sets that went live (each after a full scan). */
  watchSetsBuilt: number;
}
