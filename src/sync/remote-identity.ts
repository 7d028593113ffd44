import fs from "node:fs/promises";
import path from "node:path";
import { normalizeRemoteUrl } from "../memdir/location/project-key.ts";
import { openClone, type SyncClone } from "./repository.ts";

// Which repository a remote URL names, whatever its spelling: a project's user remote and team
// remote must be two repositories (docs/design.md#sync), and each URL has its own clone
// (`<root>/sync/<hash of the URL>`), so the clone folders alone cannot tell.

/**
 * The repository a clone's URL names, so that two spellings of one compare equal (a user remote
 * and a team remote must be two repositories, docs/design.md#sync). A local repository (a path or
 * a `file://` URL, as git tells them from `host:path`) is the real path of the folder git opens
 * for it: git tries `<path>/.git`, `<path>`, `<path>.git/.git` and `<path>.git` in turn, and
 * resolves a relative path from where it runs, the clone's `tree` folder. Any other URL is its
 * host and path as a project key reads them (src/memdir/location/project-key.ts):
 * `git@github.com:acme/memory.git` and `https://github.com/acme/memory` are one repository.
 */
export async function remoteRepository(clone: SyncClone): Promise<string> {
  const url = clone.url.trim();
  const local = localRepositoryPath(url);
  if (local === null) {
    let normalized: string | null = null;
    try {
      normalized = normalizeRemoteUrl(url);
    } catch {
      // A malformed %-escape: the URL as it is.
    }
    return `remote:${normalized ?? url}`;
  }
  const resolved = path.resolve(clone.repository.workTree, local);
  for (const suffix of ["/.git", "", ".git/.git", ".git"]) {
    const candidate = `${resolved}${suffix}`;
    if (await isGitDirectory(candidate)) return `local:${await fs.realpath(candidate)}`;
  }
  // Nothing there (yet): the path with the suffixes git would try taken off.
  return `local:${resolved.replace(/(?:\.git)?(?:\/\.git)?$/, "")}`;
}

/** True when the URLs `a` and `b` name one repository ({@link remoteRepository}). */
export async function sameRepository(root: string, a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [first, second] = await Promise.all([
    remoteRepository(openClone(root, a)),
    remoteRepository(openClone(root, b)),
  ]);
  return first === second;
}

/**
 * The path of a local repository URL, or null for a URL git reaches over a transport: a
 * `file://` URL (its host ignored, its %-escapes decoded, as git does), or text with no colon or a
 * slash before its first one (git's rule; else `host:path` is scp-like ssh).
 */
function localRepositoryPath(url: string): string | null {
  const file = /^file:\/\/[^/]*(.*)$/is.exec(url);
  if (file) {
    try {
      return decodeURIComponent(file[1]) || "/";
    } catch {
      return file[1] || "/";
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return null;
  const colon = url.indexOf(":");
  const slash = url.indexOf("/");
  return colon < 0 || (slash >= 0 && slash < colon) ? url : null;
}

/** A folder git would open as a repository: `HEAD` and `objects/` in it. */
async function isGitDirectory(folder: string): Promise<boolean> {
  const [head, objects] = await Promise.all([
    fs.stat(path.join(folder, "HEAD")).catch(() => null),
    fs.stat(path.join(folder, "objects")).catch(() => null),
  ]);
  return head !== null && objects?.isDirectory() === true;
}
