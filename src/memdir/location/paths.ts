import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import {
  autoMemoryDirectorySetting,
  claudeConfigDir,
  projectDirNameFromEnv,
  resolveHome,
  resolveRoot,
} from "../../config.ts";
import { MemdirError } from "../../errors.ts";
import { openFolderInside } from "../fs/open-safely.ts";

/** Where one project's memory lives (docs/design.md#locating-memory). */
export interface MemoryLocation {
  /** Memory root (`~/.claude` by default). */
  root: string;
  /** The project the directory belongs to; `null` when the caller chose the directory with `dir`. */
  projectRoot: string | null;
  /** `<root>/projects/<sanitized>`; with `dir` given, the parent of `dir`. */
  projectDir: string;
  /** `<projectDir>/memory`, without a trailing separator. */
  memoryDir: string;
  /** `<memoryDir>/MEMORY.md`. */
  indexPath: string;
  /**
   * Set when `memoryDir` is Claude Code's `autoMemoryDirectory`, one folder every project shares:
   * the project this location was resolved from, whose settings and transcripts apply. The folder
   * itself belongs to none, so `projectRoot` is null (no owner marker, no anchors, no sync).
   */
  sharedFolderOf?: string;
}

export interface MemoryLocationOptions {
  /** Directory to resolve the project from; defaults to `process.cwd()` (the root's `resolveMemoryLocation`). */
  cwd?: string;
  /** Memory root option (beats `MEMDIR_ROOT` and settings). */
  root?: string;
  /** Use this memory directory directly, bypassing project resolution (`--dir`). */
  dir?: string;
  /** Where `MEMDIR_ROOT`, `HOME` and Claude Code's variables are read (default: the process's, as for `cwd`). */
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** {@link MemoryLocationOptions} with the directory and environment an entry point handed in. */
export type MemoryLocationRequest = MemoryLocationOptions & { cwd: string; env: NodeJS.ProcessEnv };

/**
 * The owner marker inside each memory directory: JSON `{projectRoot}`, plus `projectKey` once a
 * sync has worked it out (docs/design.md#project-ownership, docs/design.md#project-identity).
 */
export const PROJECT_MARKER = ".memdir-project";

/** Longest sanitized name kept whole; longer names are cut and get a hash (docs/design.md#sanitized-project-names). */
export const MAX_SANITIZED_LENGTH = 200;

const INDEX_FILE = "MEMORY.md";

/**
 * Turns a project path into one directory name: every UTF-16 code unit that is not an ASCII
 * letter or digit becomes `-`; a result over 200 characters is cut to 200 and `-` plus a short
 * hash of the full path is appended. Code units (not code points) and the djb2 hash match what
 * the other agent's implementation produces, so both read the same directories.
 *
 * @example
 * sanitizeProjectPath("/Users/me/shop") // "-Users-me-shop"
 */
export function sanitizeProjectPath(projectPath: string): string {
  const sanitized = projectPath.replace(/[^a-zA-Z0-9]/g, "-");
  if (sanitized.length <= MAX_SANITIZED_LENGTH) return sanitized;
  return `${sanitized.slice(0, MAX_SANITIZED_LENGTH)}-${shortHash(projectPath)}`;
}

function shortHash(text: string): string {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0;
  return Math.abs(hash).toString(36);
}

function realPathOrResolved(target: string): string {
  try {
    return fs.realpathSync.native(target);
  } catch {
    return path.resolve(target);
  }
}

function readTextOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/**
 * The project a `.git` FILE belongs to. A linked worktree (`gitdir: <common>/worktrees/NAME`)
 * maps to its main repository, so all worktrees share one memory; anything else (a submodule's
 * `.git/modules/…`, a broken or forged file) is its own project: the directory holding the file.
 * The worktree's back-link (`<gitdir>/gitdir`) must point at this `.git` file, so a hostile
 * repository cannot claim another project's memory just by writing a `.git` file.
 */
function projectRootFromGitFile(worktreeRoot: string, gitFile: string): string {
  const named = gitDirsNamedBy(worktreeRoot, gitFile);
  if (named === null || named.commonDir === null) return worktreeRoot; // a submodule or a separate git dir
  const { gitDir } = named;
  const commonDir = realPathOrResolved(named.commonDir);
  const realGitDir = realPathOrResolved(gitDir);
  if (path.dirname(realGitDir) !== path.join(commonDir, "worktrees")) return worktreeRoot;
  const backLink = readTextOrNull(path.join(gitDir, "gitdir"))?.trim();
  if (!backLink || realPathOrResolved(path.resolve(gitDir, backLink)) !== realPathOrResolved(gitFile)) {
    return worktreeRoot;
  }
  // A worktree of a bare repository has no main working tree: the bare repository names the project.
  return path.basename(commonDir) === ".git" ? path.dirname(commonDir) : commonDir;
}

/**
 * The git folders a `.git` FILE in `root` names: `gitDir` from its `gitdir:` line and, for a
 * linked worktree, the shared folder its `commondir` names (`commonDir`, else null). Null when the
 * file holds no `gitdir:` line. Nothing here is trusted: callers check what they use.
 */
export function gitDirsNamedBy(
  root: string,
  gitFile: string,
): { gitDir: string; commonDir: string | null } | null {
  const match = readTextOrNull(gitFile)?.match(/^gitdir:\s*(.+?)\s*$/m);
  if (!match) return null;
  const gitDir = path.resolve(root, match[1]);
  const commonDirText = readTextOrNull(path.join(gitDir, "commondir"))?.trim();
  return { gitDir, commonDir: commonDirText ? path.resolve(gitDir, commonDirText) : null };
}

/**
 * The project a directory belongs to: the root of its git repository (found by walking up to
 * the nearest `.git`; a linked worktree maps to its main repository, a submodule is its own
 * project), else the directory itself. Real paths, so a symlinked checkout shares memory with
 * the real one. No git subprocess.
 *
 * @example
 * findProjectRoot("/Users/me/shop/src/auth") // "/Users/me/shop"
 */
export function findProjectRoot(cwd: string): string {
  const start = realPathOrResolved(cwd);
  let current = start;
  for (;;) {
    const gitPath = path.join(current, ".git");
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(gitPath);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) return current;
    if (stat?.isFile()) return projectRootFromGitFile(current, gitPath);
    const parent = path.dirname(current);
    if (parent === current) return start;
    current = parent;
  }
}

