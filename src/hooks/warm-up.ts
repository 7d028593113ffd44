import fs from "node:fs/promises";
import path from "node:path";
import { persistedCacheEnabled } from "../config.ts";
import { CACHE_DIRECTORY_NAME, worthPersisting } from "../memdir/cache/persisted-cache.ts";
import { writeFileAtomic } from "../memdir/fs/atomic.ts";
import { liveLeaseHolder, tryTakeLease } from "../memdir/fs/lease.ts";
import { isMemoryFileName } from "../memdir/scan/scan-list.ts";

/**
 * Cache warm-up for hooks. A `UserPromptSubmit` hook has ~3 s; in a big memory dir (2,000+
 * memories) with no persisted caches, scanning the headers and building the lexical index does
 * not fit, so the first prompt of a session would get nothing. `memdir hook session-start` starts
 * `memdir warm-up` in the background when the caches are missing or stale, and that process fills
 * `.memdir-cache/` completely before the user has typed the first prompt.
 */

/** Held while a warm-up runs (inside `.memdir-cache/`, so nothing else ever sees it). */
export const WARM_UP_LOCK_FILE = "warm-up.lock";
/** Written after a complete warm-up: what the caches looked like then. */
export const WARM_UP_MARKER_FILE = "warm-up.json";
// A warm-up of 20,000 memories takes ~20 s on a loaded 2-core box; a lock this old is a hung one.
const WARM_UP_STALE_MS = 10 * 60_000;

/** What a finished warm-up recorded, to tell a later session start that nothing changed since. */
export interface WarmUpMarker {
  /** The process that did it. */
  pid: number;
  finishedAt: string;
  memories: number;
  /** Each cache file's stat right after the warm-up: if a file changed, the caches were rebuilt by someone. */
  caches: Record<string, { mtimeMs: number; size: number }>;
}

function cacheDir(memoryDir: string): string {
  return path.join(path.resolve(memoryDir), CACHE_DIRECTORY_NAME);
}

/** The marker of the last complete warm-up of `memoryDir`, or null. */
export async function readWarmUpMarker(memoryDir: string): Promise<WarmUpMarker | null> {
  try {
    const marker = JSON.parse(
      await fs.readFile(path.join(cacheDir(memoryDir), WARM_UP_MARKER_FILE), "utf8"),
    ) as Partial<WarmUpMarker>;
    if (typeof marker.memories !== "number" || typeof marker.caches !== "object" || marker.caches === null)
      return null;
    return marker as WarmUpMarker;
  } catch {
    return null;
  }
}

/** What the memory dir looks like, cheaply: no file is opened and only folders are stat'ed. */
interface DirectorySurvey {
  memories: number;
  /** The newest folder mtime: a file added, removed or renamed anywhere moves it. */
  newestFolderMtimeMs: number;
}

async function surveyMemoryDir(memoryDir: string): Promise<DirectorySurvey | null> {
  const root = path.resolve(memoryDir);
  let memories = 0;
  let newestFolderMtimeMs = 0;
  let folders = [root];
  while (folders.length > 0) {
    const next: string[] = [];
    await Promise.all(
      folders.map(async (folder) => {
        const [entries, stat] = await Promise.all([
          fs.readdir(folder, { withFileTypes: true }).catch(() => null),
          fs.stat(folder).catch(() => null),
        ]);
        if (entries === null || stat === null) return;
        newestFolderMtimeMs = Math.max(newestFolderMtimeMs, stat.mtimeMs);
        for (const entry of entries) {
          if (entry.name.startsWith(".")) continue; // the scan skips dot-folders (and the caches live in one)
          if (entry.isDirectory()) next.push(path.join(folder, entry.name));
          else if ((entry.isFile() || entry.isSymbolicLink()) && isMemoryFileName(entry.name)) memories++;
        }
      }),
    );
    folders = next;
  }
  return newestFolderMtimeMs === 0 ? null : { memories, newestFolderMtimeMs };
}

async function cacheFileStats(memoryDir: string): Promise<WarmUpMarker["caches"]> {
  const directory = cacheDir(memoryDir);
  const names = (await fs.readdir(directory).catch(() => [] as string[])).filter((name) =>
    /\.(v8|bin)$/.test(name),
  );
  const stats: WarmUpMarker["caches"] = {};
  for (const name of names.sort()) {
    const stat = await fs.stat(path.join(directory, name)).catch(() => null);
    if (stat?.isFile()) stats[name] = { mtimeMs: stat.mtimeMs, size: stat.size };
  }
  return stats;
}

/** Whether a session start should warm the caches, and why (for the hook's log line). */
export type WarmUpDecision =
  | { warm: true; reason: string }
  /** `running`: the pid of the warm-up already under way. */
  | { warm: false; reason: string; running?: number };

/** The pid of the warm-up of `memoryDir` under way, or null. */
export function runningWarmUp(memoryDir: string): Promise<number | null> {
  return liveLeaseHolder(path.join(cacheDir(memoryDir), WARM_UP_LOCK_FILE), { staleMs: WARM_UP_STALE_MS });
}

