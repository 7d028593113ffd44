import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError, throwIfAborted } from "../errors.ts";
import { conflictFileName, conflictOf, markAsConflict } from "../memdir/format/conflicts.ts";
import { applyIndexChanges, INDEX_FILE } from "../memdir/format/index-file.ts";
import { syncFoldersInside } from "../memdir/fs/atomic.ts";
import { type Lease, takeLease } from "../memdir/fs/lease.ts";
import { housekeepIfDue } from "../memdir/location/git.ts";
import { findSecrets, secretKindPhrase } from "../memdir/trust/secrets.ts";
import type { ProposedChange } from "../memdir/write/proposal-store.ts";
import {
  removeMemoryIfPresent,
  updateIndex,
  withWriterHeld,
  writeMemoryText,
} from "../memdir/write/write.ts";
import type { Clock, MemoryMode, ProgressSink } from "../types.ts";
import {
  incomingRefusal,
  type LocalSide,
  localDigest,
  readLocalSide,
  readLocalSideUnlessUnchanged,
  rebuildIndexChecked,
  type StatCache,
  skipReason,
  unchangedSinceRead,
} from "./local.ts";
import { planSync, type SyncAction } from "./plan.ts";
import {
  assertProjectFolder,
  blobId,
  commitChanges,
  fetchRemote,
  isAncestor,
  isRegularMode,
  listFolder,
  openClone,
  packBlobs,
  prepareClone,
  pushCommit,
  readBlobTexts,
  type SyncClone,
  type TreeFile,
} from "./repository.ts";
import { proposeIncoming, reviewsIncoming } from "./review.ts";
import {
  folderStateId,
  openFolderState,
  type ProjectState,
  type RecordedPull,
  type SyncState,
  writeStatCaches,
  writeSyncState,
} from "./state.ts";
import { basesBeforeUndonePulls, keptPulls, recordedPull, type UndonePullsQuestion } from "./undone-pulls.ts";

/** What a change watch answers ({@link SyncOptions.changeWatch}). */
export interface ChangeWatchAnswer {
  /** True when nothing in the memory dir changed since the asked token's watch began. */
  unchanged: boolean;
  /** The token of a watch that began before this answer, to keep with the next quiet record; null: none. */
  token: string | null;
}

/** Asks whether memory dir `memoryDir` is unchanged since `token` ({@link SyncOptions.changeWatch}). */
export type ChangeWatch = (memoryDir: string, token: string | undefined) => Promise<ChangeWatchAnswer>;

/** One side of a project's memory that syncs with one remote. */
export interface SyncTarget {
  /** The memory root (`~/.claude`): the clone lives in `<root>/sync/`. */
  root: string;
  url: string;
  /** The project key (src/memdir/location/project-key.ts): the project's folder in the remote. */
  key: string;
  /** The folder synced: the memory dir, or its `team/` folder for the team remote. */
  localDir: string;
  /** The user's remote leaves `team/` to the team remote. */
  excludeTeam: boolean;
  /** The memory dir whose inbox takes proposals when `localDir` is its `team/` folder. */
  memoryDir?: string;
}

export interface SyncOptions {
  /** Merge the remote in, push nothing (the bounded pull at session start). */
  pullOnly?: boolean;
  /**
   * Forget the remote commit this memory dir last saw (its base): merge with a rewritten remote,
   * keeping every local memory. Other projects (and checkouts) of the same clone keep theirs.
   */
  acceptRemote?: boolean;
  signal?: AbortSignal;
  now?: Clock;
  /** How long to wait for another sync of the same remote on this machine (default 120 s). */
  waitMs?: number;
  /** Where reading and hashing this machine's files and writing the pulled ones report how far they are (docs/design.md#progress). */
  progress?: ProgressSink;
  /** Runs before each push; tests use it to push from another machine first (a real race). */
  beforePush?: () => Promise<void>;
  /**
   * Runs once this machine's files are read and the merge is decided, before the remote's changes
   * are written here (when there are any); tests use it to save a memory in between (a real race).
   */
  beforePull?: () => Promise<void>;
  /** `review` and `manual`: the remote's changes wait in the inbox as one proposal (src/sync/review.ts). */
  memoryMode?: MemoryMode;
  /**
   * Asks a long-lived watcher of the memory dir (the memory helper's, src/helper/change-watch.ts)
   * whether it is unchanged since `token`, the one the last quiet sync kept. While it is, a quiet
   * sync returns without reading the memory dir (docs/design.md#sync-stat-cache). Without it,
   * every sync reads the dir.
   */
  changeWatch?: ChangeWatch;
  /**
   * Records the remote's changes written to a memory dir as one history entry (the CLI passes the
   * history's `recordPull`): runs `write` and records what it changed, `files` (relative to the
   * memory dir) being what it may touch, the entry carrying `mark`, which the folder's state kept
   * before the pull so a later sync can ask `undonePulls` whether it was undone. Returns the
   * entry's id (null or undefined: nothing was written, and the state forgets the mark).
   */
  recordPull?: (
    memoryDir: string,
    change: PullChange,
    write: () => Promise<void>,
  ) => Promise<string | null | undefined>;
  /**
   * Which recorded pulls stand undone (the CLI passes the history's `undonePulls`): their files are
   * decided against the base from before the pull, so an undo is never pushed as this machine's
   * deletions and edits (src/sync/undone-pulls.ts). Without it an undone pull reads as local edits.
   */
  undonePulls?: UndonePullsQuestion;
}

/** A pull as one history entry: what `recordPull` gets. */
export interface PullChange {
  /** The entry's message, asked once the pull is written: it counts the files written. */
  message: () => string;
  /** What the pull may touch, relative to the memory dir. */
  files: string[];
  /**
   * A large pull's blobs as a git pack from the sync's clone, for the history to store before
   * its commit (`ChangeOptions.objects` of src/dream/history.ts); absent for a small pull.
   */
  objects?: () => Promise<Uint8Array | null>;
  /** The tag the entry carries (the history's `ChangeOptions.mark`): the folder's state keeps it (src/sync/undone-pulls.ts). */
  mark: string;
}