/** Reads a memory directory's owner marker; a missing or unreadable marker is `null`. */
export async function readProjectMarker(
  memoryDir: string,
): Promise<{ projectRoot: string; projectKey?: string } | null> {
  let text: string;
  try {
    text = await fsp.readFile(path.join(memoryDir, PROJECT_MARKER), "utf8");
  } catch {
    return null;
  }
  try {
    const data: unknown = JSON.parse(text);
    if (
      data &&
      typeof data === "object" &&
      typeof (data as { projectRoot?: unknown }).projectRoot === "string"
    ) {
      const { projectRoot, projectKey } = data as { projectRoot: string; projectKey?: unknown };
      return typeof projectKey === "string" ? { projectRoot, projectKey } : { projectRoot };
    }
  } catch {
    // A broken marker is treated as absent and rewritten by ensureMemoryDir.
  }
  return null;
}

function mismatchError(memoryDir: string, owner: string, requester: string): MemdirError {
  return new MemdirError(
    "project-mismatch",
    `memdir: paths: memory directory ${memoryDir} belongs to project ${owner}, not ${requester} ` +
      `(both paths sanitize to the same directory name). Pass --dir <memory-dir> to choose a separate ` +
      `memory directory for ${requester}; if the project moved here from ${owner}, migrate its memory instead.`,
  );
}

function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  return p;
}

/**
 * Where memory lives for a project: `<root>/projects/<sanitized project root>/memory`. With
 * `dir`, that directory is used as is and no project is resolved (`--dir`); so is Claude Code's
 * `autoMemoryDirectory` setting while the root is Claude Code's config dir. Does not create
 * anything; call {@link ensureMemoryDir} before writing.
 *
 * @throws MemdirError("project-mismatch") when the directory's owner marker names another project.
 * @example
 * const location = await resolveMemoryLocation({ cwd: "/Users/me/shop", env: {}, home: "/Users/me" });
 * location.memoryDir // "/Users/me/.claude/projects/-Users-me-shop/memory"
 */
