import { type Dirent, statfsSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { throwIfAborted } from "../../errors.ts";
import { yieldToEventLoop } from "../../event-loop.ts";
import { isInside } from "../fs/inside.ts";
import { hasControlCharacter } from "../fs/safe-path.ts";

/** The index file's name; never a memory itself (docs/design.md#memory-format). */
export const INDEX_FILE_NAME = "MEMORY.md";

// Stats run synchronously in slices of this many, yielding to the event loop between slices: a
// promise `stat` costs ~5× a synchronous one (measured: 20,000 files, 100 ms sync vs 270–520 ms
// with fs/promises), which made a warm rescan only ~5× faster than re-reading every file. A slice
// blocks the event loop for about a millisecond, so a running agent loop is not held up.
const STAT_SLICE = 256;

/** One memory file of a listing: its name relative to the memory dir, absolute path and `stat`. */
export interface Candidate {
  file: string;
  path: string;
  mtimeMs: number;
  size: number;
}

/**
 * Called by {@link listMarkdownFiles} while it walks the tree, so a watcher can be set up on each
 * folder before that folder is read (a change after the read is then never missed).
 */
export interface ListingObserver {
  /** Before folder `relativeDir` (`""` for the root) is read; false skips the folder as unreadable. */
  beforeFolder(relativeDir: string): boolean;
  /**
   * For a path whose changes may raise no event in its own folder: every symlinked entry with a
   * memory file's name (kept or refused), and every file with more than one hard link.
   */
  recheckAlways(file: string): void;
}

/** A `*.md` path other than the index, whatever else its name holds (see {@link isMemoryFileName}). */
export function isMarkdownFileName(file: string): boolean {
  const base = file.slice(file.lastIndexOf("/") + 1);
  return base.toLowerCase().endsWith(".md") && base.toLowerCase() !== INDEX_FILE_NAME.toLowerCase();
}

/**
 * True for a path (relative, `/`-separated) the scan treats as a memory file: `*.md`, not the
 * index, and no control character or line separator anywhere in it. A name with a line break
 * (no memdir writer makes one; a file put there by hand or by a compromised agent) would forge
 * lines in the header recall shows and in `MEMORY.md`, so it is never recalled or indexed;
 * `memdir doctor` names it to rename (docs/design.md#header-scan).
 */
export function isMemoryFileName(file: string): boolean {
  return isMarkdownFileName(file) && !hasControlCharacter(file);
}

/** The scan's order: newest first, ties by file name. */
export function newestFirst(a: Candidate, b: Candidate): number {
  if (a.mtimeMs !== b.mtimeMs) return b.mtimeMs - a.mtimeMs;
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/** `root` (absolute, resolved) joined with a listed relative name. */
export function joinRoot(root: string, file: string): string {
  // Plain concatenation: `path.join` normalizes every one of 20,000 names (root is resolved and
  // listed names hold no `.`/`..` parts, so the result is the same).
  return path.sep === "/" ? `${root}${root.endsWith("/") ? "" : "/"}${file}` : path.join(root, file);
}

/**
 * Walks the directory tree (not following symlinked folders) and lists `*.md` memory files, with
 * `mtimeMs`/`size` still unset (see {@link statCandidates}). With an `observer` every candidate is
 * a fresh object that the caller may keep; without one, objects of earlier listings in `reuse` are reused.
 */
export async function listMarkdownFiles(
  root: string,
  realRoot: string,
  signal: AbortSignal | undefined,
  observer?: ListingObserver,
  reuse?: ListedCandidates,
): Promise<Candidate[]> {
  const found: Candidate[] = [];
  // Earlier listings' candidate objects are reused (same name, same path): fresh objects and
  // path strings per file and rescan outlive the young generation (a scan spans many awaits) and
  // pile up as old garbage until a full GC (~+2.5 MB per rescan of 20,000 files). Sharing one
  // object between two overlapping scans is harmless: each writes a real `stat` of that path.
  // A watched listing keeps its objects for later rescans, so it must own them: no reuse there.
  const known = observer || !reuse ? new Map<string, Candidate>() : reuse.of(root);
  const candidateFor = (file: string): Candidate => {
    let candidate = known.get(file);
    if (candidate === undefined) {
      candidate = { file, path: joinRoot(root, file), mtimeMs: 0, size: 0 };
      if (!observer) known.set(file, candidate);
    }
    return candidate;
  };
  let pending: string[] = [""];
  while (pending.length > 0) {
    throwIfAborted(signal, "scan");
    const next: string[] = [];
    await mapBounded(pending, 16, signal, async (relativeDir) => {
      if (observer && !observer.beforeFolder(relativeDir)) return;
      let entries: Dirent[];
      try {
        entries = await fs.readdir(path.join(root, relativeDir), { withFileTypes: true });
      } catch {
        return; // unreadable folder: skip it, keep the rest
      }
      for (const entry of entries) {
        const file = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!entry.name.startsWith(".")) next.push(file);
        } else if (entry.isFile()) {
          if (isMemoryFileName(file)) found.push(candidateFor(file));
        } else if (entry.isSymbolicLink() && isMemoryFileName(file)) {
          observer?.recheckAlways(file);
          const full = path.join(root, file);
          if (await symlinkStaysInside(full, realRoot)) found.push({ file, path: full, mtimeMs: 0, size: 0 });
        }
      }
    });
    pending = next;
  }
  // Names deleted since are dropped once they outnumber the live ones (the map stays bounded).
  if (!observer && reuse && known.size > 2 * found.length + 64) {
    known.clear();
    for (const candidate of found) known.set(candidate.file, candidate);
  }
  return found;
}

