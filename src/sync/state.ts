import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../memdir/fs/atomic.ts";
import type { StatCache, StatEntry } from "./local.ts";
import type { SyncClone } from "./repository.ts";

/**
 * What a clone remembers between syncs (`<root>/sync/<hash>/state.json`): the remote commit it
 * last saw, and per synced folder ({@link folderStateId}: a project key and a memory dir) the
 * commit that folder matched after its last sync (the base of the next three-way decision) and
 * when that was. A rewritten remote is noticed against each folder's own base, since the clone's
 * folders sync at different times; `lastRemote` is the check only for a folder with no base yet
 * (docs/design.md#sync, "Faults").
 */
export interface SyncState {
  lastRemote: string | null;
  /**
   * `review`: files whose remote change waits for review (src/sync/review.ts) or was held or
   * refused here (quarantined, a credential, a name this machine cannot hold, a file saved here
   * after the sync read it), each with the base blob (null: absent) it had then; the decision
   * keeps using it until the file is settled, so a held file is never pushed back as a deletion.
   */
  projects: Record<string, ProjectState>;
}

/** One synced folder (a project's memory dir, or its `team/`) as this clone last synced it. */
export interface ProjectState {
  base: string | null;
  lastSync: string;
  review?: Record<string, string | null>;
  /**
   * Set when the last sync left nothing for the next one to do (everything pushed and pulled,
   * nothing waiting for review, no write refused): the digest of the memory dir it left
   * (`localDigest`) and its report's conflicts and skipped files. A sync that finds the remote
   * still at `base` and the memory dir still at `digest` would decide nothing, so it returns this
   * report without listing the remote or committing (docs/design.md#sync-stat-cache). `watch`:
   * the token of a change watch that began before the read this digest comes from
   * (src/helper/change-watch.ts); while the watcher answers that nothing changed since, the
   * memory dir is known to be at `digest` without reading it.
   */
  quiet?: {
    digest: string;
    conflicts: string[];
    skipped: { file: string; reason: string }[];
    watch?: string;
    /**
     * The stat digest of the read that found the memory dir at `digest` (`LocalSide.statDigest`,
     * src/sync/local.ts): while a listing gives the same, the memory dir is at `digest` without
     * reading the stat cache or any file.
     */
    stats?: string;
  };
  /** This folder's recent pulls, oldest first, so an undo of one is never pushed (src/sync/undone-pulls.ts). */
  pulls?: RecordedPull[];
}

/**
 * A pull as the next syncs need it once `memdir undo` takes it back: the mark its history entry
 * carries (a sync's proposal: the proposal's id, which its `apply` entry carries; a state written
 * before marks: the entry's id), the base commit it was decided against, and the files whose base
 * that commit does not give (the memory of a conflict, which the pull left as it was; a file whose
 * base was held for review). Kept before the pull writes anything (src/sync/undone-pulls.ts).
 */
export interface RecordedPull {
  entry: string;
  base: string | null;
  bases?: Record<string, string | null>;
}

/**
 * The state a clone kept, or none when state.json is missing or not JSON. A file edited by hand
 * (or damaged) is read field by field, never trusted as it is: a project entry whose `base`,
 * `review` or `pulls` is not what memdir writes is dropped whole, and that project syncs as on
 * its first sync, with no base: every file of both sides is kept, differences become conflict
 * files, nothing is deleted on either side (docs/design.md#sync, three-way per file). Dropping
 * only the bad field would not be safe: without its `review` a file held for review would read
 * as this machine's deletion, and without its `pulls` an undone pull would read as this
 * machine's edits and deletions, each pushed to every machine (docs/design.md#sync-stat-cache,
 * "What state.json is trusted with"). A malformed `quiet` or `lastSync` is only dropped (the
 * next sync takes the full path; the status says "never").
 */
