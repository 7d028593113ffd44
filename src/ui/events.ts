import fs from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";

/** What the page is told while a long job runs for its memory dir (docs/ui.md#live-updates). */
export interface ProgressEvent {
  step: string;
  done: number;
  total: number;
}

interface DirectoryWatch {
  clients: Set<ServerResponse>;
  /** One non-recursive watch per folder, by folder path. */
  folders: Map<string, fs.FSWatcher>;
  /** Settles once every folder present at the start is watched. */
  watched: Promise<void>;
  /** The last progress sent, so a page that opens mid-job shows it at once. */
  progress: ProgressEvent | null;
}

/**
 * Live updates of `memdir ui` (docs/ui.md#live-updates): one watch per memory dir a page listens
 * to, told to every page as a server-sent event `change` naming the memory files, and `progress`
 * while the server reads or indexes that dir. Hidden folders (`.history/`, `.git/`,
 * `.memdir-cache/`) are the memory dir's own bookkeeping: a change there alone is not news for
 * the page, except the inbox's `.proposals/`, which is sent as `{"inbox": true}` so the inbox and
 * overview can refresh.
 *
 * The watch is one NON-recursive `fs.watch` per folder, as the header scan's watchers are: Node
 * 20's recursive watch on Linux walks every file synchronously when it starts (2.6 s at 20,000
 * memories, docs/benchmarks.md#the-web-view-at-20000-memories), and the server answers nothing
 * meanwhile — the first list waited for it.
 */
export class DirectoryEvents {
  readonly #watches = new Map<string, DirectoryWatch>();

  /** Starts an event stream on `response` for `memoryDir`; it ends when the client goes. */
  subscribe(memoryDir: string, response: ServerResponse, headers: Record<string, string>): void {
    const entry = this.#watchOf(memoryDir);
    response.writeHead(200, { ...headers, "content-type": "text/event-stream; charset=utf-8" });
    // A comment line first: the browser sees the stream open while the folders are being watched.
    response.write(": watching\n\n");
    if (entry.progress) response.write(progressMessage(entry.progress));
    entry.clients.add(response);
    response.on("close", () => {
      entry.clients.delete(response);
      if (entry.clients.size === 0 && this.#watches.get(memoryDir) === entry) this.#stop(memoryDir);
    });
    // The first event says the watch is in place: a change made after it is reported.
    entry.watched.then(() => {
      if (!response.writableEnded) response.write("event: ready\ndata: {}\n\n");
    });
  }

  /**
   * Tells every page of `memoryDir` how far a long job is (the header scan, the lexical index);
   * `done === total` ends the step.
   */
  progress(memoryDir: string, event: ProgressEvent): void {
    const entry = this.#watches.get(memoryDir);
    if (!entry) return;
    entry.progress = event.done >= event.total ? null : event;
    for (const client of entry.clients) client.write(progressMessage(event));
  }

  #watchOf(memoryDir: string): DirectoryWatch {
    const known = this.#watches.get(memoryDir);
    if (known) return known;
    const entry: DirectoryWatch = {
      clients: new Set(),
      folders: new Map(),
      watched: Promise.resolve(),
      progress: null,
    };
    this.#watches.set(memoryDir, entry);
    entry.watched = this.#watchTree(memoryDir, memoryDir, entry);
    return entry;
  }

  /** Watches `folder` and every folder under it that the page cares about. */
  async #watchTree(memoryDir: string, folder: string, entry: DirectoryWatch, added = false): Promise<void> {
    if (entry.folders.has(folder) || this.#watches.get(memoryDir) !== entry) return;
    let watcher: fs.FSWatcher;
    try {
      // Watched before it is read: a file made while the folder is listed still raises an event.
      watcher = fs.watch(folder, (_event, name) => {
        if (name === null) return;
        const full = path.join(folder, String(name));
        const relative = path.relative(memoryDir, full);
        const change = describeChange(relative);
        if (change !== null) {
          const message = `event: change\ndata: ${JSON.stringify(change)}\n\n`;
          for (const client of entry.clients) client.write(message);
        }
        // A folder made (or moved in) after the watch started is watched from now on.
        if (watchedFolder(relative))
          fs.promises.stat(full).then(
            (stat) => {
              if (stat.isDirectory()) void this.#watchTree(memoryDir, full, entry, true);
            },
            () => {},
          );
      });
    } catch {
      return; // gone or unreadable: nothing in it to tell the page about
    }
    // A folder removed under the watch: that folder sends no more events.
    watcher.on("error", () => {
      watcher.close();
      entry.folders.delete(folder);
    });
    entry.folders.set(folder, watcher);
    const children = await fs.promises.readdir(folder, { withFileTypes: true }).catch(() => []);
    // A folder made after the watch started may have had files written before its own watch
    // began (`mkdir -p` then a write): they are told now, as the recursive watch would have.
    if (added)
      for (const child of children) {
        const change = child.isFile()
          ? describeChange(path.relative(memoryDir, path.join(folder, child.name)))
          : null;
        if (change === null) continue;
        const message = `event: change\ndata: ${JSON.stringify(change)}\n\n`;
        for (const client of entry.clients) client.write(message);
      }
    await Promise.all(
      children
        .filter(
          (child) =>
            child.isDirectory() && watchedFolder(path.relative(memoryDir, path.join(folder, child.name))),
        )
        .map((child) => this.#watchTree(memoryDir, path.join(folder, child.name), entry, added)),
    );
  }

  #stop(memoryDir: string): void {
    const entry = this.#watches.get(memoryDir);
    if (!entry) return;
    for (const watcher of entry.folders.values()) watcher.close();
    entry.folders.clear();
    this.#watches.delete(memoryDir);
  }

  /** Ends every stream and watch. */
  close(): void {
    for (const [memoryDir, { clients }] of this.#watches) {
      for (const client of clients) client.end();
      this.#stop(memoryDir);
    }
  }
}

function progressMessage(event: ProgressEvent): string {
  return `event: progress\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Whether a folder at `relative` (to the memory dir) is watched: memory folders and `.proposals/`. */
function watchedFolder(relative: string): boolean {
  const parts = relative.split(path.sep);
  if (parts[0] === ".proposals") return true;
  return !parts.some((part) => part.startsWith("."));
}

/** What a change to `name` (relative to the memory dir) means for the page, or null: nothing. */
export function describeChange(name: string | null): { file: string } | { inbox: true } | null {
  if (name === null) return null;
  const file = name.split(path.sep).join("/");
  if (file.startsWith(".proposals/") || file === ".proposals") return { inbox: true };
  if (file.split("/").some((part) => part.startsWith("."))) return null;
  if (file === "MEMORY.md" || !file.endsWith(".md")) return null;
  return { file };
}
