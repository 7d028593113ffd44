import path from "node:path";
import { MemdirError } from "../errors.ts";
import type { MemoryLocation } from "../memdir/location/paths.ts";
import { ensureMemoryDir, readProjectMarker, recordProjectKey } from "../memdir/location/paths.ts";
import { projectKey } from "../memdir/location/project-key.ts";
import { sameRepository } from "./remote-identity.ts";
import { readSyncRemotes, remotesFile } from "./remotes.ts";
import { assertProjectFolder, fetchRemote, openClone, prepareClone, trackedRemote } from "./repository.ts";
import {
  decide,
  remoteRewritten,
  type SyncOptions,
  type SyncReport,
  type SyncTarget,
  syncFolder,
  takeSyncLease,
} from "./run.ts";
import { readFolderState } from "./state.ts";

/**
 * The project key of a memory location, recorded in its `.memdir-project` marker. With `--dir`
 * (no project resolved) the marker's recorded key or owner is used.
 *
 * @throws MemdirError("invalid-input") when the directory belongs to no project.
 */
export async function projectKeyFor(location: MemoryLocation): Promise<string> {
  const { key } = await resolveProjectKey(location);
  await recordKey(location, key);
  return key;
}

/** Records `key` in the project's `.memdir-project`, the memory dir made and claimed first; nothing with `--dir`. */
async function recordKey(location: MemoryLocation, key: string): Promise<void> {
  if (location.projectRoot === null) return;
  await ensureMemoryDir(location);
  await recordProjectKey(location.memoryDir, location.projectRoot, key);
}

/** A project key that is not the one the project last synced under, as a sync reports it. */
export interface ProjectKeyChange {
  /** The key recorded in `.memdir-project` by the project's last sync. */
  from: string;
  /** The key the project has now, which this sync used. */
  to: string;
}

/**
 * The project key of a memory location and, when it differs, the one its `.memdir-project`
 * recorded (the key its last sync used): an `origin` remote added to a repository that had none,
 * or changed to a new URL, gives the project a new key and a new folder in the sync repository
 * (docs/design.md#project-identity). Records nothing: a sync records the new key once it is done
 * (so one that fails on the way still reports the change), `sync --status` never does.
 */
async function resolveProjectKey(
  location: MemoryLocation,
): Promise<{ key: string; change: ProjectKeyChange | null }> {
  if (location.projectRoot !== null) {
    const key = await projectKey(location.projectRoot);
    const marker = await readProjectMarker(location.memoryDir);
    const recorded = marker?.projectRoot === location.projectRoot ? marker.projectKey : undefined;
    const change = recorded !== undefined && recorded !== key ? { from: recorded, to: key } : null;
    return { key, change };
  }
  return { key: await keyOfFolder(location), change: null };
}

/** The key of a memory dir named with `--dir`: its marker's recorded key, or its owner's. */
async function keyOfFolder(location: MemoryLocation): Promise<string> {
  if (location.sharedFolderOf !== undefined)
    throw new MemdirError(
      "invalid-input",
      `sync: ${location.memoryDir} is Claude Code's autoMemoryDirectory, one folder every project shares; memdir sync keeps each project's memory apart, so it does not sync this folder (unset autoMemoryDirectory to sync per project)`,
    );
  const marker = await readProjectMarker(location.memoryDir);
  if (marker?.projectKey) return marker.projectKey;
  if (marker) return projectKey(marker.projectRoot);
  throw new MemdirError(
    "invalid-input",
    `sync: ${location.memoryDir} belongs to no project (no .memdir-project); run memdir sync in the project instead of with --dir`,
  );
}

/** The remotes this project's memory syncs with: the user's, and the team's for `team/`. */
export async function syncTargets(
  location: MemoryLocation,
): Promise<{ user?: SyncTarget; team?: SyncTarget; key: string; keyChange: ProjectKeyChange | null }> {
  const remotes = await readSyncRemotes(location.root);
  const { key, change } = await resolveProjectKey(location);
  const teamUrl = remotes.team?.[key];
  // One repository as both would be one folder synced from two places, the memory dir less
  // `team/` and `team/`: each sync would push the other's memories as deleted. `sync init`
  // refuses it; this catches a remotes.json edited by hand or set before it did.
  if (remotes.user && teamUrl && (await sameRepository(location.root, remotes.user, teamUrl)))
    throw new MemdirError(
      "invalid-input",
      `sync: the memory remote ${remotes.user} and the team remote of ${key} (${teamUrl}) are one repository; ` +
        "syncing both would push each side's memories as deleted from the other, so nothing was synced. " +
        `Give the team its own repository (memdir sync init --team <git-url>) or remove the entry from ${remotesFile(location.root)}`,
    );
  return {
    key,
    keyChange: change,
    ...(remotes.user
      ? {
          user: {
            root: location.root,
            url: remotes.user,
            key,
            localDir: location.memoryDir,
            excludeTeam: true,
          },
        }
      : {}),
    ...(teamUrl
      ? {
          team: {
            root: location.root,
            url: teamUrl,
            key,
            localDir: path.join(location.memoryDir, "team"),
            excludeTeam: false,
            memoryDir: location.memoryDir,
          },
        }
      : {}),
  };
}

/**
 * `memdir sync --json`: the user remote's report, with the team remote's under `team` when set,
 * and `keyChanged` when the project's key is not the one its last sync used (this sync used the
 * new one; the sync repository keeps the old key's folder, which clones that still compute the old
 * key sync with).
 */
export type ProjectSyncReport = SyncReport & { team?: SyncReport; keyChanged?: ProjectKeyChange };

function notConfigured(): MemdirError {
  return new MemdirError("not-found", "sync: no sync remote; run `memdir sync init <git-url>` first");
}

