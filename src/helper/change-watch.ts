import { randomBytes } from "node:crypto";
import { type FSWatcher, lstatSync, readdirSync, realpathSync, type Stats, statSync, watch } from "node:fs";
import path from "node:path";
import { onLocalFileSystem } from "../memdir/scan/scan-list.ts";
import { afterPollPhase } from "../memdir/scan/scan-watch.ts";
import type { ChangeWatchAnswer } from "../sync/run.ts";

/**
 * Change watches for `memdir sync` (docs/design.md#sync-stat-cache, "A quiet sync with the helper
 * running"): the helper, a long-lived process, watches a memory dir for a sync and tells the next
 * sync whether anything in it changed since, so a sync with nothing to do need not `lstat` every
 * memory file (20,000 system calls at 20,000 memories, docs/benchmarks.md#sync).
 *
 * A watch is one non-recursive `fs.watch` per folder of the memory dir that sync reads (every
 * folder but dot-folders), each folder watched before it is listed, so a folder made after its
 * parent was listed raises an event in the parent. A watch is "unchanged" while no event came
 * from any of its folders, none of its watchers failed, and the root is the same directory
 * (device and inode) at the same real path. Every event counts except one naming a dot-file
 * (sync never reads those: the writer's lock, temp files before their rename, `.memdir-cache/`),
 * so a write in place, `utimes`, `chmod`, a rename over a file, a deletion, a new file or folder
 * all change it. A token names one watch of one helper: a new helper, or a watch that saw a change,
 * answers "not unchanged" and a new token, whose watch starts before the answer is sent, hence
 * before the sync's read.
 *
 * What no watch can see, as for the scan's watchers (src/memdir/scan/scan-watch.ts): a write
 * through a hard link made from outside the memory dir, and an event inotify dropped because its
 * one queue of the process overflowed (16,384 unread events). Only Linux on local file systems is
 * watched; elsewhere there is no token, and sync reads the dir as before.
 */

/** Memory dirs watched at once (least recently asked closed first): one per synced project in use. */
const WATCHED_DIRS = 8;
/** Folders watched per memory dir at most: a memory dir has a handful; a bigger tree is not watched. */
const MAX_FOLDERS = 256;

interface DirWatch {
  token: string;
  dev: number;
  ino: number;
  watchers: FSWatcher[];
  /** The folders watched, by path. */
  folders: Set<string>;
  changed: boolean;
  /**
   * Whether the folders may no longer be the ones watched (a folder made, moved or removed, a
   * watcher that failed): the next watch lists them again. Otherwise the live watchers are kept
   * for it, since they saw everything since they began (at 20,000 memories the listing is the
   * root's 20,000 entries, ~30 ms of every sync that reads).
   */
  relist: boolean;
}

/** The change watches of one helper. */
export class ChangeWatches {
  readonly #watches = new Map<string, DirWatch>();
  readonly #platform: NodeJS.Platform;

  constructor(platform: NodeJS.Platform = process.platform) {
    this.#platform = platform;
  }

  /**
   * Whether memory dir `dir` (absolute) is unchanged since `token`; when not, a new watch begins
   * and its token is returned. Every event the kernel queued before this call is read first.
   */
  async check(dir: string, token: string | undefined): Promise<ChangeWatchAnswer> {
    await afterPollPhase();
    let real: string;
    let root: Stats;
    try {
      real = realpathSync(dir);
      root = statSync(real);
    } catch {
      return { unchanged: false, token: null };
    }
    if (!root.isDirectory()) return { unchanged: false, token: null };
    const current = this.#watches.get(real);
    if (current !== undefined) {
      this.#watches.delete(real); // re-inserted last: most recently asked
      if (
        !current.changed &&
        current.token === token &&
        current.dev === root.dev &&
        current.ino === root.ino
      ) {
        this.#watches.set(real, current);
        return { unchanged: true, token: current.token };
      }
      if (!current.relist && current.dev === root.dev && current.ino === root.ino) {
        current.token = newToken();
        current.changed = false;
        this.#watches.set(real, current);
        return { unchanged: false, token: current.token };
      }
      end(current);
    }
    const fresh = this.#platform === "linux" && onLocalFileSystem(real) ? startWatch(real, root) : null;
    if (fresh === null) return { unchanged: false, token: null };
    this.#watches.set(real, fresh);
    while (this.#watches.size > WATCHED_DIRS) {
      const [oldest, watch] = this.#watches.entries().next().value as [string, DirWatch];
      end(watch);
      this.#watches.delete(oldest);
    }
    return { unchanged: false, token: fresh.token };
  }

