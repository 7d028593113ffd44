import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { writeFileAtomic } from "../memdir/fs/atomic.ts";
import { openFolderInside, removeFileInside } from "../memdir/fs/open-safely.ts";
import { openRegularFileNoFollow, readRegularFile, utf8OrNull } from "../memdir/fs/regular-file.ts";
import { type GitRepository, git, gitBytes, runGit } from "../memdir/location/git.ts";
import type { Clock } from "../types.ts";
import { cloneDir } from "./remotes.ts";

// The sync clone of one remote: `<root>/sync/<hash>/tree` with its own `.git`, run only through
// the hardened git wrapper (src/memdir/location/git.ts). The remote's URL is given on each fetch and push,
// never stored in the clone's config (docs/design.md#sync).

export interface SyncClone {
  url: string;
  /** `<root>/sync/<hash>`: the clone, its state file and its lock. */
  dir: string;
  repository: GitRepository;
}

const BRANCH = "refs/heads/main";
const TRACKING = "refs/remotes/origin/main";

export function openClone(root: string, url: string): SyncClone {
  const dir = cloneDir(root, url);
  const workTree = path.join(dir, "tree");
  return { url, dir, repository: { gitDir: path.join(workTree, ".git"), workTree, label: "sync" } };
}

/**
 * Creates the clone once, and clears what a killed sync left: git's own lock files (the caller
 * holds the sync lease, so no other git runs here).
 */
export async function prepareClone(clone: SyncClone): Promise<void> {
  await fs.mkdir(clone.repository.workTree, { recursive: true, mode: 0o700 });
  await fs.chmod(clone.dir, 0o700).catch(() => undefined);
  const gitDir = clone.repository.gitDir;
  if (!(await fs.stat(gitDir).catch(() => null))?.isDirectory()) {
    await git(clone.repository, ["init", "-q"]);
    await git(clone.repository, ["symbolic-ref", "HEAD", BRANCH]);
  }
  for (const lock of ["index.lock", "HEAD.lock", `${BRANCH}.lock`, `${TRACKING}.lock`, "shallow.lock"])
    await fs.rm(path.join(gitDir, lock), { force: true });
}

/** The first line git printed that says what went wrong. */
function gitReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return (lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? "git failed").replace(
    /^(fatal|error):\s*/,
    "",
  );
}

/**
 * Fetches the remote's `main`; resolves to its commit, or null when the remote has none yet.
 * `onStarted`: called once the fetch's git process has started (or could not).
 *
 * @throws MemdirError("unreachable") when git cannot reach or read the remote.
 */
export async function fetchRemote(
  clone: SyncClone,
  signal?: AbortSignal,
  onStarted?: () => void,
): Promise<string | null> {
  const result = await runGit(
    clone.repository,
    ["fetch", "-q", "--prune", "--no-tags", "--", clone.url, "+refs/heads/*:refs/remotes/origin/*"],
    { network: true, signal, onStarted },
  );
  if (result.code !== 0)
    throw new MemdirError(
      "unreachable",
      `sync: cannot reach ${clone.url}: ${gitReason(result.stderr)}; nothing changed locally, the next sync catches up`,
    );
  return commitOf(clone, TRACKING);
}

/** The commit `ref` names, or null. */
export async function commitOf(clone: SyncClone, ref: string): Promise<string | null> {
  const result = await runGit(clone.repository, ["rev-parse", "--verify", "-q", `${ref}^{commit}`]);
  return result.code === 0 ? result.stdout.trim() : null;
}

/** The last fetched commit of the remote's `main`, without fetching. */
export function trackedRemote(clone: SyncClone): Promise<string | null> {
  return commitOf(clone, TRACKING);
}

/** True when `ancestor` is `commit` or one of its ancestors. */
export async function isAncestor(clone: SyncClone, ancestor: string, commit: string): Promise<boolean> {
  const result = await runGit(clone.repository, ["merge-base", "--is-ancestor", ancestor, commit]);
  return result.code === 0;
}

/** A file of a tree listing: its mode (`100644`, `120000`…) and blob id. */
export interface TreeFile {
  mode: string;
  blob: string;
}

