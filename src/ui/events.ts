import fs from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";

/**
 * Live updates of `memdir ui` (docs/ui.md#live-updates): one folder watch per memory dir a page
 * listens to, told to every page as a server-sent event `change` naming the memory files. Hidden
 * folders (`.history/`, `.git/`, `.proposals/`, `.memdir-cache/`) are the memory dir's own
 * bookkeeping: a change there alone is not news for the page, except the inbox's `.proposals/`,
 * which is sent as `{"inbox": true}` so the inbox and overview can refresh.
 */
export class DirectoryEvents {
  readonly #watchers = new Map<string, { watcher: fs.FSWatcher; clients: Set<ServerResponse> }>();

  /** Starts an event stream on `response` for `memoryDir`; it ends when the client goes. */
  subscribe(memoryDir: string, response: ServerResponse, headers: Record<string, string>): void {
    let entry = this.#watchers.get(memoryDir);
    if (!entry) {
      const clients = new Set<ServerResponse>();
      const watcher = fs.watch(memoryDir, { recursive: true }, (_event, name) => {
        const change = describeChange(name === null ? null : String(name));
        if (change === null) return;
        const message = `event: change\ndata: ${JSON.stringify(change)}\n\n`;
        for (const client of clients) client.write(message);
      });
      // A folder removed under the watch: the page keeps what it shows, no more events.
      watcher.on("error", () => this.#stop(memoryDir));
      entry = { watcher, clients };
      this.#watchers.set(memoryDir, entry);
    }
    const { clients } = entry;
    response.writeHead(200, { ...headers, "content-type": "text/event-stream; charset=utf-8" });
    // The first event says the watch is in place: a change made after it is reported.
    response.write("event: ready\ndata: {}\n\n");
    clients.add(response);
    response.on("close", () => {
      clients.delete(response);
      if (clients.size === 0) this.#stop(memoryDir);
    });
  }

  #stop(memoryDir: string): void {
    this.#watchers.get(memoryDir)?.watcher.close();
    this.#watchers.delete(memoryDir);
  }

  /** Ends every stream and watch. */
  close(): void {
    for (const [memoryDir, { clients }] of this.#watchers) {
      for (const client of clients) client.end();
      this.#stop(memoryDir);
    }
  }
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
