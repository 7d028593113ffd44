import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { writeFileAtomic } from "../memdir/fs/atomic.ts";
import { findSecrets, secretKindPhrase } from "../memdir/trust/secrets.ts";

// Which git remotes memory syncs with (docs/design.md#sync). Kept under `<root>/sync/`, outside
// every memory dir, where no automatic writer (extraction, consolidation, MCP) can reach.

/** `<root>/sync/remotes.json`: the user's memory remote and each project's team remote. */
export interface SyncRemotes {
  /** The user's memory remote: one repository, a folder per project key. */
  user?: string;
  /** Team remotes by project key, for the project's `team/` memory. */
  team?: Record<string, string>;
}

/** The folder of sync state: `<root>/sync`. */
export function syncStateDir(root: string): string {
  return path.join(root, "sync");
}

/** The remotes file: `<root>/sync/remotes.json`. */
export function remotesFile(root: string): string {
  return path.join(syncStateDir(root), "remotes.json");
}

/** Reads the remotes file; a missing or broken file is no remote at all. */
export async function readSyncRemotes(root: string): Promise<SyncRemotes> {
  try {
    const data: unknown = JSON.parse(await fs.readFile(remotesFile(root), "utf8"));
    if (!data || typeof data !== "object") return {};
    const { user, team } = data as { user?: unknown; team?: unknown };
    const teams: Record<string, string> = {};
    if (team && typeof team === "object")
      for (const [key, url] of Object.entries(team)) if (typeof url === "string") teams[key] = url;
    return { ...(typeof user === "string" ? { user } : {}), team: teams };
  } catch {
    return {};
  }
}

export async function writeSyncRemotes(root: string, remotes: SyncRemotes): Promise<void> {
  await fs.mkdir(syncStateDir(root), { recursive: true, mode: 0o700 });
  await writeFileAtomic(remotesFile(root), `${JSON.stringify(remotes, null, 2)}\n`);
}

/**
 * Refuses a remote URL that carries a credential: a password in its user part
 * (`https://me:token@host/…`) or anything the secret scanner flags. memdir stores no
 * credentials; git's credential helpers and SSH keep them (docs/design.md#sync).
 *
 * @throws MemdirError("invalid-input")
 */
export function checkRemoteUrl(url: string): string {
  const text = url.trim();
  if (text === "" || /[\s\0]/.test(text) || text.startsWith("-"))
    throw new MemdirError("invalid-input", `sync: ${JSON.stringify(url)} is not a git URL`);
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(text))
    throw new MemdirError(
      "invalid-input",
      "sync: the remote URL holds a password; memdir stores no credentials — give the URL without it and let git's credential helper or SSH supply it",
    );
  const found = findSecrets(text)[0];
  if (found)
    throw new MemdirError(
      "invalid-input",
      `sync: the remote URL holds what looks like ${secretKindPhrase(found.kind)}; memdir stores no credentials — use git's credential helper or SSH`,
    );
  return text;
}

/** Where the clone of `url` lives: `<root>/sync/<hash of the URL>/`, one per remote. */
export function cloneDir(root: string, url: string): string {
  return path.join(syncStateDir(root), createHash("sha256").update(url).digest("hex").slice(0, 16));
}