export async function readSyncState(clone: SyncClone): Promise<SyncState> {
  let data: unknown;
  try {
    data = JSON.parse(await fs.readFile(path.join(clone.dir, "state.json"), "utf8"));
  } catch {
    return { lastRemote: null, projects: {} };
  }
  if (!isRecord(data)) return { lastRemote: null, projects: {} };
  const projects: Record<string, ProjectState> = {};
  if (isRecord(data.projects))
    for (const [key, value] of Object.entries(data.projects)) {
      const project = projectState(value);
      if (project !== null) projects[key] = project;
    }
  return { lastRemote: isCommit(data.lastRemote) ? data.lastRemote : null, projects };
}

/** A plain object (not null, not an array). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A git object id as git prints it: 40 hex digits (SHA-1) or 64 (SHA-256). */
function isObjectId(value: unknown): value is string {
  return typeof value === "string" && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}

const isCommit = isObjectId;

/** A record of file → blob id or null (absent), as `review` and a pull's `bases` are kept. */
function isBlobRecord(value: unknown): value is Record<string, string | null> {
  return isRecord(value) && Object.values(value).every((blob) => blob === null || isObjectId(blob));
}

function isRecordedPull(value: unknown): value is RecordedPull {
  return (
    isRecord(value) &&
    typeof value.entry === "string" &&
    value.entry !== "" &&
    (value.base === null || isCommit(value.base)) &&
    (value.bases === undefined || isBlobRecord(value.bases))
  );
}

function isQuiet(value: unknown): value is NonNullable<ProjectState["quiet"]> {
  return (
    isRecord(value) &&
    typeof value.digest === "string" &&
    (value.watch === undefined || typeof value.watch === "string") &&
    (value.stats === undefined || typeof value.stats === "string") &&
    Array.isArray(value.conflicts) &&
    value.conflicts.every((file) => typeof file === "string") &&
    Array.isArray(value.skipped) &&
    value.skipped.every(
      (skip) => isRecord(skip) && typeof skip.file === "string" && typeof skip.reason === "string",
    )
  );
}

/** One project's entry as memdir writes it, or null when it cannot be trusted ({@link readSyncState}). */
function projectState(value: unknown): ProjectState | null {
  if (!isRecord(value)) return null;
  if (value.base !== null && !isCommit(value.base)) return null;
  if (value.review !== undefined && !isBlobRecord(value.review)) return null;
  if (value.pulls !== undefined && !(Array.isArray(value.pulls) && value.pulls.every(isRecordedPull)))
    return null;
  return {
    base: value.base,
    lastSync: typeof value.lastSync === "string" ? value.lastSync : "",
    ...(value.review !== undefined ? { review: value.review } : {}),
    ...(isQuiet(value.quiet) ? { quiet: value.quiet } : {}),
    ...(value.pulls !== undefined ? { pulls: value.pulls } : {}),
  };
}

