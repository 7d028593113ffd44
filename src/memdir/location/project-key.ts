import fs from "node:fs/promises";
import path from "node:path";
import { runProjectGit } from "./git.ts";
import { gitDirsNamedBy, sanitizeProjectPath } from "./paths.ts";

// The project's identity across machines (docs/design.md#project-identity): the normalized URL of
// its `origin` remote, else its first commit, else its path. Synced memory lives in the sync
// repository under this key, so two clones of one repository share it wherever they are checked out.

/**
 * A remote URL reduced to `host/path`: the scheme, the user, the port and a trailing `.git` or
 * `/` dropped, the host in lower case. scp-like `git@host:owner/repo.git` is read like `ssh://`.
 * A `file://` URL or a plain path becomes `local/<path>`. Null for text that is no URL.
 *
 * @example
 * normalizeRemoteUrl("git@github.com:acme/shop.git") // "github.com/acme/shop"
 * normalizeRemoteUrl("https://github.com/acme/shop") // "github.com/acme/shop"
 */
export function normalizeRemoteUrl(url: string): string | null {
  const text = url.trim();
  if (text === "") return null;
  let host = "";
  let repoPath: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  const scpLike = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(text);
  if (scheme) {
    if (scheme[1].toLowerCase() === "file") {
      repoPath = decodeURIComponent(text.slice(scheme[0].length).replace(/^[^/]*/, ""));
    } else {
      let parsed: URL;
      try {
        parsed = new URL(text);
      } catch {
        return null;
      }
      host = parsed.hostname.toLowerCase();
      repoPath = decodeURIComponent(parsed.pathname);
    }
  } else if (scpLike && !/^[a-z]:[\\/]/i.test(text)) {
    host = scpLike[1].toLowerCase();
    repoPath = scpLike[2];
  } else {
    repoPath = text;
  }
  const cleaned = repoPath
    .replace(/\\/g, "/")
    .replace(/\/+$/, "")
    .replace(/\.git$/i, "")
    .replace(/^\/*~?/, "")
    .split("/")
    .filter((segment) => segment !== "" && segment !== "." && segment !== "..")
    .join("/");
  if (cleaned === "") return null;
  return host === "" ? `local/${cleaned}` : `${host}/${cleaned}`;
}

/** Reads `url` of `[remote "origin"]` from a git config text (no git subprocess). */
export function originUrlFromConfig(configText: string): string | null {
  let inOrigin = false;
  for (const raw of configText.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inOrigin = /^\[\s*remote\s+"origin"\s*\]$/i.test(line);
      continue;
    }
    if (!inOrigin) continue;
    const match = /^url\s*=\s*(.*?)\s*$/i.exec(line);
    if (match) return match[1].replace(/^"(.*)"$/, "$1");
  }
  return null;
}

/**
 * The git folder of a project root: `<root>/.git`; the folder a `.git` file names (a submodule's
 * `.git/modules/<name>`, a repository made with `--separate-git-dir`, a linked worktree's shared
 * folder through its `commondir`), whose config holds the origin; or the root itself for a bare
 * repository. A submodule used to get a `path/…` key, different on every machine.
 */
async function gitDirOf(projectRoot: string): Promise<string | null> {
  const dotGit = path.join(projectRoot, ".git");
  const stat = await fs.stat(dotGit).catch(() => null);
  if (stat?.isDirectory()) return dotGit;
  if (stat?.isFile()) return stat.size <= GIT_FILE_MAX_BYTES ? gitDirNamedBy(projectRoot, dotGit) : null;
  return (await isDirectory(path.join(projectRoot, "objects"))) ? projectRoot : null;
}

// A `.git` file is one `gitdir:` line; anything much bigger is not one.
const GIT_FILE_MAX_BYTES = 64 * 1024;

async function gitDirNamedBy(projectRoot: string, gitFile: string): Promise<string | null> {
  const named = gitDirsNamedBy(projectRoot, gitFile);
  if (named === null) return null;
  const shared = named.commonDir ?? named.gitDir;
  return (await isDirectory(path.join(shared, "objects"))) ? shared : null;
}

async function isDirectory(target: string): Promise<boolean> {
  return (await fs.stat(target).catch(() => null))?.isDirectory() ?? false;
}

/**
 * The repository's root commit (the smallest id when there are several), read with git in the
 * project's own repository through the one wrapper (`runProjectGit`): only `rev-list`, which runs
 * no program a config could name, with the guards of memdir's own git calls. Null without git or commits.
 */
async function firstCommit(gitDir: string): Promise<string | null> {
  const result = await runProjectGit(gitDir, ["rev-list", "--max-parents=0", "HEAD"]).catch(() => null);
  if (result === null || result.code !== 0) return null;
  const roots = result.stdout
    .split("\n")
    .filter((line) => /^[0-9a-f]{40,64}$/.test(line))
    .sort();
  return roots[0] ?? null;
}

/** One segment of a key folder: letters, digits, `.`, `_`, `-`; never a dot-name. */
function safeSegment(segment: string): string {
  const cleaned = segment.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 100);
  return /^\.|^$/.test(cleaned) ? `_${cleaned}` : cleaned;
}

/**
 * The project key: `github.com/acme/shop` from the origin remote, else `commit/<first commit>`,
 * else `path/<sanitized project path>`. Always a relative folder path of safe segments, so it
 * names the project's folder in a sync repository.
 *
 * @example
 * await projectKey("/Users/me/shop") // "github.com/acme/shop"
 */
export async function projectKey(projectRoot: string): Promise<string> {
  const gitDir = await gitDirOf(projectRoot);
  if (gitDir !== null) {
    const config = await fs.readFile(path.join(gitDir, "config"), "utf8").catch(() => "");
    const origin = originUrlFromConfig(config);
    const normalized = origin === null ? null : normalizeRemoteUrl(origin);
    if (normalized !== null) return normalized.split("/").map(safeSegment).join("/");
    const root = await firstCommit(gitDir);
    if (root !== null) return `commit/${root}`;
  }
  return `path/${safeSegment(sanitizeProjectPath(projectRoot))}`;
}
