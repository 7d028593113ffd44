import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../memdir/fs/atomic.ts";
import type { SyncClone } from "./repository.ts";

/**
 * What a clone remembers between syncs (`<root>/sync/<hash>/state.json`): the remote commit it
 * last saw, to notice a rewritten remote, and per project key the commit its memory dir matched
 * after the last sync (the base of the next three-way decision) and when that was.
 */
export interface SyncState {
  lastRemote: string | null;
  /**
   * `review`: files whose remote change waits for review (src/sync/review.ts) or was held or
   * refused here (quarantined, a credential, a name this machine cannot hold), each with the base
   * blob (null: absent) it had then; the decision keeps using it until the file is settled, so a
   * held file is never pushed back as a deletion.
   */
  projects: Record<string, { base: string | null; lastSync: string; review?: Record<string, string | null> }>;
}

export async function readSyncState(clone: SyncClone): Promise<SyncState> {
  try {
    const data = JSON.parse(
      await fs.readFile(path.join(clone.dir, "state.json"), "utf8"),
    ) as Partial<SyncState>;
    return {
      lastRemote: typeof data.lastRemote === "string" ? data.lastRemote : null,
      projects: data.projects && typeof data.projects === "object" ? data.projects : {},
    };
  } catch {
    return { lastRemote: null, projects: {} };
  }
}

/** Written atomically: a sync killed at any point leaves the old state or the new one. */
export async function writeSyncState(clone: SyncClone, state: SyncState): Promise<void> {
  await writeFileAtomic(path.join(clone.dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
}
