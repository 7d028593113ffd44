import type { ResolvedConfig } from "../../config.ts";
import { spawnDetachedMemdir } from "../../hooks/spawn.ts";
import type { MemoryLocation } from "../../memdir/location/paths.ts";
import { syncAutoEnabled } from "../../sync/auto-setting.ts";

/**
 * With `sync.auto` on and a sync remote set, starts a bounded background `memdir sync --auto`
 * (after a save) or `--auto --pull` (at session start) and returns its pid; otherwise, or when
 * anything goes wrong, undefined. Never waits for the sync and never throws: a sync must not
 * block or fail a turn (docs/design.md#sync).
 */
export async function startAutoSync(
  when: "after-save" | "session-start",
  location: MemoryLocation,
  config: ResolvedConfig,
  env: NodeJS.ProcessEnv,
): Promise<number | undefined> {
  try {
    // A folder every project shares is not synced (src/sync/project.ts says why).
    if (!syncAutoEnabled(config) || location.sharedFolderOf !== undefined) return undefined;
    // Loaded only with sync.auto on: session start calls this on every session.
    const { readSyncRemotes } = await import("../../sync/remotes.ts");
    const remotes = await readSyncRemotes(location.root);
    if (!remotes.user && Object.keys(remotes.team ?? {}).length === 0) return undefined;
    const where =
      location.projectRoot === null ? ["--dir", location.memoryDir] : ["--cwd", location.projectRoot];
    return spawnDetachedMemdir(
      ["sync", "--auto", ...(when === "session-start" ? ["--pull"] : []), "--root", location.root, ...where],
      env,
    );
  } catch {
    return undefined;
  }
}