export async function resolveMemoryLocation(options: MemoryLocationRequest): Promise<MemoryLocation> {
  const env = options.env;
  const home = resolveHome(env, options.home);
  const root = resolveRoot({ root: options.root, env, home });
  const cwd = path.resolve(options.cwd);
  if (options.dir) {
    const memoryDir = path.resolve(cwd, expandHome(options.dir, home));
    return {
      root,
      projectRoot: null,
      projectDir: path.dirname(memoryDir),
      memoryDir,
      indexPath: path.join(memoryDir, INDEX_FILE),
    };
  }
  const projectRoot = findProjectRoot(cwd);
  // Claude Code names the project folder after CLAUDE_CODE_PROJECT_DIR_NAME when it is set: use the same one.
  const folder = projectDirNameFromEnv(env) ?? sanitizeProjectPath(projectRoot);
  // The project's folder holds its transcripts and agent memory even when its memory is shared.
  const projectDir = path.join(root, "projects", folder);
  // Claude Code keeps every project's memory in autoMemoryDirectory when it is set: the hooks must
  // read and write that folder too. Not when memdir's root was moved away from Claude Code's
  // config dir (then memdir's memory is not Claude Code's). Shared by all projects, the folder
  // belongs to none: no owner marker, no anchors (as with --dir), no sync.
  const setting = root === claudeConfigDir(env, home) ? autoMemoryDirectorySetting(root, home) : null;
  if (setting !== null) {
    // The user's own setting, so a link there is theirs (dotfiles, a synced folder): followed once
    // here, as Claude Code writes through it; the writer refuses a memory dir that is a link.
    const sharedDir = await fsp.realpath(setting).catch(() => setting);
    return {
      root,
      projectRoot: null,
      projectDir,
      memoryDir: sharedDir,
      indexPath: path.join(sharedDir, INDEX_FILE),
      sharedFolderOf: projectRoot,
    };
  }
  const memoryDir = path.join(projectDir, "memory");
  const marker = await readProjectMarker(memoryDir);
  if (marker && marker.projectRoot !== projectRoot)
    throw mismatchError(memoryDir, marker.projectRoot, projectRoot);
  return { root, projectRoot, projectDir, memoryDir, indexPath: path.join(memoryDir, INDEX_FILE) };
}

/**
 * The project whose settings apply to `location`: its own, or for a shared memory folder (Claude
 * Code's `autoMemoryDirectory`) the one it was resolved from; undefined with `--dir`.
 */
export function projectOf(
  location: Pick<MemoryLocation, "projectRoot" | "sharedFolderOf"> | undefined,
): string | undefined {
  return location?.projectRoot ?? location?.sharedFolderOf;
}

/**
 * Creates the memory directory and, for a resolved project, claims it with the owner marker.
 * The marker is written to a temp file and hard-linked into place, which fails when another
 * process claimed the directory first; a directory without a marker (made by the other agent)
 * is adopted.
 *
 * @throws MemdirError("project-mismatch") when another project owns the directory.
 * @example
 * await ensureMemoryDir(await resolveMemoryLocation({ cwd }));
 */
export async function ensureMemoryDir(location: MemoryLocation): Promise<void> {
  await fsp.mkdir(location.memoryDir, { recursive: true });
  if (location.projectRoot === null) return;
  const existing = await readProjectMarker(location.memoryDir);
  if (existing) {
    if (existing.projectRoot !== location.projectRoot) {
      throw mismatchError(location.memoryDir, existing.projectRoot, location.projectRoot);
    }
    return;
  }
  await writeMarker(location.memoryDir, location.projectRoot, { replace: false });
  const claimed = await readProjectMarker(location.memoryDir);
  if (claimed && claimed.projectRoot !== location.projectRoot) {
    throw mismatchError(location.memoryDir, claimed.projectRoot, location.projectRoot);
  }
}

/**
 * Records the project's key (src/memdir/location/project-key.ts) in its memory dir's marker, keeping the
 * owner. A directory without a marker or owned by another project is left alone.
 */
export async function recordProjectKey(
  memoryDir: string,
  projectRoot: string,
  projectKey: string,
): Promise<void> {
  const marker = await readProjectMarker(memoryDir);
  if (marker?.projectRoot !== projectRoot || marker.projectKey === projectKey) return;
  await writeMarker(memoryDir, projectRoot, { replace: true }, projectKey);
}