/**
 * From how many pulled files the history gets their blobs as one pack: below, `git add` writing
 * them costs less than the two git processes that pack and store them (docs/benchmarks.md#sync).
 */
const PACK_FROM = 64;

/** What `memdir sync --json` prints (docs/design.md#sync). */
export interface SyncReport {
  remote: string;
  /** Memory files changed here from the remote (written or deleted). */
  pulled: number;
  /** Memory files the remote got from here (conflict files included). */
  pushed: number;
  /** Conflict files waiting to be resolved, this sync's and earlier ones. */
  conflicts: string[];
  skipped: { file: string; reason: string }[];
}

const ATTEMPTS = 5;
/** Why a remote change was not written here: this side's file changed after the sync read it. */
const CHANGED_DURING_SYNC =
  "changed here while this sync ran: kept as it is; the remote's version waits for the next sync";
/** Writing the remote's files reports every this many (a first pull of 20,000 takes minutes). */
const WRITE_PROGRESS_EVERY = 64;
/** How many of the remote's files are written side by side (a divisor of WRITE_PROGRESS_EVERY). */
const WRITE_BATCH = 16;

/** Takes the clone's lease: a second sync of the same remote on this machine waits for the first. */
export async function takeSyncLease(clone: SyncClone, waitMs = 120_000): Promise<Lease> {
  await fs.mkdir(clone.dir, { recursive: true, mode: 0o700 });
  const lease = await takeLease(path.join(clone.dir, "lock"), { staleMs: 120_000, timeoutMs: waitMs });
  lease.keepFresh(10_000);
  return lease;
}

/**
 * The remote commit a project's folder last saw: its `base` (the remote commit the folder matched
 * after its last sync, or its own pushed commit). Per folder, not the clone's `lastRemote`: two
 * projects share one clone and one `state.json`, so a commit one project saw (or accepted with
 * `--accept-remote`) says nothing of what the other's folder last matched, and a rewrite checked
 * against it let the other read the missing files as deletions (docs/design.md#sync, "Faults").
 * A folder with no state yet falls back to the clone-wide `lastRemote`, unless this sync is its
 * `--accept-remote`, which forgets what it saw. `id` is the folder's entry ({@link folderStateId}).
 */
function lastSeen(state: SyncState, id: string, acceptRemote = false): string | null {
  const project = state.projects[id];
  if (project !== undefined) return project.base;
  return acceptRemote ? null : state.lastRemote;
}

/**
 * The commit `seen` when the remote's history no longer holds it (the remote was rewritten or
 * reset since), else null. No git process when the remote is still `seen`, the common case.
 */
async function lostCommit(
  clone: SyncClone,
  seen: string | null,
  remote: string | null,
): Promise<string | null> {
  if (seen === null || remote === seen) return null;
  if (remote !== null && (await isAncestor(clone, seen, remote))) return null;
  return seen;
}

/** Refuses a remote whose history no longer holds the commit this project saw last ({@link lastSeen}). */
async function assertNotRewritten(
  clone: SyncClone,
  seen: string | null,
  remote: string | null,
): Promise<void> {
  const lost = await lostCommit(clone, seen, remote);
  if (lost === null) return;
  const what =
    remote === null ? "its main branch is gone" : `its main branch no longer holds ${lost.slice(0, 12)}`;
  throw new MemdirError(
    "remote-rewritten",
    `sync: the remote ${clone.url} was rewritten or reset (${what}, the last state this machine synced for this project); ` +
      "nothing was changed and no local memory was deleted. If that was meant, run `memdir sync --accept-remote` " +
      "to merge with the remote as it is now (every local memory is kept; differences become conflict files)",
  );
}

/**
 * Whether `memdir sync` would refuse the remote as rewritten for this project: the same check,
 * for `--status` to report (src/sync/project.ts). `fetched` false: `remote` is the commit of the
 * last fetch (the remote could not be reached), which may predate this project's own last push (a
 * push by URL leaves the fetched commit as it was); a base that descends from it, or a last fetch
 * that found no commit, is then only behind, not a rewrite.
 */
export async function remoteRewritten(
  clone: SyncClone,
  state: SyncState,
  id: string,
  remote: string | null,
  fetched = true,
): Promise<boolean> {
  const lost = await lostCommit(clone, lastSeen(state, id), remote);
  if (lost === null) return false;
  if (fetched) return true;
  return remote !== null && !(await isAncestor(clone, remote, lost));
}

/**
 * Syncs one folder of memory with one remote: fetch, a three-way decision per file (the base is
 * the remote commit this folder matched after its last sync), the remote's changes written here
 * through the single writer, MEMORY.md rebuilt, then this machine's changes committed on top of
 * the remote and pushed; a rejected push fetches and merges again (docs/design.md#sync).
 *
 * @throws MemdirError("unreachable") when the remote cannot be reached: nothing changes here.
 * @throws MemdirError("remote-invalid") when git refuses objects the remote holds: nothing changes here.
 * @throws MemdirError("remote-rewritten") when the remote's history was rewritten.
 * @throws MemdirError("lock-timeout") when another sync held the remote longer than `waitMs`.
 */