/**
 * Syncs a project's memory with its remotes (docs/design.md#sync).
 *
 * @example
 * const report = await syncProject(await resolveMemoryLocation({ cwd }));
 * report.conflicts // ["user-role.conflict-3f9a2c1b.md"]
 */
export async function syncProject(
  location: MemoryLocation,
  options: SyncOptions = {},
): Promise<ProjectSyncReport> {
  const targets = await syncTargets(location);
  if (!targets.user && !targets.team) throw notConfigured();
  // The memory dir, claimed for its project, exists before anything is pulled into it.
  if (location.projectRoot !== null) await ensureMemoryDir(location);
  const main = targets.user ? await syncFolder(targets.user, options) : null;
  const team = targets.team ? await syncFolder(targets.team, options) : null;
  // The new key is recorded once the sync under it is done: a sync that fails on the way still
  // reports the change the next time.
  await recordKey(location, targets.key);
  return bothRemotes(main, team, targets.keyChange);
}

/**
 * The user remote's answer with the team remote's under `team` (or the team's alone), and
 * `keyChanged` when the project's key changed: how `memdir sync` and `sync --status` report.
 */
function bothRemotes<T extends object>(
  main: T | null,
  team: T | null,
  keyChange: ProjectKeyChange | null,
): T & { team?: T; keyChanged?: ProjectKeyChange } {
  const keyChanged = keyChange ? { keyChanged: keyChange } : {};
  if (main === null) return { ...(team as T), ...keyChanged };
  return team === null ? { ...main, ...keyChanged } : { ...main, team, ...keyChanged };
}

/** `memdir sync --status --json` (docs/design.md#sync). */
export interface SyncStatus {
  remote: string;
  /** Memory files this machine would push (conflicting ones included). */
  ahead: number;
  /** Memory files the remote would change here (conflicting ones included), those waiting for review aside. */
  behind: number;
  /**
   * Files of the remote's held for review (quarantined, or under review mode): a sync tries them
   * again and holds them again until they are accepted or rejected in `memdir inbox`, so they are
   * not counted as behind.
   */
  held: number;
  conflicts: string[];
  /** When this project last synced with the remote, or null. */
  lastSync: string | null;
  /** False when the remote could not be reached: ahead and behind are as of the last fetch. */
  reachable: boolean;
  /**
   * True when the remote was rewritten or reset since this project last synced: `memdir sync`
   * refuses until `memdir sync --accept-remote`, and ahead and behind are what that would do.
   */
  rewritten: boolean;
  team?: Omit<SyncStatus, "team" | "keyChanged">;
  /** The project's key is not the one its last sync used: the next sync uses the new one. */
  keyChanged?: ProjectKeyChange;
}

async function folderStatus(
  target: SyncTarget,
  options: StatusOptions,
): Promise<Omit<SyncStatus, "team" | "keyChanged">> {
  const { signal } = options;
  const clone = openClone(target.root, target.url);
  const lease = await takeSyncLease(clone);
  try {
    await prepareClone(clone);
    // As `memdir sync` reads them (src/sync/run.ts); the adoption is written by none here.
    const { state, caches, id } = await readFolderState(clone, target.key, target.localDir);
    const lastSync = state.projects[id]?.lastSync || null;
    let reachable = true;
    const remote = await fetchRemote(clone, signal).catch(async (error: unknown) => {
      if (!(error instanceof MemdirError && error.code === "unreachable")) throw error;
      reachable = false;
      return trackedRemote(clone);
    });
    // The check `memdir sync` refuses on (src/sync/run.ts): a rewrite is said, not counted as
    // deletions to pull. The figures are then those of `--accept-remote`, which forgets this
    // project's base (every difference a conflict, nothing deleted), since a plain sync does nothing.
    const rewritten = await remoteRewritten(clone, state, id, remote, reachable);
    if (rewritten) delete state.projects[id];
    // The folder check `memdir sync` refuses on, as it runs it (src/sync/run.ts): a project folder
    // the remote holds as a link or a file lists as empty, and its figures would be every memory
    // deleted here, where the sync itself refuses.
    if (remote !== state.projects[id]?.base) await assertProjectFolder(clone, remote, target.key);
    const { local, actions } = await decide(
      clone,
      target,
      state.projects[id],
      remote,
      { cache: caches.projects[id], nowMs: Date.now() },
      { undonePulls: options.undonePulls },
    );
    const conflicts = [...local.files].filter(([, { conflict }]) => conflict).map(([file]) => file);
    const review = state.projects[id]?.review ?? {};
    const incoming = actions.filter((a) => a.kind !== "push");
    const held = incoming.filter((a) => Object.hasOwn(review, a.file)).length;
    return {
      remote: target.url,
      ahead: actions.filter((a) => a.kind !== "pull").length,
      behind: incoming.length - held,
      conflicts: conflicts.sort(),
      lastSync,
      reachable,
      rewritten,
      held,
    };
  } finally {
    await lease.release();
  }
}

/** What `syncStatus` takes: `undonePulls` as for a sync, so an undone pull counts as the remote's to pull. */
export type StatusOptions = Pick<SyncOptions, "signal" | "undonePulls">;

/** What a sync would do now, without changing anything but the clone's copy of the remote. */
export async function syncStatus(location: MemoryLocation, options: StatusOptions = {}): Promise<SyncStatus> {
  const targets = await syncTargets(location);
  if (!targets.user && !targets.team) throw notConfigured();
  const main = targets.user ? await folderStatus(targets.user, options) : null;
  const team = targets.team ? await folderStatus(targets.team, options) : null;
  return bothRemotes(main, team, targets.keyChange);
}