/**
 * Decides, cheaply (folders listed, no memory file opened, ~tens of ms at 20,000), whether the
 * persisted caches of `memoryDir` need a warm-up: the dir is big enough to have caches
 * ({@link worthPersisting}), no warm-up is running, and either no warm-up finished yet, or since
 * the last one a folder changed (memories added, removed, renamed), the count changed, or a cache
 * file was rewritten (e.g. by a hook that ran out of time, or after an upgrade changed the
 * format). An in-place edit of one memory is not seen here; the next recall re-reads that one
 * file, which is cheap.
 *
 * @example
 * const decision = await warmUpDecision(memoryDir);
 * if (decision.warm) spawnDetachedMemdir(["warm-up", "--dir", memoryDir], env);
 */
export async function warmUpDecision(memoryDir: string, env: NodeJS.ProcessEnv): Promise<WarmUpDecision> {
  if (!persistedCacheEnabled(env))
    return { warm: false, reason: "persisted caches are off (MEMDIR_NO_CACHE)" };
  const survey = await surveyMemoryDir(memoryDir);
  if (survey === null) return { warm: false, reason: "no memory dir yet" };
  if (!worthPersisting(survey.memories))
    return { warm: false, reason: `${survey.memories} memories: too few to need caches` };
  const running = await runningWarmUp(memoryDir);
  if (running !== null)
    return { warm: false, reason: `a warm-up is already running (pid ${running})`, running };
  const marker = await readWarmUpMarker(memoryDir);
  if (marker === null) return { warm: true, reason: `${survey.memories} memories and no warm caches yet` };
  const markerStat = await fs.stat(path.join(cacheDir(memoryDir), WARM_UP_MARKER_FILE)).catch(() => null);
  if (markerStat === null || survey.newestFolderMtimeMs > markerStat.mtimeMs)
    return { warm: true, reason: "memories were added, removed or renamed since the last warm-up" };
  if (survey.memories !== marker.memories) return { warm: true, reason: "the number of memories changed" };
  const now = await cacheFileStats(memoryDir);
  const same =
    Object.keys(marker.caches).length > 0 &&
    Object.keys(now).length === Object.keys(marker.caches).length &&
    Object.entries(marker.caches).every(
      ([name, stat]) => now[name]?.mtimeMs === stat.mtimeMs && now[name]?.size === stat.size,
    );
  return same
    ? { warm: false, reason: "the caches are warm" }
    : { warm: true, reason: "the cache files changed since the last warm-up" };
}

/** What {@link warmUp} did. */
export type WarmUpOutcome =
  | { status: "warmed"; memories: number; marker: WarmUpMarker }
  /** Another process is warming the same dir. */
  | { status: "busy"; holder: number | null }
  /** Too few memories for cache files, the dir is missing, or caches are off. */
  | { status: "not-needed"; memories: number; reason: string };

/**
 * Fills the persisted caches of `memoryDir` the way a recall would (header scan, then a full sync
 * of the lexical index), waits until they are on disk, and records a marker. One at a time per
 * memory dir (a lock in `.memdir-cache/`; a second warm-up returns `busy` at once).
 *
 * @example
 * const outcome = await warmUp(memoryDir); // { status: "warmed", memories: 2000, … }
 */
export async function warmUp(memoryDir: string, env: NodeJS.ProcessEnv): Promise<WarmUpOutcome> {
  if (!persistedCacheEnabled(env))
    return { status: "not-needed", memories: 0, reason: "persisted caches are off (MEMDIR_NO_CACHE)" };
  const exists = await fs.stat(memoryDir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
  if (!exists) return { status: "not-needed", memories: 0, reason: "no memory dir yet" };
  const lockPath = path.join(cacheDir(memoryDir), WARM_UP_LOCK_FILE);
  const lock = await tryTakeLease(lockPath, { staleMs: WARM_UP_STALE_MS });
  if (lock === null)
    return { status: "busy", holder: await liveLeaseHolder(lockPath, { staleMs: WARM_UP_STALE_MS }) };
  try {
    // Loaded here, not at the top: session start imports this file for warmUpDecision alone.
    const { openMemdir } = await import("../memdir/instance.ts");
    const memdir = openMemdir(memoryDir, { env, watch: false });
    const headers = await memdir.scan();
    if (!worthPersisting(headers.length))
      return { status: "not-needed", memories: headers.length, reason: "too few memories to need caches" };
    // The index file a recall's lexical selector (and the hybrid one's pre-ranking) loads.
    const { lexicalCacheOf } = await import("../recall/select-lexical.ts");
    await lexicalCacheOf(memdir).forDirectory(memoryDir).sync(headers);
    await memdir.flush();
    // Counted the way warmUpDecision counts (the scan may leave out unreadable files), so an
    // unchanged dir is recognised as unchanged next time.
    const survey = await surveyMemoryDir(memoryDir);
    const marker: WarmUpMarker = {
      pid: process.pid,
      finishedAt: new Date().toISOString(),
      memories: survey?.memories ?? headers.length,
      caches: await cacheFileStats(memoryDir),
    };
    await writeFileAtomic(path.join(cacheDir(memoryDir), WARM_UP_MARKER_FILE), `${JSON.stringify(marker)}\n`);
    return { status: "warmed", memories: headers.length, marker };
  } finally {
    await lock.release();
  }
}