export async function syncFolder(target: SyncTarget, options: SyncOptions = {}): Promise<SyncReport> {
  const clone = openClone(target.root, target.url);
  const lease = await takeSyncLease(clone, options.waitMs);
  try {
    await prepareClone(clone);
    // This memory dir's own entry: two checkouts of one repository share the project key, not a
    // base (docs/design.md#sync, "One state per memory dir").
    const folder = await openFolderState(clone, target.key, target.localDir);
    const { state, id } = folder;
    // --accept-remote forgets this folder's base alone: another project of the clone still has
    // to be refused until its own --accept-remote (lastSeen).
    if (options.acceptRemote) delete state.projects[id];
    const now = options.now ?? Date.now;
    const report: SyncReport = { remote: target.url, pulled: 0, pushed: 0, conflicts: [], skipped: [] };
    // The change watch's token, asked once (its watch began before every read below). Without
    // an answer, the token the last quiet sync kept stays: it too began before this sync's reads.
    let watchToken: string | null = state.projects[id]?.quiet?.watch ?? null;
    let watchAsked = false;
    const cacheOfFolder = async () => (await folder.caches()).projects[id];
    // Null when the last quiet sync's stats say nothing changed (docs/design.md#sync-stat-cache).
    const readLocal = async () =>
      readLocalSideUnlessUnchanged(
        target.localDir,
        target.excludeTeam,
        cacheOfFolder,
        quietRecord(state, id)?.stats,
        now(),
        options.progress,
      );
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(options.signal, "sync");
      // The memory dir is read while git fetches: reading changes nothing, and the two take about
      // as long each at 20,000 memories, on two cores (docs/benchmarks.md#sync). The read starts
      // once git has: its synchronous stat slices would otherwise hold back the few turns of the
      // event loop that starting git takes (~10 ms of a one-change sync at 2,000).
      let fetchStarted = () => {};
      const started = new Promise<void>((resolve) => {
        fetchStarted = resolve;
      });
      const fetching = fetchRemote(clone, options.signal, fetchStarted);
      // Asked before the read: a token it hands back names a watch that saw everything after it.
      // Asked for the folder this sync's state entry is (its real path): the watch answers for it.
      const asked = watchAsked ? null : askChangeWatch(options.changeWatch, folder.realDir, state, id);
      const [fetched, read] = await Promise.allSettled([
        fetching,
        Promise.all([
          Promise.race([
            started,
            fetching.then(
              () => undefined,
              () => undefined,
            ),
          ]),
          asked,
        ]).then(([, answer]) => {
          if (answer !== null) watchAsked = true;
          if (answer?.token) watchToken = answer.token;
          // Nothing changed since the last quiet sync's read: no read unless the remote moved.
          return answer?.unchanged && quietRecord(state, id) !== null ? null : readLocal();
        }),
      ]);
      if (fetched.status === "rejected") throw fetched.reason;
      if (read.status === "rejected") throw read.reason;
      const remote = fetched.value;
      await assertNotRewritten(clone, lastSeen(state, id, options.acceptRemote), remote);
      if (read.value === null) {
        const quiet = quietRecord(state, id, remote);
        if (quiet !== null) {
          state.projects[id].lastSync = new Date(now()).toISOString();
          await writeSyncState(clone, state);
          return { ...report, conflicts: quiet.conflicts, skipped: quiet.skipped };
        }
      }
      // Told unchanged (by the watch or by the stats) while the remote moved: the files are read.
      const local =
        read.value ??
        (await readLocalSide(
          target.localDir,
          target.excludeTeam,
          await cacheOfFolder(),
          now(),
          options.progress,
        ));
      const caches = await folder.caches();
      // The project's base was checked when this project first fetched it (or is its own push).
      // Any other commit is checked, even one another project of this clone has seen: that sync
      // checked its own folder, not this one (docs/design.md#sync-stat-cache).
      if (remote !== state.projects[id]?.base) await assertProjectFolder(clone, remote, target.key);
      caches.projects[id] = local.cache;
      const quiet = quietReport(state, id, remote, local);
      if (quiet !== null) {
        state.projects[id].lastSync = new Date(now()).toISOString();
        state.projects[id].quiet = withStats(withWatch(quiet, local.hardLinked ? null : watchToken), local);
        await Promise.all([writeSyncState(clone, state), writeStatCaches(clone, caches)]);
        return { ...report, conflicts: quiet.conflicts, skipped: quiet.skipped };
      }
      // The stat cache is what this read found, whatever the merge does: written beside it.
      const cacheWritten = writeStatCaches(clone, caches);
      const cacheSettled = cacheWritten.catch(() => undefined); // its error is thrown below
      // A pull (or a proposal of the remote's changes) is kept in state.json BEFORE it writes
      // anything, with the base it is decided against, under a mark its history entry will carry:
      // a sync stopped part-way (its time bound, SIGKILL) after the entry is made and before the
      // state below is written still leaves the pull known, so its undo is never pushed
      // (src/sync/undone-pulls.ts). Only the project's pulls change, and its `quiet` goes: its
      // base stays the one the pull is decided against (null for a first sync, which deletes
      // nothing either side).
      const rememberPull = async (pull: RecordedPull) => {
        state.projects[id] ??= { base: null, lastSync: new Date(now()).toISOString() };
        const project = state.projects[id];
        delete project.quiet;
        project.pulls = keptPulls(project.pulls, new Set(), pull);
        await writeSyncState(clone, state);
      };
      const round = await mergeRound(
        clone,
        target,
        state.projects[id],
        remote,
        local,
        options,
        rememberPull,
      ).finally(async () => {
        await cacheSettled;
        // An entry the merge found wrong was dropped from `local.cache` (src/sync/local.ts
        // readLater): written now, else every later sync would trust it again.
        if (local.cache !== caches.projects[id]) {
          caches.projects[id] = local.cache;
          await writeStatCaches(clone, caches).catch(() => undefined);
        }
      });
      await cacheWritten;
      report.pulled += round.pulled;
      report.skipped = round.skipped;
      report.conflicts = round.conflicts;
      // From here the memory dir matches `remote` except for its own changes: the next base. A
      // pull that wrote nothing is forgotten: no entry will ever carry its mark.
      const pulls = keptPulls(
        state.projects[id]?.pulls?.filter((pull) => pull.entry !== round.unrecorded),
        round.undone,
        null,
      );
      state.projects[id] = {
        base: remote,
        lastSync: new Date(now()).toISOString(),
        ...(Object.keys(round.review).length > 0 ? { review: round.review } : {}),
        ...(pulls.length > 0 ? { pulls } : {}),
      };
      state.lastRemote = remote;
      const settled =
        round.digest === null
          ? undefined
          : withWatch(
              { digest: round.digest, conflicts: round.conflicts, skipped: round.skipped },
              local.hardLinked ? null : watchToken,
            );
      if (options.pullOnly || round.commit === null) {
        if (settled && (round.commit === null || !options.pullOnly)) state.projects[id].quiet = settled;
        await writeSyncState(clone, state);
        return report;
      }
      await writeSyncState(clone, state);
      await options.beforePush?.();
      if (!(await lease.holds()))
        throw new MemdirError("lock-lost", "sync: another sync took over this one's lock");
      if ((await pushCommit(clone, round.commit, options.signal)) === "pushed") {
        state.projects[id].base = round.commit;
        if (settled) state.projects[id].quiet = settled;
        state.lastRemote = round.commit;
        await writeSyncState(clone, state);
        report.pushed = round.pushed;
        return report;
      }
      if (attempt + 1 >= ATTEMPTS)
        throw new MemdirError(
          "unreachable",
          `sync: ${clone.url} kept rejecting the push (others pushed first ${ATTEMPTS} times); the merge is kept here, the next sync pushes it`,
        );
    }
  } finally {
    // What git would have started after this sync's fetch and commit, when it has work
    // (housekeepIfDue); never once the caller's time is up.
    if (!options.signal?.aborted) await housekeepIfDue(clone.repository).catch(() => undefined);
    await lease.release();
  }
}