  /** The memory dirs watched now (for `memdir helper status`). */
  dirs(): string[] {
    return [...this.#watches.keys()];
  }

  /** Ends every watch. */
  close(): void {
    for (const watch of this.#watches.values()) end(watch);
    this.#watches.clear();
  }
}

function end(watch: DirWatch): void {
  watch.changed = true;
  watch.relist = true;
  for (const watcher of watch.watchers) watcher.close();
  watch.watchers.length = 0;
}

function newToken(): string {
  return randomBytes(12).toString("hex");
}

/**
 * An event in `folder` naming `name`: a change, and a change of the folders watched when `name` is
 * a folder now, was one of them, or is not said (or is the folder's own: libuv names a watched
 * folder's deletion or move after the folder itself).
 */
function noteEvent(dirWatch: DirWatch, folder: string, own: string, name: string | null): void {
  // A dot-name is never read by sync, unless it is the folder's own.
  if (name?.startsWith(".") && name !== own) return;
  dirWatch.changed = true;
  if (dirWatch.relist) return;
  // A name that is not UTF-8 comes with U+FFFD in it and cannot be looked up: it may be a folder.
  if (name === null || name === own || name.includes("\uFFFD")) {
    dirWatch.relist = true;
    return;
  }
  const full = path.join(folder, name);
  try {
    if (dirWatch.folders.has(full) || lstatSync(full, { throwIfNoEntry: false })?.isDirectory())
      dirWatch.relist = true;
  } catch {
    dirWatch.relist = true;
  }
}

/** A watch over `root` and every folder below it but dot-folders, or null when one cannot be watched. */
function startWatch(root: string, rootStat: Stats): DirWatch | null {
  const dirWatch: DirWatch = {
    token: newToken(),
    dev: rootStat.dev,
    ino: rootStat.ino,
    watchers: [],
    folders: new Set(),
    changed: false,
    relist: false,
  };
  const folders = [root];
  while (folders.length > 0) {
    const folder = folders.pop() as string;
    if (dirWatch.watchers.length >= MAX_FOLDERS) return abandon(dirWatch);
    const own = path.basename(folder);
    try {
      // Not persistent: a watch never keeps the helper alive past its own reasons to end.
      // A folder on another device is a mount, maybe of a file system whose other writers raise
      // no event here (NFS, SMB, FUSE): no token for such a tree.
      if (folder !== root && statSync(folder).dev !== rootStat.dev) return abandon(dirWatch);
      const watcher = watch(folder, { persistent: false }, (_event, name) =>
        noteEvent(dirWatch, folder, own, typeof name === "string" ? name : null),
      );
      watcher.on("error", () => end(dirWatch));
      dirWatch.watchers.push(watcher);
      dirWatch.folders.add(folder);
      // Listed after its watch began: an entry made from now on raises an event.
      for (const entry of readdirSync(folder, { withFileTypes: true }))
        if (entry.isDirectory() && !entry.name.startsWith(".")) folders.push(path.join(folder, entry.name));
    } catch {
      return abandon(dirWatch); // a folder that vanished meanwhile, or no watch left (ENOSPC): no token
    }
  }
  return dirWatch;
}

function abandon(dirWatch: DirWatch): null {
  end(dirWatch);
  return null;
}