const LISTED_ROOTS_KEPT = 4;

/**
 * Candidates by file name for the few most recently listed roots (see {@link listMarkdownFiles}),
 * reused by the unwatched listings of one owner (a Memdir).
 */
export class ListedCandidates {
  readonly #roots = new Map<string, Map<string, Candidate>>();

  /** The candidates last listed under `root` (an empty map the first time). */
  of(root: string): Map<string, Candidate> {
    let known = this.#roots.get(root);
    if (known)
      this.#roots.delete(root); // re-inserted last: most recently used
    else known = new Map();
    this.#roots.set(root, known);
    if (this.#roots.size > LISTED_ROOTS_KEPT) this.#roots.delete(this.#roots.keys().next().value as string);
    return known;
  }
}

/**
 * Stats every listed file (following file symlinks), dropping non-files and files gone since
 * listing. The listed objects themselves become the candidates (no second object per file).
 */
export async function statCandidates(
  listed: Candidate[],
  signal: AbortSignal | undefined,
  observer?: ListingObserver,
): Promise<Candidate[]> {
  let kept = 0;
  for (let start = 0; start < listed.length; start += STAT_SLICE) {
    if (start > 0) await yieldToEventLoop();
    throwIfAborted(signal, "scan");
    const end = Math.min(listed.length, start + STAT_SLICE);
    for (let i = start; i < end; i++) {
      const entry = listed[i];
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(entry.path, { throwIfNoEntry: false });
      } catch {
        continue; // unreadable (EACCES on a parent, ELOOP)
      }
      if (!stat?.isFile()) continue; // vanished between listing and stat, or not a file
      entry.mtimeMs = stat.mtimeMs;
      entry.size = stat.size;
      if (observer && stat.nlink > 1) observer.recheckAlways(entry.file);
      listed[kept++] = entry;
    }
  }
  listed.length = kept;
  return listed;
}

/** `previous` without the stale objects, merged with the added ones: newest first, in O(n). */
export function mergeNewestFirst(
  previous: readonly Candidate[],
  changed: readonly Candidate[],
  stale: ReadonlySet<Candidate>,
): Candidate[] {
  const added = changed.filter((candidate) => !stale.has(candidate)).sort(newestFirst);
  const merged: Candidate[] = [];
  let next = 0;
  for (const candidate of previous) {
    if (stale.size > 0 && stale.has(candidate)) continue;
    while (next < added.length && newestFirst(added[next], candidate) < 0) merged.push(added[next++]);
    merged.push(candidate);
  }
  while (next < added.length) merged.push(added[next++]);
  return merged;
}

// `statfs` magic numbers (linux/magic.h) of local file systems whose inotify events are complete.
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs (containers)
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
  0x3153464a, // jfs
  0x52654973, // reiserfs
]);

/** True for a `statfs` type of a local file system whose inotify events are complete. */
export function isLocalFileSystem(type: number): boolean {
  return LOCAL_FILE_SYSTEMS.has(type);
}

/** True when `folderPath` is on a local file system whose inotify events are complete. */
export function onLocalFileSystem(folderPath: string): boolean {
  try {
    return isLocalFileSystem(Number(statfsSync(folderPath).type));
  } catch {
    return false;
  }
}

async function symlinkStaysInside(linkPath: string, realRoot: string): Promise<boolean> {
  try {
    return countsAsOwnMemory(realRoot, await fs.realpath(linkPath));
  } catch {
    return false; // dangling link or loop (ELOOP)
  }
}

/**
 * Whether a symlinked memory file whose real path is `target` is listed under its own name: its
 * real path stays inside the memory dir, and is not a memory file the listing holds itself. A link
 * to another memory of the directory (`alias.md → ok.md`) is the same memory twice: listed, it was
 * recalled twice, one recall slot spent on a copy, and `doctor --fix` indexed it twice. A link to a
 * file no listing holds (a dot-folder's, a name that is no memory's) is the only way to it, and counts.
 */
export function countsAsOwnMemory(realRoot: string, target: string): boolean {
  if (!isInside(realRoot, target)) return false;
  const parts = path.relative(realRoot, target).split(path.sep);
  const listed = !parts.some((part) => part.startsWith(".")) && isMemoryFileName(parts.join("/"));
  return !listed;
}

/** Maps `items` through `fn` with at most `limit` calls in flight, keeping order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal | undefined,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      throwIfAborted(signal, "scan");
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