interface Round {
  /** The commit to push, or null when the remote already has everything. */
  commit: string | null;
  pulled: number;
  pushed: number;
  conflicts: string[];
  skipped: { file: string; reason: string }[];
  /** The files held for review, each with the base blob it keeps until it is settled (state.ts). */
  review: Record<string, string | null>;
  /**
   * The digest of the memory dir as this round left it (`localDigest`), or null when the next
   * sync would have something to do even if nothing changed: a write refused, a file waiting for
   * review, a change of this machine's not pushed (`pullOnly`).
   */
  digest: string | null;
  /** The mark of this round's pull when it wrote nothing (no history entry carries it), else null. */
  unrecorded: string | null;
  /** The recorded pulls found undone, settled by this round (`decide`). */
  undone: ReadonlySet<string>;
}

/**
 * The report of the last sync when nothing moved since: the remote still at the commit the
 * folder matched, the memory dir still at the digest that sync left, nothing waiting for review.
 * The decision is a pure function of those (src/sync/plan.ts), and it was empty then, so it is
 * empty now: no listing of the remote, no commit (docs/design.md#sync-stat-cache).
 */
function quietReport(
  state: SyncState,
  id: string,
  remote: string | null,
  local: LocalSide,
): NonNullable<ProjectState["quiet"]> | null {
  const quiet = quietRecord(state, id, remote);
  return quiet !== null && localDigest(local) === quiet.digest ? quiet : null;
}

/**
 * The last quiet sync's record when it still stands but for the memory dir: nothing waiting for
 * review and, given `remote`, the remote still at the commit the folder matched. The memory dir
 * must then be shown to be at its digest: by reading it ({@link quietReport}), or by a change
 * watch that saw nothing since the read the digest comes from.
 */
function quietRecord(
  state: SyncState,
  id: string,
  remote?: string | null,
): NonNullable<ProjectState["quiet"]> | null {
  const project = state.projects[id];
  if (project?.quiet === undefined || project.review !== undefined) return null;
  if (remote !== undefined && (remote !== state.lastRemote || remote !== project.base)) return null;
  return project.quiet;
}

/**
 * The change watch's answer for this sync, asked with the token the last quiet sync kept; null
 * without a watch, or when it could not answer (the sync then reads the memory dir, as always).
 */
async function askChangeWatch(
  changeWatch: ChangeWatch | undefined,
  memoryDir: string,
  state: SyncState,
  id: string,
): Promise<ChangeWatchAnswer | null> {
  if (changeWatch === undefined) return null;
  try {
    return await changeWatch(memoryDir, state.projects[id]?.quiet?.watch);
  } catch {
    return null;
  }
}

/**
 * A quiet record with a change watch's token. Any token whose watch began before the read the
 * digest comes from will do: while it answers "unchanged", the memory dir is what every read
 * after its start found, that one included.
 */
function withWatch(
  quiet: NonNullable<ProjectState["quiet"]>,
  token: string | null,
): NonNullable<ProjectState["quiet"]> {
  const { watch: _old, ...rest } = quiet;
  return token !== null ? { ...rest, watch: token } : rest;
}

/**
 * A quiet record with the stat digest of the read that found the memory dir at its digest, when
 * that read has one ({@link LocalSide.statDigest}); without, any older one is dropped: it may
 * name a state of the folder from before this read.
 */
function withStats(
  quiet: NonNullable<ProjectState["quiet"]>,
  local: LocalSide,
): NonNullable<ProjectState["quiet"]> {
  const { stats: _old, ...rest } = quiet;
  return local.statDigest !== undefined ? { ...rest, stats: local.statDigest() } : rest;
}

/**
 * The three sides of one folder and the decision over them: shared by sync and `--status`.
 * `project` is the folder's own state (`state.projects[folderStateId(…)]`), undefined before its
 * first sync.
 */