/** One `git ls-tree -z` record: its mode, blob id and path; null for anything else. */
function treeRecord(record: string): { mode: string; blob: string; path: string } | null {
  const match = /^(\d{6}) \w+ ([0-9a-f]+)\t(.*)$/s.exec(record);
  return match === null ? null : { mode: match[1], blob: match[2], path: match[3] };
}

/** The files under `folder/` at `commit` (null: none), keyed by their path inside the folder. */
export async function listFolder(
  clone: SyncClone,
  commit: string | null,
  folder: string,
): Promise<Map<string, TreeFile>> {
  const files = new Map<string, TreeFile>();
  if (commit === null) return files;
  const out = await git(clone.repository, ["ls-tree", "-r", "-z", "--full-tree", commit, "--", `${folder}/`]);
  for (const record of out.split("\0")) {
    const entry = treeRecord(record);
    if (entry === null || !entry.path.startsWith(`${folder}/`)) continue;
    files.set(entry.path.slice(folder.length + 1), { mode: entry.mode, blob: entry.blob });
  }
  return files;
}

/**
 * Refuses a remote commit in which the project's folder `key` (`github.com/acme/shop`), or a
 * folder above it, is anything but a folder: a symbolic link there would send this machine's
 * memories, on checkout and on the next write, wherever the link points (docs/sync.md).
 *
 * @throws MemdirError("path-outside") naming the component and what it is.
 */
export async function assertProjectFolder(
  clone: SyncClone,
  commit: string | null,
  key: string,
): Promise<void> {
  if (commit === null) return;
  const parts = key.split("/");
  for (let depth = 0; depth < parts.length; depth++) {
    const parent = parts.slice(0, depth).join("/");
    const listed = await runGit(clone.repository, [
      "ls-tree",
      "-z",
      parent === "" ? commit : `${commit}:${parent}`,
    ]);
    if (listed.code !== 0) return; // the parent is not in the remote yet: this sync creates it
    const entry = listed.stdout
      .split("\0")
      .map(treeRecord)
      .find((record) => record?.path === parts[depth]);
    if (entry == null) return;
    const mode = entry.mode;
    if (mode === "040000") continue;
    const what = mode === "120000" ? "a symbolic link" : mode === "160000" ? "a submodule" : "a file";
    const prefix = parts.slice(0, depth + 1).join("/");
    throw new MemdirError(
      "path-outside",
      `sync: in the remote ${clone.url}, ${prefix} (the folder of this project's memory) is ${what}, not a folder; ` +
        "memdir follows no link, so nothing was written here or there. Remove it from the remote (or ask who pushed it) and sync again",
    );
  }
}

/**
 * The clone's clean mark (`<dir>/tree-clean-at`): the commit whose files the work tree and index
 * hold exactly, written after this sync's own commit (`commitFolder`) and removed before anything
 * else writes into the tree, so a checkout of that same commit needs no `reset --hard` and no
 * `clean` (docs/design.md#sync-stat-cache: the sync clone's clean mark).
 */
const CLEAN_MARK = "tree-clean-at";

/**
 * Puts the work tree and index at `commit` (the branch follows); an empty tree when null. Skips
 * git when the clean mark names `commit` and the branch is at it (the common case of a sync after
 * this machine's own push); either way the mark is gone afterwards, since the caller writes next.
 */
export async function checkOut(clone: SyncClone, commit: string | null): Promise<void> {
  const mark = path.join(clone.dir, CLEAN_MARK);
  const markedClean = await readSmallFile(mark);
  await fs.rm(mark, { force: true });
  if (commit !== null) {
    if (markedClean === commit && (await looseRef(clone, BRANCH)) === commit) return;
    await git(clone.repository, ["reset", "-q", "--hard", commit]);
    await git(clone.repository, ["clean", "-q", "-f", "-d", "-x"]);
    return;
  }
  // An empty remote: start from nothing, an unpushed commit of an earlier sync included (the
  // memory dir still holds what it had), so the next commit is a root commit and gets pushed.
  await runGit(clone.repository, ["update-ref", "-d", BRANCH]);
  await git(clone.repository, ["read-tree", "--empty"]);
  for (const entry of await fs.readdir(clone.repository.workTree))
    if (entry !== ".git")
      await fs.rm(path.join(clone.repository.workTree, entry), { recursive: true, force: true });
}

