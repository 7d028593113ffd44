import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { openRegularFileNoFollow, readRegularFile, utf8OrNull } from "../memdir/fs/regular-file.ts";
import { type GitRepository, git, gitBytes, runGit } from "../memdir/location/git.ts";
import type { Clock } from "../types.ts";
import { nameOfBytes } from "./file-names.ts";
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
 * holds the sync lease, so no other git runs here). The clone has no checked-out files: its `tree`
 * folder holds only `.git` (commits are built from objects, {@link commitChanges}).
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
  await removeOldWorkTree(clone);
}

/**
 * Removes what an earlier memdir checked out beside the clone's `.git` (see {@link OLD_CLEAN_MARK}):
 * one folder listing when there is nothing to remove.
 */
async function removeOldWorkTree(clone: SyncClone): Promise<void> {
  const { workTree } = clone.repository;
  for (const entry of await fs.readdir(workTree))
    if (entry !== ".git") await fs.rm(path.join(workTree, entry), { recursive: true, force: true });
  await fs.rm(path.join(clone.dir, OLD_CLEAN_MARK), { force: true });
}

/** The first line git printed that says what went wrong. */
function gitReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return (lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? "git failed")
    .replace(/^(fatal|error):\s*/, "")
    .replace(/\.$/, ""); // the line goes inside memdir's sentence
}

/**
 * Why a fetch failed: git could not reach or read the remote (`unreachable`, which may pass), or it
 * refused objects the remote sent (`refused`: every fetch gets the same objects, so it never passes
 * until the remote is fixed). `reason` is git's own line.
 */
export interface FetchFailure {
  kind: "unreachable" | "refused";
  reason: string;
}

/**
 * git's fsck refusing what a fetch brought (fetches run with `transfer.fsckObjects`,
 * docs/design.md#sync): its `error: object <id>: <check>: <text>` lines, then index-pack's or
 * unpack-objects' `fsck error in packed object` / `in pack objects`.
 */
const FSCK_REFUSAL =
  /^error: object [0-9a-f]{40,64}: \w+:|fsck error in pack|Error on reachable objects of|Not all child objects of/im;

/** What a failed fetch's stderr says went wrong (see {@link FetchFailure}). */
export function fetchFailure(stderr: string): FetchFailure {
  return { kind: FSCK_REFUSAL.test(stderr) ? "refused" : "unreachable", reason: gitReason(stderr) };
}

/**
 * Fetches the remote's `main`: its commit (null when the remote has none yet), or why it failed,
 * as data, for callers that word the failure themselves (`memdir sync init`).
 */
export async function tryFetchRemote(
  clone: SyncClone,
  signal?: AbortSignal,
  onStarted?: () => void,
): Promise<{ commit: string | null } | { failure: FetchFailure }> {
  const result = await runGit(
    clone.repository,
    ["fetch", "-q", "--prune", "--no-tags", "--", clone.url, "+refs/heads/*:refs/remotes/origin/*"],
    { network: true, signal, onStarted },
  );
  if (result.code !== 0) return { failure: fetchFailure(result.stderr) };
  return { commit: await commitOf(clone, TRACKING) };
}

/**
 * Fetches the remote's `main`; resolves to its commit, or null when the remote has none yet.
 * `onStarted`: called once the fetch's git process has started (or could not).
 *
 * @throws MemdirError("unreachable") when git cannot reach or read the remote: a later sync may.
 * @throws MemdirError("remote-invalid") when git refuses objects the remote holds: no sync can
 *   succeed until the remote is fixed, so the message says so rather than "the next sync catches up".
 */
export async function fetchRemote(
  clone: SyncClone,
  signal?: AbortSignal,
  onStarted?: () => void,
): Promise<string | null> {
  const fetched = await tryFetchRemote(clone, signal, onStarted);
  if ("commit" in fetched) return fetched.commit;
  const { kind, reason } = fetched.failure;
  if (kind === "refused")
    throw new MemdirError(
      "remote-invalid",
      `sync: the remote ${clone.url} holds objects git refuses (${reason}); nothing changed locally, and no sync with it can succeed until the remote is fixed (\`git fsck\` in a clone of it names the object; the commit that brought it has to be replaced)`,
    );
  throw new MemdirError(
    "unreachable",
    `sync: cannot reach ${clone.url}: ${reason}; nothing changed locally, the next sync catches up`,
  );
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
  /**
   * Set when the path's bytes are not UTF-8: it is then listed under the spelling
   * `nameOfBytes` gives it (src/sync/file-names.ts), held both ways, never written or pushed.
   */
  notUtf8Name?: true;
}

/** One `git ls-tree -z` record: its mode, blob id and path; null for anything else. */
function treeRecord(record: string): { mode: string; blob: string; path: string } | null {
  const match = /^(\d{6}) \w+ ([0-9a-f]+)\t(.*)$/s.exec(record);
  return match === null ? null : { mode: match[1], blob: match[2], path: match[3] };
}

/**
 * The files under `folder/` at `commit` (null: none), keyed by their path inside the folder.
 * Read as bytes: a path that is not UTF-8 (a teammate's `caf\xe9.md`) decoded as text became
 * `caf\uFFFD.md`, one name for `caf\xe9.md` and `caf\xe8.md`, written here as a third file that
 * the next sync pushed; such a path is listed by its `\xNN` spelling with `notUtf8Name`, and held
 * (docs/design.md#sync, "One name rule, both ways").
 */