export async function decide(
  clone: SyncClone,
  target: SyncTarget,
  project: ProjectState | undefined,
  remote: string | null,
  local: LocalSide | { cache?: StatCache; nowMs: number },
  ask: Pick<SyncOptions, "progress" | "undonePulls"> = {},
): Promise<{
  local: LocalSide;
  theirs: Map<string, TreeFile>;
  actions: SyncAction[];
  held: Map<string, string>;
  base: Map<string, string>;
  /** The files whose base is not the base commit's: held for review, or written by an undone pull. */
  overridden: Set<string>;
  /** The recorded pulls found undone, whose files this decision took back to their earlier base. */
  undone: Set<string>;
}> {
  const baseCommit = project?.base ?? null;
  const pulls = project?.pulls ?? [];
  const memoryDir = target.memoryDir ?? target.localDir;
  const [localSide, baseFiles, theirs, undone] = await Promise.all([
    "files" in local
      ? local
      : readLocalSide(target.localDir, target.excludeTeam, local.cache, local.nowMs, ask.progress),
    // The remote unmoved since the last sync (this machine's change to push): one listing for both.
    baseCommit === null || baseCommit === remote
      ? new Map<string, TreeFile>()
      : listFolder(clone, baseCommit, target.key).catch(() => new Map<string, TreeFile>()),
    listFolder(clone, remote, target.key),
    pulls.length > 0 && ask.undonePulls
      ? ask.undonePulls(
          memoryDir,
          pulls.map((pull) => pull.entry),
        )
      : new Map<string, readonly string[]>(),
  ]);
  if (baseCommit !== null && baseCommit === remote)
    for (const [file, entry] of theirs) baseFiles.set(file, entry);
  const blobs = (files: ReadonlyMap<string, { blob: string }>) => {
    const out = new Map<string, string>();
    for (const [file, entry] of files) if (file !== INDEX_FILE) out.set(file, entry.blob);
    return out;
  };
  const base = blobs(baseFiles);
  const overridden = new Set<string>();
  const setBase = (file: string, blob: string | null) => {
    overridden.add(file);
    if (blob === null) base.delete(file);
    else base.set(file, blob);
  };
  // A file held for review keeps its old base, so the base moving on never turns it into a deletion.
  for (const [file, blob] of Object.entries(project?.review ?? {})) setBase(file, blob);
  // A pull undone here goes back to the base it was decided against: what the undo put back is
  // not this machine's edit, and the remote's side reads as the remote's again (src/sync/undone-pulls.ts).
  if (undone.size > 0) {
    const prefix = path.relative(memoryDir, target.localDir).split(path.sep).join("/");
    const before = await basesBeforeUndonePulls(
      clone,
      target.key,
      pulls,
      undone,
      prefix === "" ? "" : `${prefix}/`,
      { commit: baseCommit, files: baseFiles },
    );
    for (const [file, blob] of before) setBase(file, blob);
  }
  const ours = blobs(localSide.files);
  const held = new Map(localSide.held);
  for (const [file, entry] of theirs) {
    if (file === INDEX_FILE || ours.get(file) === entry.blob) continue;
    const refusal = incomingRefusal(file, entry, target.excludeTeam);
    if (refusal) held.set(file, `from the remote: ${refusal}`);
  }
  // Names that differ only in Unicode normalization are one name on some file systems: an incoming
  // twin of a name this side has (or of a kept twin) is left in the remote, never written over it.
  for (const [file, twin] of unicodeTwins(new Set([...ours.keys(), ...localSide.held.keys()]), theirs.keys()))
    if (!held.has(file))
      held.set(
        file,
        `from the remote: a Unicode twin of ${twin} (the same name in another normalization); left in the remote`,
      );
  // Every file that would enter a commit is scanned for secrets first (docs/design.md#secrets).
  for (const [file, { text: readText, blob }] of localSide.files) {
    if (blob === base.get(file) || blob === theirs.get(file)?.blob) continue;
    const text = await readText().catch((error: unknown) => {
      if (!(error instanceof MemdirError)) throw error;
      held.set(file, skipReason(file, error));
      return null;
    });
    if (text === null) continue;
    const found = findSecrets(text)[0] ?? findSecrets(file)[0];
    if (found) held.set(file, `holds ${secretKindPhrase(found.kind)} (line ${found.line}); not pushed`);
  }
  const actions = planSync(base, ours, blobs(theirs), new Set(held.keys()));
  return { local: localSide, theirs, actions, held, base, overridden, undone: new Set(undone.keys()) };
}

// Pulled text is an automatic write: the quarantine holds instruction-like text from another
// machine in the inbox instead of writing it (docs/design.md#quarantine); the file is then skipped.
const SYNC_ORIGIN = { source: "sync" } as const;