/** Written atomically: a sync killed at any point leaves the old state or the new one. */
export async function writeSyncState(clone: SyncClone, state: SyncState): Promise<void> {
  await writeFileAtomic(path.join(clone.dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * The stat caches of a clone's folders (`<root>/sync/<hash>/stat-cache.json`, {@link folderStateId}
 * → {@link StatCache}), kept apart from state.json so a sync that changed no file writes nothing
 * here. Each entry is stored as an array, `[size, mtimeMs, ctimeMs, ino, blob, flag]` (flag: 0,
 * 1 for a conflict file, or why the file is held): 20,000 of them parse several times faster
 * than objects. `text` is what was read, to skip an unchanged write.
 */
export interface StatCaches {
  projects: Record<string, StatCache>;
  text: string;
  /** Each project's cache as read or last written: one still the same object needs no new text. */
  stored: Map<string, StatCache>;
}

type StoredEntry = [number, number, number, number, string, 0 | 1 | string];

export async function readStatCaches(clone: SyncClone): Promise<StatCaches> {
  // Read as bytes and decoded once: `readFile(…, "utf8")` decodes chunk by chunk through a
  // StringDecoder, which for this 2.7 MB file at 20,000 memories costs tens of milliseconds more.
  const bytes = await fs.readFile(path.join(clone.dir, "stat-cache.json")).catch(() => null);
  const text = bytes === null ? "" : bytes.toString("utf8");
  const projects: Record<string, StatCache> = {};
  try {
    const data: unknown = JSON.parse(text);
    if (!isRecord(data)) throw new Error("not an object");
    // Plain loops and one object shape per entry: at 20,000 entries, destructuring and spreading
    // each took about as long again as the JSON.parse itself. An entry not as memdir writes it is
    // left out (its file is read again); one whose fields are right but whose blob is not the
    // file's is dropped when its read finds that (src/sync/local.ts readLater).
    for (const key of Object.keys(data)) {
      const stored = data[key];
      if (!isRecord(stored)) continue;
      const cache: StatCache = {};
      for (const file of Object.keys(stored)) {
        const e = stored[file];
        if (!isStoredEntry(e)) continue;
        const entry: StatEntry = { size: e[0], mtimeMs: e[1], ctimeMs: e[2], ino: e[3], blob: e[4] };
        if (e[5] === 1) entry.conflict = true;
        else if (typeof e[5] === "string") entry.held = e[5];
        cache[file] = entry;
      }
      projects[key] = cache;
    }
  } catch {
    // Missing or damaged: every file is read, as on a first sync.
  }
  return { projects, text, stored: new Map(Object.entries(projects)) };
}

function isStoredEntry(e: unknown): e is StoredEntry {
  return (
    Array.isArray(e) &&
    e.length === 6 &&
    typeof e[0] === "number" &&
    typeof e[1] === "number" &&
    typeof e[2] === "number" &&
    typeof e[3] === "number" &&
    typeof e[4] === "string" &&
    (e[5] === 0 || e[5] === 1 || typeof e[5] === "string")
  );
}

/** Written atomically, and only when it differs from what was read. */
export async function writeStatCaches(clone: SyncClone, caches: StatCaches): Promise<void> {
  const keys = Object.keys(caches.projects);
  if (
    keys.length === caches.stored.size &&
    keys.every((key) => caches.projects[key] === caches.stored.get(key))
  )
    return;
  const data: Record<string, Record<string, StoredEntry>> = {};
  for (const [key, cache] of Object.entries(caches.projects)) {
    const stored: Record<string, StoredEntry> = {};
    for (const [file, e] of Object.entries(cache))
      stored[file] = [e.size, e.mtimeMs, e.ctimeMs, e.ino, e.blob, e.held ?? (e.conflict ? 1 : 0)];
    data[key] = stored;
  }
  const text = JSON.stringify(data);
  if (text === caches.text) return;
  await writeFileAtomic(path.join(clone.dir, "stat-cache.json"), text);
  caches.text = text;
  caches.stored = new Map(Object.entries(caches.projects));
}

/**
 * The id of one synced folder's entries in `state.json` and `stat-cache.json`: its project key and
 * the real path of the folder, `github.com/acme/shop:/home/u/.claude/projects/-home-u-src-shop/memory`.
 * Not the key alone: two checkouts of one repository on one machine (`~/src/shop` and
 * `~/src/shop2`) have one key, so one folder in the remote and one clone, but two memory dirs
 * (memory dirs are per path, docs/design.md#project-identity). Under one entry, the second
 * checkout's empty memory dir was read against the first's base, and its first sync pushed the
 * deletion of every memory the first had synced (docs/design.md#sync, "One state per memory dir").
 * A key never holds `:` (its segments are letters, digits, `.`, `_`, `-`), so an entry written
 * before, under the key alone, never reads as a folder's. A folder not made yet (`team/` before
 * its first pull) is named by its parent's real path.
 */
export async function folderStateId(key: string, localDir: string): Promise<string> {
  return folderIdOf(key, await realFolder(path.resolve(localDir)));
}

function folderIdOf(key: string, realDir: string): string {
  return `${key}:${realDir}`;
}

async function realFolder(dir: string): Promise<string> {
  try {
    return await fs.realpath(dir);
  } catch {
    const parent = path.dirname(dir);
    return parent === dir ? dir : path.join(await realFolder(parent), path.basename(dir));
  }
}

/**
 * A clone's `state.json` and `stat-cache.json` as one synced folder reads them, with that folder's
 * entry id ({@link folderStateId}) and an earlier memdir's entry under the project key alone
 * moved to it when it was this folder's ({@link adoptProjectKeyEntry}): what `memdir sync` and
 * `sync --status` both start from (docs/design.md#sync, "One state per memory dir").
 */
export async function readFolderState(
  clone: SyncClone,
  key: string,
  localDir: string,
): Promise<{ state: SyncState; caches: StatCaches; id: string }> {
  const folder = await openFolderState(clone, key, localDir);
  return { state: folder.state, caches: await folder.caches(), id: folder.id };
}

/** {@link readFolderState} with the stat caches read on first use. */
export interface FolderState {
  state: SyncState;
  id: string;
  /** The real path of the folder, as in `id`. */
  realDir: string;
  /** The clone's stat caches, read (once) when first asked for. */
  caches(): Promise<StatCaches>;
}

/**
 * {@link readFolderState}, the stat caches read only when asked for: a quiet sync that a change
 * watch vouches for never parses them (2.7 MB at 20,000 memories, docs/benchmarks.md#sync). They
 * are read at once when an earlier memdir's entry may be this folder's (its adoption needs them).
 */
export async function openFolderState(clone: SyncClone, key: string, localDir: string): Promise<FolderState> {
  const [state, realDir] = await Promise.all([readSyncState(clone), realFolder(path.resolve(localDir))]);
  const id = folderIdOf(key, realDir);
  let caches: Promise<StatCaches> | null = null;
  if (state.projects[key] !== undefined && key !== id && state.projects[id] === undefined) {
    const read = await readStatCaches(clone);
    await adoptProjectKeyEntry(state, read, key, id, localDir);
    caches = Promise.resolve(read);
  }
  return {
    state,
    id,
    realDir,
    caches: () => {
      caches ??= readStatCaches(clone);
      return caches;
    },
  };
}

/** How many of the old stat cache's files {@link adoptProjectKeyEntry} looks for, at most. */
const ADOPTION_PROBES = 32;

/**
 * Moves the entry an earlier memdir kept under the project key alone (in `state.json` and
 * `stat-cache.json`) to folder `id`, when it was that folder's; changes `state` and `caches` only.
 * That entry belonged to one memory dir of the key, but records none. Its stat cache tells which:
 * it holds the inode of each file that folder's last sync read, so a file of this folder with the
 * same name and inode is the same file (both memory dirs are under one root). A folder that finds
 * none of them (another checkout, whose first sync then merges with no base: it deletes nothing)
 * leaves the entry to the folder that does. An entry whose stat cache is empty (that folder held
 * no memory, or its files were all saved within the cache's racy window of the sync) cannot tell,
 * so the first folder of the key that syncs takes it; a wrong guess is the defect this id fixes,
 * once, for a folder whose last sync found no file old enough to keep. A folder that has its own
 * entry already never takes one.
 */
async function adoptProjectKeyEntry(
  state: SyncState,
  caches: StatCaches,
  key: string,
  id: string,
  localDir: string,
): Promise<void> {
  const old = state.projects[key];
  if (old === undefined || key === id || state.projects[id] !== undefined) return;
  const cache = caches.projects[key] ?? {};
  const files = Object.keys(cache).slice(0, ADOPTION_PROBES);
  if (files.length > 0) {
    const found = await Promise.all(
      files.map((file) =>
        fs.lstat(path.join(localDir, file)).then(
          (stat) => stat.ino === cache[file].ino,
          () => false,
        ),
      ),
    );
    if (!found.includes(true)) return;
  }
  state.projects[id] = old;
  delete state.projects[key];
  caches.projects[id] = cache;
  delete caches.projects[key];
}