/** Commits what changed under `folder/` on top of the checked-out commit; the new commit, or null when nothing changed. */
export async function commitFolder(
  clone: SyncClone,
  folder: string,
  message: string,
  now?: Clock,
): Promise<string | null> {
  const added = await runGit(clone.repository, ["add", "-A", "--", `${folder}/`]);
  // A folder neither the work tree nor the index holds: nothing to add, not a failure.
  if (added.code !== 0 && !/did not match any files/.test(added.stderr))
    throw new MemdirError(
      "io",
      `sync: git add failed in ${clone.repository.workTree}: ${added.stderr.trim()}`,
    );
  // Committing straight away, without first asking `diff --cached` whether anything is staged:
  // a sync that gets here almost always has a change, and a process less is ~5% of a one-change
  // sync (docs/benchmarks.md#sync). git refuses an empty commit; only then is the index asked.
  const committed = await runGit(clone.repository, ["commit", "-q", "--no-verify", "-m", message], { now });
  if (committed.code !== 0) {
    const staged = await runGit(clone.repository, ["diff", "--cached", "--quiet"]);
    const head = await commitOf(clone, "HEAD");
    if (staged.code === 0 && head !== null) return null;
    // Nothing staged on an unborn branch (an empty remote, an empty folder): a root commit all the same.
    await git(clone.repository, ["commit", "-q", "--no-verify", "--allow-empty", "-m", message], { now });
  }
  // The branch's file, written by that commit, instead of a `rev-parse` process.
  const head = (await looseRef(clone, BRANCH)) ?? (await commitOf(clone, "HEAD"));
  // `add -A` took in everything under `folder/` and nothing else was written since the checkout:
  // the tree is clean at the new commit until the next checkout (see CLEAN_MARK).
  if (head !== null) await fs.writeFile(path.join(clone.dir, CLEAN_MARK), head, { mode: 0o600 });
  return head;
}

/**
 * The commit id a loose ref file of the clone holds (`refs/heads/main`), or null when it is
 * missing, a link, packed or anything but an id; then the caller asks git.
 */
async function looseRef(clone: SyncClone, ref: string): Promise<string | null> {
  const id = (await readSmallFile(path.join(clone.repository.gitDir, ...ref.split("/"))))?.trim();
  return id !== undefined && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(id) ? id : null;
}

/** A small file's text, read without following a link; null when it cannot be read. */
function readSmallFile(file: string): Promise<string | null> {
  return readRegularFile(file, { maxBytes: 200, open: openRegularFileNoFollow }).then(
    ({ bytes }) => bytes.toString("utf8"),
    () => null,
  );
}

/** Pushes `commit` as the remote's `main`: "pushed", "rejected" (someone pushed first), or throws when unreachable. */
export async function pushCommit(
  clone: SyncClone,
  commit: string,
  signal?: AbortSignal,
): Promise<"pushed" | "rejected"> {
  const result = await runGit(clone.repository, ["push", "-q", "--", clone.url, `${commit}:${BRANCH}`], {
    network: true,
    signal,
  });
  if (result.code === 0) return "pushed";
  if (
    /rejected|non-fast-forward|fetch first|failed to update ref|stale info|cannot lock ref/i.test(
      result.stderr,
    )
  )
    return "rejected";
  throw new MemdirError(
    "unreachable",
    `sync: cannot push to ${clone.url}: ${gitReason(result.stderr)}; the merge is kept here, the next sync pushes it`,
  );
}

/**
 * The text of `bytes`, refusing anything that is not valid UTF-8: a lossy decode would turn a
 * teammate's bytes into replacement characters that the next sync pushes back over them.
 *
 * @throws MemdirError("invalid-input") naming the file.
 */
function decodeText(file: string, bytes: Uint8Array): string {
  const text = utf8OrNull(bytes);
  if (text === null)
    throw new MemdirError(
      "invalid-input",
      `sync: ${file} is not valid UTF-8 text: left as it is (memdir never rewrites bytes it cannot read as text)`,
    );
  return text;
}

/** A tree entry's mode for a regular file (`100644`, or `100755` when executable). */
export function isRegularMode(mode: string): boolean {
  return mode === "100644" || mode === "100755";
}