async function mergeRound(
  clone: SyncClone,
  target: SyncTarget,
  project: ProjectState | undefined,
  remote: string | null,
  localSide: LocalSide,
  options: SyncOptions,
  rememberPull: (pull: RecordedPull) => Promise<void>,
): Promise<Round> {
  const decided = await decide(clone, target, project, remote, localSide, options);
  const baseCommit = project?.base ?? null;
  const { local, held } = decided;
  const skipped = [...held].map(([file, reason]) => ({ file, reason }));
  const theirsText = await readTheirTexts(clone, decided);
  // What the commit changes in the project's folder, by file: new text, or null for a removal. The
  // commit is built from these and the remote's objects; no work tree is written
  // (docs/design.md#sync-stat-cache).
  const toCommit = new Map<string, string | null>();
  const oursText = async (file: string) => (await local.files.get(file)?.text()) ?? null;
  // What this round leaves in the memory dir, for the digest the next sync compares with.
  const after = new Map([...local.files].map(([file, { blob }]) => [file, { blob }]));
  let refused = false;
  const review: Record<string, string | null> = {};
  let actions = decided.actions;
  if (reviewsIncoming(options.memoryMode))
    actions = await holdIncomingForReview({
      clone,
      target,
      decided,
      theirsText,
      review,
      skipped,
      options,
      // An accepted proposal is the pull of review: its apply entry carries the proposal's id,
      // kept here with the bases the proposal was decided against, before it is saved.
      beforeSave: (id) => rememberPull({ entry: id, base: baseCommit, bases: { ...review } }),
    });
  const added: { file: string; text: string }[] = [];
  const removed = new Set<string>();
  const conflicts = new Set<string>();
  let pulled = 0;
  let pushed = 0;
  // The remote's index is never read (the local one is rebuilt from the files' own frontmatter,
  // rebuildIndex); a link there is removed by the next commit, where this machine's index takes
  // its place (docs/sync.md).
  const remoteHasIndex = dropIndexLink(decided.theirs, skipped, toCommit);
  let rebuilt = { text: local.index, leftOut: 0, held: [] as { file: string; reason: string }[] };
  // One hold of the writer lock for the whole pull, not one per file (docs/design.md#sync).
  const writeHere = () => withWriterHeld(target.localDir, writeLocked);
  const writeLocked = async () => {
    // Each action touches its own names, so a batch runs side by side: one file at a time, the
    // fsync and the path checks of each write waited in turn (a first pull of 2,000 memories took
    // 27 s, docs/benchmarks.md#sync). A conflict file named like another action's file would make
    // two writes race for one name: then one at a time, as before.
    const names = new Set(actions.map((action) => action.file));
    const clash = actions.some(
      (action) =>
        action.kind === "conflict" && names.has(conflictFileName(action.file, action.blob.slice(0, 8))),
    );
    const batch = clash ? 1 : WRITE_BATCH;
    // The memory dir's folders are fsynced once each at the end, not once per file.
    const folderSyncs = new Set<string>();
    // What the remote has and this machine does not take now keeps its old base: the next sync
    // must not read its absence here as a deletion to push, nor push this side's text over the
    // remote's as if this side had seen it (docs/sync.md, "What is held stays").
    const hold = (action: SyncAction, reason: string) => {
      refused = true;
      refusals.set(action.file, reason);
      if (action.kind !== "push") review[action.file] = decided.base.get(action.file) ?? null;
    };
    const apply = async (action: SyncAction): Promise<void> => {
      // The local side was read outside the writer lock, so a save (`memdir add`, an agent's
      // Write) may have changed the file since: a pulled write or deletion replaces only the
      // text the decision saw (or nothing, where it saw no file). Else the remote's change is
      // held, as a push of a file changed during the sync is ("Read later, checked"), and not
      // turned into a conflict pair here: the new text was never scanned for secrets, and the
      // pair would push it unseen (docs/design.md#sync-stat-cache, "Written only over what was
      // read"). The next sync decides with the held file's old base, so the remote's text comes
      // in as a conflict file beside the local one, or the local change wins over a deletion
      // (docs/design.md#sync, three-way per file).
      const written =
        action.kind === "conflict" ? conflictFileName(action.file, action.blob.slice(0, 8)) : action.file;
      if (action.kind !== "push" && !(await unchangedSinceRead(target.localDir, local, written)))
        return hold(action, CHANGED_DURING_SYNC);
      try {
        if (action.kind === "pull" && action.blob === null) {
          // Its index line goes in the one rebuild below, not in one index rewrite per removal.
          await removeMemoryIfPresent(target.localDir, action.file, { indexLinesRemoved: true });
          removed.add(action.file);
          after.delete(action.file);
          pulled++;
        } else if (action.kind === "pull") {
          const text = await theirsText(action.file);
          await writeMemoryText(target.localDir, action.file, text, {
            verbatim: true,
            origin: SYNC_ORIGIN,
            folderSyncs,
          });
          addedAt.set(action.file, { file: action.file, text });
          after.set(action.file, { blob: blobId(text) });
          if (conflictOf(text) !== null) conflicts.add(action.file);
          pulled++;
        } else if (action.kind === "conflict") {
          const file = conflictFileName(action.file, action.blob.slice(0, 8));
          const ours = await oursText(action.file);
          const text = markAsConflict(await theirsText(action.file), action.file);
          await writeMemoryText(target.localDir, file, text, {
            verbatim: true,
            origin: SYNC_ORIGIN,
            folderSyncs,
          });
          toCommit.set(file, text);
          toCommit.set(action.file, ours);
          addedAt.set(action.file, { file, text });
          after.set(file, { blob: blobId(text) });
          conflicts.add(file);
          // A conflict file accepted from the inbox is here already: its own push action counts it.
          pushed += local.files.has(file) ? 1 : 2;
        } else {
          toCommit.set(action.file, await oursText(action.file));
          pushed++;
        }
      } catch (error) {
        if (!(error instanceof MemdirError)) throw error;
        // Quarantined, a credential, a name this machine cannot hold: held.
        hold(action, skipReason(action.file, error));
      }
    };
    // Results land by action, then are read in the actions' order: the index lines and the
    // skipped list come out as they did one file at a time.
    const addedAt = new Map<string, { file: string; text: string }>();
    const refusals = new Map<string, string>();
    try {
      for (let start = 0; start < actions.length; start += batch) {
        throwIfAborted(options.signal, "sync");
        if (start % WRITE_PROGRESS_EVERY === 0)
          options.progress?.("writing pulled files", start, actions.length);
        await Promise.all(actions.slice(start, start + batch).map(apply));
      }
    } finally {
      await syncFoldersInside(target.localDir, folderSyncs);
      for (const action of actions) {
        const written = addedAt.get(action.file);
        if (written !== undefined) added.push(written);
        const reason = refusals.get(action.file);
        if (reason !== undefined) skipped.push({ file: action.file, reason });
      }
    }
    if (actions.length > 0) options.progress?.("writing pulled files", actions.length, actions.length);
    // Rebuilt from the index as it is under the writer lock, not as `decide` read it: a save made
    // meanwhile (auto-sync starts right after one) keeps its line.
    rebuilt = rebuildIndexChecked(local.index, { added, removed });
    // With sync's origin: a line the quarantine finds instruction-like is never written with a
    // warning nobody reads. Each pulled file's index line, title and description joined, was read
    // when the file was written; a line the rewrite would still hold is left out and its file named
    // in `skipped`, so the rewrite is never held and never stops the sync (docs/design.md#sync).
    if (rebuilt.text !== local.index)
      await updateIndex(
        target.localDir,
        (current) => {
          rebuilt = rebuildIndexChecked(current, { added, removed });
          return rebuilt.text;
        },
        { origin: SYNC_ORIGIN },
      );
  };
  // The remote's changes written here are one history entry, so `memdir undo` takes a pull back
  // whole (docs/design.md#undo); the caller records it (sync sits beside the history's layer).
  const pull = pullRecord(clone, target, actions, () => added.length + removed.size);
  let unrecorded: string | null = null;
  if (pull !== null && options.recordPull) {
    await rememberPull(recordedPull(pull.entry.mark, baseCommit, actions, decided));
    await options.beforePull?.();
    const entry = (await options.recordPull(pull.memoryDir, pull.entry, writeHere)) ?? null;
    if (entry === null) unrecorded = pull.entry.mark;
  } else {
    if (pull !== null) await options.beforePull?.();
    await writeHere();
  }
  skipped.push(...rebuilt.held);
  if (rebuilt.leftOut > 0)
    skipped.push({
      file: INDEX_FILE,
      reason: `${rebuilt.leftOut} pulled memories have no line: the index is at its load limits`,
    });
  // The index goes along when memory files changed (or the remote has none), for people and
  // tools that read the remote; memdir never reads it, so two machines' indexes never ping-pong.
  // The lines of files that never leave this machine (private, a credential, a link) stay here.
  if (pushed > 0 || added.length > 0 || removed.size > 0 || !remoteHasIndex)
    shareIndex(rebuilt.text, local, toCommit, skipped, decided.theirs.get(INDEX_FILE));
  for (const [file, { conflict }] of local.files) if (conflict && !removed.has(file)) conflicts.add(file);
  for (const [file, reason] of shapeClashes(toCommit, decided.theirs)) {
    toCommit.delete(file);
    if (file !== INDEX_FILE) pushed--;
    refused = true;
    skipped.push({ file, reason });
  }
  const commit = options.pullOnly
    ? null
    : await commitChanges(
        clone,
        remote,
        decided.theirs,
        target.key,
        toCommit,
        `sync: ${target.key}: ${pushed} file(s)`,
        options.now,
      );
  const unpushed = options.pullOnly && actions.some((action) => action.kind !== "pull");
  const digest =
    refused || unpushed || Object.keys(review).length > 0
      ? null
      : localDigest({ files: after, held: local.held, index: rebuilt.text });
  return {
    commit,
    pulled,
    pushed,
    conflicts: [...conflicts].sort(),
    skipped,
    review,
    digest,
    unrecorded,
    undone: decided.undone,
  };
}

