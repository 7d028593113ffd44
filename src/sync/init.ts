import fs from "node:fs/promises";
import { MemdirError } from "../errors.ts";
import type { MemoryLocation } from "../memdir/location/paths.ts";
import { projectKeyFor } from "./project.ts";
import { sameRepository } from "./remote-identity.ts";
import {
  checkRemoteUrl,
  readSyncRemotes,
  type SyncRemotes,
  syncStateDir,
  writeSyncRemotes,
} from "./remotes.ts";
import { type FetchFailure, openClone, prepareClone, tryFetchRemote } from "./repository.ts";
import { takeSyncLease } from "./run.ts";

// `memdir sync init <git-url>` and `--team` (docs/sync.md): a remote is recorded only once it was
// reached, and never as both the user's remote and a team remote (docs/design.md#sync).

/** What `memdir sync init --json` prints. */
export interface SyncInitResult {
  remote: string;
  team: boolean;
  projectKey?: string;
}

/**
 * Sets the user's memory remote (or, with `team`, this project's team remote): the URL checked
 * for credentials, refused when it is the other kind of remote as well, fetched once, and only
 * then written to `remotes.json`.
 *
 * A remote that cannot be reached is not recorded: a URL never reached may be a typo, and a
 * recorded one would fail every background sync (`sync.auto`) in silence; offline, init is run
 * again once online, as the message says. The folders the attempt made (the clone, and
 * `<root>/sync` or the root when they were new) are removed with it.
 *
 * @throws MemdirError("invalid-input") for a URL with a credential, or one that is the same
 *   repository as the other kind of remote.
 * @throws MemdirError("unreachable") / MemdirError("remote-invalid") when the fetch failed.
 */
export async function initSyncRemote(
  location: MemoryLocation,
  url: string,
  options: { team?: boolean } = {},
): Promise<SyncInitResult> {
  const remote = checkRemoteUrl(url);
  const remotes = await readSyncRemotes(location.root);
  await refuseSharedRepository(location.root, remote, remotes, Boolean(options.team));
  await reachOnce(location.root, remote);
  const projectKey = options.team ? await projectKeyFor(location) : undefined;
  if (projectKey !== undefined) remotes.team = { ...remotes.team, [projectKey]: remote };
  else remotes.user = remote;
  await writeSyncRemotes(location.root, remotes);
  return { remote, team: Boolean(options.team), ...(projectKey ? { projectKey } : {}) };
}

/**
 * Refuses a team remote that is the user's remote, and a user remote that is some project's team
 * remote: both would sync the project's one folder in that repository from two places (the
 * memory dir less `team/`, and `team/`), each pushing the other's memories as deleted.
 */
async function refuseSharedRepository(
  root: string,
  remote: string,
  remotes: SyncRemotes,
  team: boolean,
): Promise<void> {
  const why =
    "the two would sync this project's folder there from two places, and each sync would push the other's memories as deleted; nothing was saved";
  if (team) {
    if (remotes.user !== undefined && (await sameRepository(root, remotes.user, remote)))
      throw new MemdirError(
        "invalid-input",
        `sync init: ${remote} ${sameAs("your memory remote", remotes.user, remote)}; a team remote must be another repository: ${why}`,
      );
    return;
  }
  for (const [key, teamUrl] of Object.entries(remotes.team ?? {}))
    if (await sameRepository(root, teamUrl, remote))
      throw new MemdirError(
        "invalid-input",
        `sync init: ${remote} ${sameAs(`the team remote of ${key}`, teamUrl, remote)}; your memory remote must be another repository: ${why.replace("this project's", "that project's")}`,
      );
}

/** "is already <what>", or "is the repository <what> (<url>) names" for another spelling of it. */
function sameAs(what: string, url: string, remote: string): string {
  return url === remote ? `is already ${what}` : `is the repository ${what} (${url}) names`;
}

/**
 * Fetches `remote` once into its clone. On failure the clone is removed when this call made it,
 * with `<root>/sync` and the root when they were new and are left empty (a clone that was there
 * before keeps everything: it may be the remote's, already in use).
 */
async function reachOnce(root: string, remote: string): Promise<void> {
  const clone = openClone(root, remote);
  const made: string[] = [];
  for (const folder of [root, syncStateDir(root), clone.dir])
    if ((await fs.lstat(folder).catch(() => null)) === null) made.push(folder);
  let failure: FetchFailure | undefined;
  let reached = false;
  const lease = await takeSyncLease(clone);
  try {
    await prepareClone(clone);
    const fetched = await tryFetchRemote(clone);
    if ("failure" in fetched) failure = fetched.failure;
    else reached = true;
  } finally {
    if (!reached && made.includes(clone.dir))
      await fs.rm(clone.repository.workTree, { recursive: true, force: true }).catch(() => undefined);
    await lease.release();
    // Non-recursive: a folder something else wrote into meanwhile stays.
    if (!reached) for (const folder of made.reverse()) await fs.rmdir(folder).catch(() => undefined);
  }
  if (failure === undefined) return;
  const next = "; the remote was not saved (nothing changed here)";
  if (failure.kind === "refused")
    throw new MemdirError(
      "remote-invalid",
      `sync init: the remote ${remote} holds objects git refuses (${failure.reason})${next}. No sync with it can succeed until the remote is fixed: \`git fsck\` in a clone of it names the object, and the commit that brought it has to be replaced`,
    );
  throw new MemdirError(
    "unreachable",
    `sync init: cannot reach ${remote}: ${failure.reason}${next}. Check the URL, your network and git's access to it (SSH key, credential helper), then run memdir sync init again`,
  );
}