export async function listFolder(
  clone: SyncClone,
  commit: string | null,
  folder: string,
): Promise<Map<string, TreeFile>> {
  const files = new Map<string, TreeFile>();
  if (commit === null) return files;
  const prefix = `${folder}/`;
  const out = await gitBytes(clone.repository, ["ls-tree", "-r", "-z", "--full-tree", commit, "--", prefix]);
  // Nearly always every path is UTF-8: one decode of the whole listing, as before.
  const text = utf8OrNull(out);
  if (text !== null) {
    for (const record of text.split("\0")) {
      const entry = treeRecord(record);
      if (entry === null || !entry.path.startsWith(prefix)) continue;
      files.set(entry.path.slice(prefix.length), { mode: entry.mode, blob: entry.blob });
    }
    return files;
  }
  const prefixBytes = Buffer.from(prefix, "utf8");
  for (let at = 0; at < out.length; ) {
    const found = out.indexOf(0, at);
    const end = found < 0 ? out.length : found;
    const record = out.subarray(at, end);
    at = end + 1;
    // `<mode> <type> <id>\t<path>`: all but the path is ASCII.
    const tab = record.indexOf(9);
    if (tab < 0) continue;
    const header = /^(\d{6}) \w+ ([0-9a-f]+)$/.exec(record.subarray(0, tab).toString("latin1"));
    const full = record.subarray(tab + 1);
    if (header === null || !full.subarray(0, prefixBytes.length).equals(prefixBytes)) continue;
    const { name, notUtf8 } = nameOfBytes(full.subarray(prefixBytes.length));
    files.set(name, { mode: header[1], blob: header[2], ...(notUtf8 ? { notUtf8Name: true as const } : {}) });
  }
  return files;
}

/**
 * Refuses a remote commit in which the project's folder `key` (`github.com/acme/shop`), or a
 * folder above it, is anything but a folder: a symbolic link there would send this machine's
 * memories, in any checkout of the remote, wherever the link points (docs/sync.md).
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
 * What an earlier memdir's clone kept beside its objects: a checked-out work tree (every file of
 * the remote, a second copy of the memories) and the clean mark that said which commit it held.
 * Commits are now built from the objects alone ({@link commitChanges}), so both are removed.
 */
const OLD_CLEAN_MARK = "tree-clean-at";

/**
 * Commits `changes` (files relative to `folder`: their new text, or null to remove them) on top of
 * `parent`, whose files under `folder` are `parentFiles` (its `listFolder`), in one
 * `git fast-import` that reads nothing but objects: no work tree is checked out and no index is
 * scanned, so a pull writes each file once, into the memory dir, and a one-change commit costs
 * one git process whatever the folder holds (docs/design.md#sync-stat-cache). A change
 * that leaves a file as the parent has it (same blob, a regular file) is dropped; with nothing
 * left and a parent, no commit is made (null). Without a parent (an empty remote) the commit is a
 * root commit, empty or not, so there is something to push. The branch is set to the new commit,
 * whatever it held (an earlier sync's unpushed commit included).
 */
export async function commitChanges(
  clone: SyncClone,
  parent: string | null,
  parentFiles: ReadonlyMap<string, TreeFile>,
  folder: string,
  changes: ReadonlyMap<string, string | null>,
  message: string,
  now: Clock = Date.now,
): Promise<string | null> {
  const text = (line: string) => Buffer.from(line, "utf8");
  // fast-import's `data <byte count>` block: the bytes as they are, then a line feed.
  const data = (bytes: Buffer) => [text(`data ${bytes.length}\n`), bytes, text("\n")];
  const body: Buffer[] = [];
  for (const [file, after] of [...changes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const before = parentFiles.get(file);
    const where = quotedPath(`${folder}/${file}`);
    if (after === null) {
      if (before !== undefined) body.push(text(`D ${where}\n`));
      continue;
    }
    const bytes = text(after);
    const regular = before !== undefined && isRegularMode(before.mode);
    if (regular && before.blob === blobId(bytes)) continue;
    // A file the remote holds keeps its mode (a teammate's executable memory stays 100755 when
    // edited here; docs/design.md#sync, "Modes kept"); a new one is a plain file. memdir reads no
    // mode from the memory dir.
    body.push(text(`M ${regular ? before.mode : "100644"} inline ${where}\n`), ...data(bytes));
  }
  if (body.length === 0 && parent !== null) return null;
  const seconds = Math.floor(now() / 1000);
  const stream = [
    text(`reset ${BRANCH}\ncommit ${BRANCH}\n`),
    text(`author memdir <memdir@localhost> ${seconds} +0000\n`),
    text(`committer memdir <memdir@localhost> ${seconds} +0000\n`),
    ...data(text(message)),
    ...(parent === null ? [] : [text(`from ${parent}\n`)]),
    ...body,
    text("\ndone\n"),
  ];
  const imported = await runGit(clone.repository, ["fast-import", "--quiet", "--done", "--force"], {
    input: Buffer.concat(stream),
  });
  if (imported.code !== 0)
    throw new MemdirError(
      "io",
      `sync: git fast-import failed in ${clone.dir}: ${gitReason(imported.stderr)}`,
    );
  // The branch's file, written by the import, instead of a `rev-parse` process.
  return (await looseRef(clone, BRANCH)) ?? (await commitOf(clone, BRANCH));
}

/**
 * `file` as a fast-import path: always C-quoted (a name starting with `"` or holding a line break
 * would otherwise be read as something else), with `\\`, `"` and control characters escaped and
 * every other byte, UTF-8 included, as it is.
 */
function quotedPath(file: string): string {
  let out = '"';
  for (const char of file) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += char;
  }
  return `${out}"`;
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

/** The git blob id of a text (`sha1("blob <bytes>\0" + bytes)`). */
export function blobId(text: string | Buffer): string {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
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