/** The remote's texts this round takes, read from the clone's objects in one git call. */
async function readTheirTexts(
  clone: SyncClone,
  decided: { actions: readonly SyncAction[]; theirs: ReadonlyMap<string, TreeFile> },
): Promise<(file: string) => Promise<string>> {
  const wanted = new Map<string, string>();
  for (const action of decided.actions) {
    const blob = decided.theirs.get(action.file)?.blob;
    if (action.kind !== "push" && blob !== undefined) wanted.set(action.file, blob);
  }
  const texts = await readBlobTexts(clone, wanted);
  return async (file: string) => {
    const text = texts.get(file);
    if (text === undefined) throw new MemdirError("io", `sync: ${file} is missing from the clone`);
    if (text instanceof MemdirError) throw text;
    return text;
  };
}

/**
 * Under `memoryMode` review or manual: the remote's changes go to the inbox as one proposal, each
 * keeping its old base in `review`; returns the actions left to carry out here.
 */
async function holdIncomingForReview(round: {
  clone: SyncClone;
  target: SyncTarget;
  decided: { actions: SyncAction[]; base: ReadonlyMap<string, string>; local: LocalSide };
  theirsText: (file: string) => Promise<string>;
  review: Record<string, string | null>;
  skipped: { file: string; reason: string }[];
  options: SyncOptions;
  /** Runs with the new proposal's id before it is saved. */
  beforeSave: (id: string) => Promise<void>;
}): Promise<SyncAction[]> {
  const { clone, target, decided, review, options } = round;
  const incoming: ProposedChange[] = [];
  const rest: SyncAction[] = [];
  for (const action of decided.actions) {
    const change = await incomingChange(action, decided.local, round.theirsText);
    if (change === null) rest.push(action);
    else {
      incoming.push(change);
      review[action.file] = decided.base.get(action.file) ?? null;
    }
  }
  const memoryDir = target.memoryDir ?? target.localDir;
  const folder = path.relative(memoryDir, target.localDir).split(path.sep).join("/");
  const where = { memoryDir, folder: folder === "" ? "" : `${folder}/` };
  round.skipped.push(
    ...(await proposeIncoming(where, clone.url, incoming, options.now ?? Date.now, round.beforeSave)),
  );
  return rest;
}

/**
 * Whether the remote has a regular `MEMORY.md`; one that is a link (or not a regular file) is
 * removed in the next commit (unless this machine's index takes its place) and said in `skipped`.
 */
function dropIndexLink(
  theirs: ReadonlyMap<string, TreeFile>,
  skipped: { file: string; reason: string }[],
  toCommit: Map<string, string | null>,
): boolean {
  const theirIndex = theirs.get(INDEX_FILE);
  const remoteHasIndex = theirIndex !== undefined && isRegularMode(theirIndex.mode);
  if (theirIndex !== undefined && !remoteHasIndex) {
    skipped.push({
      file: INDEX_FILE,
      reason:
        "a symbolic link (or not a regular file) in the remote: not read, replaced by this machine's index",
    });
    toCommit.set(INDEX_FILE, null);
  }
  return remoteHasIndex;
}

/**
 * The history entry of a pull: the files this round may write here, named from the memory dir,
 * with the index, and a message counting those it wrote (`written`, asked once the pull is
 * done: a file held or refused is not written); null when it would write none.
 */