async function writeMarker(
  memoryDir: string,
  projectRoot: string,
  { replace }: { replace: boolean },
  projectKey?: string,
) {
  // Through the memory dir opened without following links: a memory dir that is a symlink (or
  // is swapped for one) never receives the marker (docs/design.md#path-safety).
  const folder = await openFolderInside(memoryDir, "").catch((error: unknown) => {
    if (error instanceof MemdirError && error.code === "path-outside") return null;
    throw error;
  });
  if (!folder) return;
  const marker = folder.entry(PROJECT_MARKER);
  const temp = folder.entry(`${PROJECT_MARKER}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const body = projectKey === undefined ? { projectRoot } : { projectRoot, projectKey };
    await fsp.writeFile(temp, `${JSON.stringify(body)}\n`, { flag: "wx" });
    if (replace) {
      await fsp.rename(temp, marker);
      return;
    }
    try {
      await fsp.link(temp, marker);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") {
        // Someone claimed it first, or a broken marker sits there: a broken one is replaced.
        if ((await readProjectMarker(memoryDir)) === null) await fsp.rename(temp, marker);
        return;
      }
      if (code === "EPERM" || code === "ENOTSUP" || code === "ENOSYS") {
        await fsp.rename(temp, marker); // file systems without hard links
        return;
      }
      throw error;
    }
  } finally {
    await fsp.rm(temp, { force: true });
    await folder.close();
  }
}

/**
 * The memory directory of a named agent (`@agent-NAME`): `<projectDir>/agents/<name>/memory`.
 * The name is reduced to ASCII letters, digits, `_` and `-`, so it can never leave `agents/`.
 *
 * @example
 * agentMemoryDir(location, "code-reviewer") // "<projectDir>/agents/code-reviewer/memory"
 */
export function agentMemoryDir(location: MemoryLocation, agentName: string): string {
  const safeName = agentName.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, MAX_SANITIZED_LENGTH);
  if (!/[A-Za-z0-9]/.test(safeName)) {
    throw new MemdirError(
      "invalid-input",
      `memdir: paths: agent name "${agentName}" has no letters or digits`,
    );
  }
  return path.join(location.projectDir, "agents", safeName, "memory");
}

/** A memory directory whose owner no longer exists: a candidate for {@link migrateMemory}. */
export interface OrphanedMemoryDir {
  memoryDir: string;
  projectRoot: string;
}

/**
 * Memory directories under `<root>/projects` whose marker names a project path that no longer
 * exists, e.g. after the project was moved or renamed. Offer {@link migrateMemory} for them.
 */
export async function findOrphanedMemoryDirs(root: string): Promise<OrphanedMemoryDir[]> {
  const projectsDir = path.join(root, "projects");
  let names: string[];
  try {
    names = await fsp.readdir(projectsDir);
  } catch {
    return [];
  }
  const orphans: OrphanedMemoryDir[] = [];
  for (const name of names.sort()) {
    const memoryDir = path.join(projectsDir, name, "memory");
    const marker = await readProjectMarker(memoryDir);
    if (marker && !fs.existsSync(marker.projectRoot))
      orphans.push({ memoryDir, projectRoot: marker.projectRoot });
  }
  return orphans;
}

export interface MigrateMemoryOptions {
  /** The project's old path (as recorded in the old directory's marker). */
  from: string;
  /** The project's new path (usually `findProjectRoot(cwd)`). */
  to: string;
  root: string;
}

/**
 * Moves a project's memory after the project moved: `<root>/projects/<sanitized from>/memory`
 * becomes `<root>/projects/<sanitized to>/memory` and its marker names `to`. Refuses when the
 * target already holds memory files, so nothing is ever merged or overwritten silently.
 *
 * @example
 * await migrateMemory({ from: "/Users/me/old-shop", to: "/Users/me/shop", root: "/Users/me/.claude" });
 */
export async function migrateMemory(options: MigrateMemoryOptions): Promise<{ from: string; to: string }> {
  const fromDir = path.join(options.root, "projects", sanitizeProjectPath(options.from), "memory");
  const toDir = path.join(options.root, "projects", sanitizeProjectPath(options.to), "memory");
  if (fromDir === toDir) return { from: fromDir, to: toDir };
  const marker = await readProjectMarker(fromDir);
  if (!fs.existsSync(fromDir)) {
    throw new MemdirError("not-found", `memdir: paths: no memory directory for ${options.from} (${fromDir})`);
  }
  if (marker && marker.projectRoot !== options.from)
    throw mismatchError(fromDir, marker.projectRoot, options.from);
  const targetEntries = await fsp.readdir(toDir).catch(() => [] as string[]);
  if (targetEntries.some((entry) => entry !== PROJECT_MARKER)) {
    throw new MemdirError(
      "invalid-input",
      `memdir: paths: cannot migrate ${fromDir} to ${toDir}: the target already holds memories; merge them by hand`,
    );
  }
  await fsp.rm(toDir, { recursive: true, force: true });
  await fsp.mkdir(path.dirname(toDir), { recursive: true });
  await fsp.rename(fromDir, toDir);
  await writeMarker(toDir, options.to, { replace: true });
  return { from: fromDir, to: toDir };
}
