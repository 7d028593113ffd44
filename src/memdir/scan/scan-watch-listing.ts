import {
  type Dirent,
  type FSWatcher,
  lstatSync,
  readdirSync,
  realpathSync,
  type Stats,
  statfsSync,
  statSync,
  watch,
} from "node:fs";
import path from "node:path";
import {
  type Candidate,
  countsAsOwnMemory,
  isLocalFileSystem,
  isMemoryFileName,
  joinRoot,
  type ListingObserver,
  mergeNewestFirst,
} from "./scan-list.ts";
import type { WatchOwner } from "./scan-watch-types.ts";

// The watch set of one root; the rules it keeps are explained in `scan-watch.ts`.

// A memory dir has a handful of folders; a tree with more is listed the plain way (the watch
// count is bounded per registry by WATCHED_ROOTS_KEPT × this, well under inotify's user limit).
const MAX_WATCHED_FOLDERS = 256;
// A rescan re-checks at most this many paths; a bigger change is cheaper as a full scan (which
// stats in slices that yield to the event loop, where this re-check runs synchronously).
const REFRESH_MAX_PATHS = 2048;

type Failure = "rebuild" | "unwatchable";

interface WatchedFolder {
  watcher: FSWatcher;
  dev: number;
  ino: number;
}

/** What one rescan changed: new candidate objects and the objects they replace or remove. */
interface Changes {
  added: Candidate[];
  stale: Set<Candidate>;
  /** How many more paths this rescan may re-check before a full scan is cheaper. */
  budget: number;
}

const TOO_MANY_CHANGES = new Error("too many changes for a watched rescan");

/**
 * One root's watch set and the listing it keeps current. Built while the full scan lists the tree
 * (as its {@link ListingObserver}), live once it adopts that scan's sorted result.
 */
export class WatchedListing implements ListingObserver {
  readonly root: string;
  readonly realRoot: string;
  readonly #rootDev: number;
  readonly #rootIno: number;
  #state: "building" | "live" | "ended" = "building";
  #failure: Failure | null = null;
  readonly #folders = new Map<string, WatchedFolder>();
  #sorted: readonly Candidate[] = [];
  /**
   * The listed candidates by file name, the same objects as in {@link #sorted}; built on the first
   * rescan that has something to re-check (~10 ms at 20,000 files that a one-shot command or an
   * unchanged directory never pays).
   */
  #byFile = new Map<string, Candidate>();
  #byFileBuilt = false;
  /**
   * Re-checked on every rescan, as their changes may raise no event here: entries that are
   * symlinks with a memory file's name (kept or refused), and files with several hard links.
   */
  readonly #alwaysRechecked = new Set<string>();
  /** Paths (relative) named by events since the last rescan. */
  #dirty = new Set<string>();
  /** Folders whose every entry must be re-checked (an event without a file name). */
  #relist = new Set<string>();
  #eventsAtRefresh: number;
  /** Where the next sweep starts in the listing. */
  #sweepAt = 0;
  /** A sweep ran ahead, between requests ({@link sweepAhead}): the next refresh does not repeat it. */
  #sweptAhead = false;
  readonly #owner: WatchOwner;

  constructor(owner: WatchOwner, root: string, realRoot: string, rootStat: Stats) {
    this.#owner = owner;
    this.#eventsAtRefresh = owner.eventsSeen;
    this.root = root;
    this.realRoot = realRoot;
    this.#rootDev = rootStat.dev;
    this.#rootIno = rootStat.ino;
  }

  get building(): boolean {
    return this.#state === "building";
  }

  get live(): boolean {
    return this.#state === "live" && this.#failure === null;
  }

  /** How many folders are watched (for tests and diagnostics). */
  get watchedFolders(): number {
    return this.#folders.size;
  }