function pullRecord(
  clone: SyncClone,
  target: SyncTarget,
  actions: readonly SyncAction[],
  written: () => number,
): { memoryDir: string; entry: PullChange } | null {
  const memoryDir = target.memoryDir ?? target.localDir;
  const prefix = path.relative(memoryDir, target.localDir).split(path.sep).join("/");
  const inMemoryDir = (file: string) => (prefix === "" ? file : `${prefix}/${file}`);
  const writing = actions.filter((action) => action.kind !== "push");
  if (writing.length === 0) return null;
  // The pulled files' blobs, as the clone holds them: the files are written verbatim, so the
  // history's commit finds them there (src/dream/history-git.ts gitImportPack).
  const blobs = actions.flatMap((action) =>
    action.kind === "pull" && action.blob !== null ? [action.blob] : [],
  );
  return {
    memoryDir,
    entry: {
      ...(blobs.length >= PACK_FROM ? { objects: () => packBlobs(clone, blobs) } : {}),
      message: () => `pulled ${written()} file(s) from ${clone.url}`,
      mark: randomBytes(6).toString("hex"),
      files: [
        ...writing.flatMap((action) =>
          action.kind === "conflict"
            ? [action.file, conflictFileName(action.file, action.blob.slice(0, 8))]
            : [action.file],
        ),
        INDEX_FILE,
      ].map(inMemoryDir),
    },
  };
}

/**
 * The files of `toCommit` whose path the remote holds in another shape, each with why it is not
 * pushed: a folder where this side has a file, or a file where this side's path has a folder.
 * A commit would replace that folder, everything in it included, or that file (docs/sync.md); the
 * remote's files stay as they are, and the file stays here, named.
 */
function shapeClashes(
  toCommit: ReadonlyMap<string, string | null>,
  theirs: ReadonlyMap<string, TreeFile>,
): [string, string][] {
  const writes = [...toCommit].filter(([, text]) => text !== null).map(([file]) => file);
  if (writes.length === 0) return [];
  const folders = new Set<string>();
  for (const file of theirs.keys())
    for (let at = file.indexOf("/"); at >= 0; at = file.indexOf("/", at + 1)) folders.add(file.slice(0, at));
  const clashes: [string, string][] = [];
  for (const file of writes) {
    if (folders.has(file)) clashes.push([file, "the remote has a folder of this name; not pushed"]);
    else {
      const parts = file.split("/");
      for (let depth = 1; depth < parts.length; depth++) {
        const folder = parts.slice(0, depth).join("/");
        if (theirs.has(folder)) {
          clashes.push([
            file,
            `the remote has a file named ${folder}, where this path has a folder; not pushed`,
          ]);
          break;
        }
      }
    }
  }
  return clashes;
}

/** This machine's index into the commit, without the lines of files that never leave it. */
function shareIndex(
  index: string,
  local: LocalSide,
  toCommit: Map<string, string | null>,
  skipped: { file: string; reason: string }[],
  remoteIndex: TreeFile | undefined,
): void {
  // `index` is rebuildIndex's, so it lists each file once already: with nothing held there is no
  // line to drop, and no second pass over it.
  const shared =
    local.held.size === 0 ? index : applyIndexChanges(index, { remove: new Set(local.held.keys()) });
  // The remote holds this very index already: the commit would leave it as it is, and pushing
  // nothing new needs no secret scan (~110 ms for a 2.8 MB generated index, docs/benchmarks.md#sync).
  if (
    shared.trim() !== "" &&
    remoteIndex !== undefined &&
    isRegularMode(remoteIndex.mode) &&
    remoteIndex.blob === blobId(shared)
  )
    return;
  if (findSecrets(shared).length === 0) toCommit.set(INDEX_FILE, shared.trim() === "" ? null : shared);
  else skipped.push({ file: INDEX_FILE, reason: "holds what looks like a credential; not pushed" });
}

/**
 * What a remote change would do here, as a proposed change, or null when it is not one to hold:
 * a push (the user's own change), or a conflict whose conflict file is here already (accepted).
 */
async function incomingChange(
  action: SyncAction,
  local: LocalSide,
  theirsText: (file: string) => Promise<string>,
): Promise<ProposedChange | null> {
  if (action.kind === "push") return null;
  const before = (await local.files.get(action.file)?.text()) ?? null;
  if (action.kind === "pull" && action.blob === null)
    return { file: action.file, action: "delete", before, after: null };
  if (action.kind === "pull") {
    const after = await theirsText(action.file);
    return { file: action.file, action: before === null ? "add" : "modify", before, after };
  }
  const file = conflictFileName(action.file, action.blob.slice(0, 8));
  const after = markAsConflict(await theirsText(action.file), action.file);
  const here = (await local.files.get(file)?.text()) ?? null;
  if (here === after) return null;
  return { file, action: here === null ? "add" : "modify", before: here, after };
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * The incoming names (not on this side) whose NFC form another name already has, each with that
 * name: one here wins, else among incoming twins the one spelled in NFC (else the first sorted).
 */
function unicodeTwins(here: ReadonlySet<string>, incoming: Iterable<string>): Map<string, string> {
  const names = new Set([...here, ...incoming]);
  const twins = new Map<string, string>();
  // Two names with one NFC form cannot both be that form: with every name in NFC (ASCII always
  // is), there are none, and 20,000 names cost no normalization (docs/benchmarks.md#sync).
  const inNfc = (file: string) => ASCII_ONLY.test(file) || file.normalize("NFC") === file;
  if ([...names].every(inNfc)) return twins;
  const byForm = new Map<string, string[]>();
  for (const file of names) {
    const form = file.normalize("NFC");
    const same = byForm.get(form);
    if (same === undefined) byForm.set(form, [file]);
    else same.push(file);
  }
  for (const [form, files] of byForm) {
    if (files.length < 2) continue;
    const keeper =
      files.find((file) => here.has(file)) ?? files.find((file) => file === form) ?? [...files].sort()[0];
    for (const file of files) if (file !== keeper && !here.has(file)) twins.set(file, keeper);
  }
  return twins;
}