/** `ids` (blobs the clone holds) as one git pack, for another of memdir's repositories to store. */
export function packBlobs(clone: SyncClone, ids: readonly string[]): Promise<Buffer> {
  return gitBytes(clone.repository, ["pack-objects", "--stdout", "-q"], {
    input: `${[...new Set(ids)].join("\n")}\n`,
  });
}

/**
 * The texts of `blobs` (ids from a tree listing) in one `git cat-file --batch`, read from the
 * clone's object store, not its work tree: no path is opened, so no link can be read through,
 * and one git call replaces a dozen file operations per file (a first pull of 2,000 memories,
 * docs/benchmarks.md#sync). A blob that is not valid UTF-8 maps to the error
 * {@link decodeText} throws for it; a missing one is left out.
 */
export async function readBlobTexts(
  clone: SyncClone,
  blobs: ReadonlyMap<string, string>,
): Promise<Map<string, string | MemdirError>> {
  const texts = new Map<string, string | MemdirError>();
  const ids = [...new Set(blobs.values())];
  if (ids.length === 0) return texts;
  const out = await gitBytes(clone.repository, ["cat-file", "--batch"], { input: `${ids.join("\n")}\n` });
  const byId = new Map<string, Buffer>();
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(10, at);
    if (end < 0) break;
    const header = out.subarray(at, end).toString("latin1").split(" ");
    at = end + 1;
    if (header.length !== 3) continue; // `<id> missing`
    const size = Number(header[2]);
    byId.set(header[0], out.subarray(at, at + size));
    at += size + 1;
  }
  for (const [file, blob] of blobs) {
    const bytes = byId.get(blob);
    if (bytes === undefined) continue;
    try {
      texts.set(file, decodeText(file, bytes));
    } catch (error) {
      if (!(error instanceof MemdirError)) throw error;
      texts.set(file, error);
    }
  }
  return texts;
}

/**
 * The text of `file` (`/`-separated, relative to the work tree), or null when absent. Every
 * folder on the way is opened without following a link and the file itself with `O_NOFOLLOW`:
 * a link a remote planted is never read through, whatever the checkout made of it
 * (docs/design.md#sync).
 *
 * @throws MemdirError("path-outside") when a component is a symbolic link; MemdirError
 * ("not-a-file") when the file is not a regular file.
 */
export async function readTreeFile(clone: SyncClone, file: string): Promise<string | null> {
  const folder = await openFolderInside(clone.repository.workTree, path.posix.dirname(file)).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    },
  );
  if (folder === null) return null;
  try {
    const handle = await fs.open(
      folder.entry(path.posix.basename(file)),
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
    try {
      if (!(await handle.stat()).isFile())
        throw new MemdirError("not-a-file", `sync: ${file} in the clone is not a regular file`);
      return decodeText(file, await handle.readFile());
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP")
      throw new MemdirError(
        "path-outside",
        `sync: ${file} in the clone is a symbolic link; memdir never follows it`,
        {
          cause: error,
        },
      );
    throw error;
  } finally {
    await folder.close();
  }
}

/**
 * Sets `file` in the work tree (null: removes it), atomically and through folders opened without
 * following links: the rename replaces whatever stood at the name (a link included) instead of
 * writing through it. Skipped when the file already holds `text`. Not fsynced: the work tree is
 * reset to a commit before every use (`checkOut`), so a crash can cost it nothing a sync needs.
 */
export async function writeTreeFile(clone: SyncClone, file: string, text: string | null): Promise<void> {
  const { workTree } = clone.repository;
  const full = path.join(workTree, ...file.split("/"));
  if (text === null) {
    await removeFileInside(workTree, full).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    return;
  }
  const current = await readTreeFile(clone, file).catch(() => null);
  if (current === text) return;
  await writeFileAtomic(full, text, { inside: workTree, durability: "none" });
}

/**
 * Drops `file` from the clone's index, so the next `git add` records what the work tree holds as
 * a new regular file: with `core.symlinks=false`, git would otherwise keep a link's mode for the
 * plain file that stands in for it.
 */
export async function dropFromIndex(clone: SyncClone, file: string): Promise<void> {
  await git(clone.repository, ["rm", "-q", "--cached", "--ignore-unmatch", "--", file]);
}