  beforeFolder(relativeDir: string): boolean {
    if (this.#state !== "building" || this.#failure !== null) return true; // listed unwatched
    return this.#watchFolder(relativeDir) !== "skip";
  }

  recheckAlways(file: string): void {
    this.#alwaysRechecked.add(file);
  }

  /** Takes the full scan's result (sorted newest first, never changed afterwards) and goes live. */
  adopt(sorted: readonly Candidate[]): void {
    if (this.#state !== "building") return;
    if (this.#failure !== null) {
      this.end();
      return;
    }
    this.#sorted = sorted;
    this.#state = "live";
    this.#owner.stats.watchSetsBuilt++;
  }

  /** Closes every watcher and forgets the listing; a root that cannot be watched is remembered. */
  end(): void {
    this.#state = "ended";
    this.#closeWatchers();
    this.#owner.ended(this, this.#failure === "unwatchable");
  }

  /**
   * Applies the events received since the last rescan: re-stats the paths they name, lists new
   * folders, re-checks symlinks. Synchronous, so overlapping scans each see a whole state.
   * `null` when the watch set can no longer be trusted (the caller does a full scan).
   */
  refresh(realRoot: string): readonly Candidate[] | null {
    if (!this.live || realRoot !== this.realRoot) return null;
    const eventsSeen = this.#owner.eventsSeen;
    if (eventsSeen - this.#eventsAtRefresh >= this.#owner.eventBurstLimit()) return null;
    this.#eventsAtRefresh = eventsSeen;
    if (!this.#foldersUnchanged()) return null;
    if (this.#sweptAhead) this.#sweptAhead = false;
    else this.#sweep();
    if (this.#dirty.size === 0 && this.#relist.size === 0 && this.#alwaysRechecked.size === 0)
      return this.#sorted;
    const paths = this.#dirty;
    this.#dirty = new Set();
    const relist = this.#relist;
    this.#relist = new Set();
    try {
      if (!this.#byFileBuilt) {
        this.#byFile = new Map(this.#sorted.map((candidate) => [candidate.file, candidate]));
        this.#byFileBuilt = true;
      }
      for (const folder of relist) this.#collectEntries(folder, paths);
      for (const link of this.#alwaysRechecked) paths.add(link);
      if (paths.size > REFRESH_MAX_PATHS) return null;
      const changes: Changes = { added: [], stale: new Set(), budget: REFRESH_MAX_PATHS - paths.size };
      for (const file of paths) this.#recheck(file, changes);
      if (this.#failure !== null) return null;
      if (changes.added.length > 0 || changes.stale.size > 0)
        this.#sorted = mergeNewestFirst(this.#sorted, changes.added, changes.stale);
      return this.#sorted;
    } catch {
      return null; // too many changes, or an unexpected error: the full scan is always right
    }
  }

  /**
   * Runs the next refresh's sweep now, while nothing waits (the memory helper between two
   * requests), so that refresh only applies what it found. A change the sweep would catch is then
   * seen one rescan later at most.
   */
  sweepAhead(): void {
    if (!this.live || this.#sweptAhead) return;
    this.#sweep();
    this.#sweptAhead = true;
  }

  /** Re-stats the next few listed files; a changed one is re-checked like an event named it. */
  #sweep(): void {
    const sorted = this.#sorted;
    const count = Math.min(this.#owner.tuning.sweepPerRescan, sorted.length);
    let index = this.#sweepAt < sorted.length ? this.#sweepAt : 0;
    for (let i = 0; i < count; i++, index = index + 1 < sorted.length ? index + 1 : 0) {
      const candidate = sorted[index];
      let stat: Stats | undefined;
      try {
        stat = statSync(candidate.path, { throwIfNoEntry: false });
      } catch {
        stat = undefined;
      }
      if (stat?.mtimeMs !== candidate.mtimeMs || stat.size !== candidate.size || stat.nlink > 1)
        this.#dirty.add(candidate.file);
    }
    this.#sweepAt = index;
  }

  /**
   * The root still is the same directory, and each watched folder too; a folder replaced behind
   * a missed event is re-listed. False when the root itself changed.
   */
  #foldersUnchanged(): boolean {
    for (const [folder, watched] of this.#folders) {
      let stat: Stats | undefined;
      try {
        const folderPath = this.#absolute(folder);
        // The root may be a symlink to the memory dir; sub-folders must be real folders.
        stat = folder === "" ? statSync(folderPath) : lstatSync(folderPath);
      } catch {
        stat = undefined;
      }
      const same = stat?.isDirectory() && stat.dev === watched.dev && stat.ino === watched.ino;
      if (folder === "") {
        if (!same || stat?.dev !== this.#rootDev || stat.ino !== this.#rootIno) return false;
      } else if (!same) this.#dirty.add(folder);
    }
    return this.#folders.has("");
  }

  #absolute(relative: string): string {
    return relative === "" ? this.root : joinRoot(this.root, relative);
  }

  #watchFolder(relativeDir: string): "watched" | "skip" | "failed" {
    const folderPath = this.#absolute(relativeDir);
    if (this.#folders.size >= MAX_WATCHED_FOLDERS) {
      this.#fail("unwatchable");
      return "failed";
    }
    let stat: Stats;
    let fileSystem: number;
    try {
      stat = relativeDir === "" ? statSync(folderPath) : lstatSync(folderPath);
      fileSystem = Number(statfsSync(folderPath).type);
    } catch {
      return "skip"; // vanished or unreadable: the parent's watcher reports when that changes
    }
    if (!stat.isDirectory()) return "skip";
    if (!isLocalFileSystem(fileSystem)) {
      this.#fail("unwatchable"); // a mount of a remote file system inside the memory dir
      return "failed";
    }
    const folderName = path.basename(folderPath);
    let watcher: FSWatcher;
    try {
      // Not recursive: Node 20 emulates recursive watching on Linux in JavaScript. Not
      // persistent: a watcher never keeps a CLI process alive.
      watcher = watch(folderPath, { persistent: false }, (_event, name) =>
        this.#onEvent(relativeDir, folderName, name),
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES" || code === "EPERM") return "skip";
      this.#fail("unwatchable"); // ENOSPC (inotify watch limit), EMFILE, ENOMEM: not in this process
      return "failed";
    }
    watcher.on("error", () => this.#fail("rebuild"));
    this.#folders.set(relativeDir, { watcher, dev: stat.dev, ino: stat.ino });
    return "watched";
  }

  #onEvent(relativeDir: string, folderName: string, name: string | null): void {
    this.#owner.eventsSeen++;
    if (name === null || name === undefined) {
      this.#relist.add(relativeDir);
      return;
    }
    // libuv names a folder's own deletion or move (and the end of its watch) after the folder:
    // the folder is re-checked through its parent, and the root's listing rebuilt.
    if (name === folderName) {
      if (relativeDir === "") this.#fail("rebuild");
      else this.#dirty.add(relativeDir);
    }
    this.#dirty.add(relativeDir === "" ? name : `${relativeDir}/${name}`);
  }

  #fail(failure: Failure): void {
    if (this.#failure !== "unwatchable") this.#failure = failure;
    this.#closeWatchers();
  }

  #closeWatchers(): void {
    for (const watched of this.#folders.values()) watched.watcher.close();
    this.#folders.clear();
  }

  /** Adds the names in `folder` and the names listed there before (some may be gone) to `paths`. */
  #collectEntries(folder: string, paths: Set<string>): void {
    if (!this.#folders.has(folder)) return;
    const prefix = folder === "" ? "" : `${folder}/`;
    try {
      for (const name of readdirSync(this.#absolute(folder))) paths.add(prefix + name);
    } catch {
      // unreadable now: the known names below are re-checked (and dropped)
    }
    const isChild = (file: string) => file.startsWith(prefix) && !file.includes("/", prefix.length);
    for (const file of this.#byFile.keys()) if (isChild(file)) paths.add(file);
    for (const link of this.#alwaysRechecked) if (isChild(link)) paths.add(link);
    for (const child of this.#folders.keys()) if (child !== folder && isChild(child)) paths.add(child);
  }

  /** Brings path `file` (relative) up to date: a memory file, a folder, or nothing. */
  #recheck(file: string, changes: Changes): void {
    const slash = file.lastIndexOf("/");
    // A path in a folder no longer watched was dropped with it (and is listed afresh if the
    // folder comes back).
    if (!this.#folders.has(slash < 0 ? "" : file.slice(0, slash))) return;
    if (this.#folders.has(file)) this.#dropFolder(file, changes);
    const filePath = this.#absolute(file);
    let stat: Stats | undefined;
    try {
      stat = lstatSync(filePath, { throwIfNoEntry: false });
    } catch {
      stat = undefined; // unreadable: skipped, as by the full scan
    }
    if (stat?.isDirectory()) {
      this.#forget(file, changes);
      this.#alwaysRechecked.delete(file);
      if (!file.slice(slash + 1).startsWith(".")) this.#addFolder(file, changes);
      return;
    }
    if (stat?.isSymbolicLink() && isMemoryFileName(file)) {
      this.#alwaysRechecked.add(file);
      const target = this.#symlinkTarget(filePath);
      if (target?.isFile()) this.#setFile(file, filePath, target, changes);
      else this.#forget(file, changes);
      return;
    }
    if (stat?.isFile() && isMemoryFileName(file)) {
      // A write through another hard link (in another folder) raises no event here.
      if (stat.nlink > 1) this.#alwaysRechecked.add(file);
      else this.#alwaysRechecked.delete(file);
      this.#setFile(file, filePath, stat, changes);
    } else {
      this.#alwaysRechecked.delete(file);
      this.#forget(file, changes);
    }
  }

  /** The `stat` of a symlink's target when its real path stays inside the memory dir. */
  #symlinkTarget(linkPath: string): Stats | undefined {
    try {
      if (!countsAsOwnMemory(this.realRoot, realpathSync(linkPath))) return undefined;
      return statSync(linkPath, { throwIfNoEntry: false });
    } catch {
      return undefined; // dangling link or loop
    }
  }

  #addFolder(folder: string, changes: Changes): void {
    if (this.#watchFolder(folder) !== "watched") return;
    let entries: Dirent[];
    try {
      entries = readdirSync(this.#absolute(folder), { withFileTypes: true });
    } catch {
      return; // unreadable: the watcher reports when that changes
    }
    changes.budget -= entries.length;
    if (changes.budget < 0) throw TOO_MANY_CHANGES;
    for (const entry of entries) this.#recheck(`${folder}/${entry.name}`, changes);
  }

  /** Forgets folder `folder`, everything under it, and closes their watchers. */
  #dropFolder(folder: string, changes: Changes): void {
    const prefix = `${folder}/`;
    for (const [watchedFolder, watched] of this.#folders)
      if (watchedFolder === folder || watchedFolder.startsWith(prefix)) {
        watched.watcher.close();
        this.#folders.delete(watchedFolder);
      }
    for (const file of this.#byFile.keys()) if (file.startsWith(prefix)) this.#forget(file, changes);
    for (const link of this.#alwaysRechecked) if (link.startsWith(prefix)) this.#alwaysRechecked.delete(link);
  }

  #setFile(file: string, filePath: string, stat: Stats, changes: Changes): void {
    const previous = this.#byFile.get(file);
    if (previous && previous.mtimeMs === stat.mtimeMs && previous.size === stat.size) return;
    // A new object: the previous one may still be in use by a scan that has not finished.
    const candidate = { file, path: previous?.path ?? filePath, mtimeMs: stat.mtimeMs, size: stat.size };
    this.#byFile.set(file, candidate);
    changes.added.push(candidate);
    if (previous) changes.stale.add(previous);
  }

  #forget(file: string, changes: Changes): void {
    const previous = this.#byFile.get(file);
    if (previous === undefined) return;
    this.#byFile.delete(file);
    changes.stale.add(previous);
  }
}
