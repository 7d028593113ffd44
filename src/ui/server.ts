import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MemdirError } from "../errors.ts";
import { MEMORY_FILE_MAX_BYTES } from "../memdir/fs/read.ts";
import { type Memdir, openMemdir } from "../memdir/instance.ts";
import { createLexicalSelector } from "../recall/select-lexical.ts";
import type { Selector } from "../recall/selector.ts";
import { type DirectoryChoice, listMemoryDirectories } from "./directories.ts";
import { DirectoryEvents } from "./events.ts";
import { MemoryView, SaveConflict } from "./memory-view.ts";
import { streamHealth } from "./review.ts";
import { type ApiRequest, routeApi } from "./routes.ts";
import { judgeRequest, newSecrets, OneTimeCodes, sessionCookie } from "./security.ts";

/** Options of {@link startUiServer}. */
export interface UiServerOptions {
  /** The memory dir the page opens on. */
  memoryDir: string;
  /** The memory root whose directories the picker offers. */
  root: string;
  /** 0 (default): any free port. */
  port?: number;
  /** The recall page's selector (what `memdir recall` would use). */
  selector: Selector;
  /** Days an inbox proposal waits before it expires (setting `inboxExpiryDays`; default 30). */
  inboxExpiryDays?: number;
  /** The environment the instances read their switches from (`MEMDIR_NO_CACHE`, …). */
  env?: NodeJS.ProcessEnv;
  /** Where request failures are logged (one line each). */
  log?: (line: string) => void;
  /** The clock one-time codes expire by (default `Date.now`). */
  now?: () => number;
}

export interface UiServer {
  /** The URL to print for the user: `http://127.0.0.1:<port>/?token=<token>`. */
  url: string;
  /**
   * A URL for a browser's command line (`--open`): `http://127.0.0.1:<port>/?code=<code>`, a
   * new one-time code each call (docs/ui.md#security), never the token.
   */
  openUrl(): string;
  origin: string;
  port: number;
  /** Stops listening and closes the instances' watchers. */
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

// Nothing runs on the page but its own script, and nothing is fetched from elsewhere.
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** `web/` of the package this module belongs to (src/, dist/ and the test build sit at different depths). */
function webDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, "web");
}

const STATIC_FILES = new Set([
  "index.html",
  "app.css",
  "app.js",
  "dom.js",
  "charts.js",
  "overview.js",
  "memories.js",
  "memory.js",
  "recall.js",
  "inbox.js",
  "history.js",
  "health.js",
]);

/**
 * The addresses of the page's views (docs/ui.md#pages): each is answered with the app, so a
 * memory's page (`/memory/<file>`) can be bookmarked and shared with a link; the app reads the
 * address and shows that view. They pass the same token/cookie, Host and Origin checks first.
 */
export function isAppPath(pathname: string): boolean {
  return (
    /^\/(overview|memories|recall|inbox|history|health)?$/.test(pathname) ||
    (pathname.startsWith("/memory/") && pathname.length > "/memory/".length)
  );
}

/**
 * Starts the `memdir ui` server on 127.0.0.1 (docs/ui.md). It holds no lock while idle: the
 * writer takes its lock per save, as for every other caller. Each memory dir the page opens
 * gets one {@link Memdir} (header cache, watchers, lexical index) for the life of the server.
 *
 * @example
 * const server = await startUiServer({ memoryDir, root, selector: createLexicalSelector() });
 * console.log(server.url);
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const secrets = newSecrets();
  const codes = new OneTimeCodes(options.now);
  const views = new Map<string, MemoryView>();
  const instances: Memdir[] = [];
  const search = createLexicalSelector();
  const staticDir = webDir();
  const log = options.log ?? (() => {});
  const events = new DirectoryEvents();
  let directories: DirectoryChoice[] | null = null;

  const listDirectories = async (refresh: boolean) => {
    if (refresh || directories === null)
      directories = await listMemoryDirectories(options.root, options.memoryDir);
    return directories;
  };
  const viewOf = async (dir: string | null): Promise<MemoryView> => {
    const wanted = path.resolve(dir || options.memoryDir);
    let view = views.get(wanted);
    if (view) return view;
    const known =
      (await listDirectories(false)).some((entry) => entry.memoryDir === wanted) ||
      (await listDirectories(true)).some((entry) => entry.memoryDir === wanted);
    if (!known)
      throw new MemdirError("invalid-input", `ui: ${wanted} is not a memory directory under the root`);
    // Its long reads (a cold header scan, the lexical index) are told to the dir's pages as
    // `progress` events, so a page shows how far the server is (docs/ui.md#live-updates).
    const memdir = openMemdir(wanted, {
      env: options.env,
      progress: (step, done, total) => events.progress(wanted, { step, done, total }),
    });
    instances.push(memdir);
    view = new MemoryView(memdir, search);
    views.set(wanted, view);
    return view;
  };

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(
        `memdir: ui: ${request.method} ${request.url}: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (!response.headersSent) send(response, 500, { error: { code: "internal", message: String(error) } });
      else response.end();
    });
  });
  let origin = "";

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", origin);
    const verdict = judgeRequest(request, url, { secrets, origin, codes });
    if (!verdict.allowed) {
      send(response, 403, { error: { code: "forbidden", message: `memdir ui: ${verdict.reason}` } });
      return;
    }
    if (verdict.byToken && request.method === "GET" && !url.pathname.startsWith("/api/")) {
      // The first visit trades the token for the cookie and drops it from the address bar; a deep
      // link keeps its own address.
      const location = isAppPath(url.pathname) ? url.pathname : "/";
      response.writeHead(302, { ...SECURITY_HEADERS, "set-cookie": sessionCookie(secrets), location });
      response.end();
      return;
    }
    if (url.pathname === "/api/events" && request.method === "GET") {
      const dir = url.searchParams.get("dir");
      const view = await viewOf(dir === null || dir === "" ? null : dir).catch((error: unknown) => {
        if (!(error instanceof MemdirError)) throw error;
        send(response, 400, { error: { code: error.code, message: error.message } });
        return null;
      });
      if (view) events.subscribe(view.memoryDir, response, SECURITY_HEADERS);
      return;
    }
    if (url.pathname === "/api/health/stream" && request.method === "GET") {
      await streamHealthTo(response, url.searchParams.get("dir"));
      return;
    }
    if (url.pathname.startsWith("/api/")) {
      await answerApi(request, url, response);
      return;
    }
    const name = isAppPath(url.pathname) ? "index.html" : url.pathname.slice(1);
    if (request.method !== "GET" || !STATIC_FILES.has(name)) {
      send(response, 404, { error: { code: "not-found", message: `no page ${url.pathname}` } });
      return;
    }
    const bytes = await fs.promises.readFile(path.join(staticDir, name));
    response.writeHead(200, { ...SECURITY_HEADERS, "content-type": CONTENT_TYPES[path.extname(name)] });
    response.end(bytes);
  }

  /** One call of the JSON API (routes.ts); a refused request answers with its code. */
  async function answerApi(
    request: http.IncomingMessage,
    url: URL,
    response: http.ServerResponse,
  ): Promise<void> {
    try {
      const api: ApiRequest = {
        method: request.method ?? "GET",
        path: url.pathname.slice("/api/".length),
        query: url.searchParams,
        body: request.method === "POST" ? await readJson(request) : {},
      };
      const result = await routeApi(api, {
        viewOf,
        listDirectories,
        selector: options.selector,
        inboxExpiryDays: options.inboxExpiryDays,
      });
      send(
        response,
        result === undefined ? 404 : 200,
        result ?? { error: { code: "not-found", message: "no such API" } },
      );
    } catch (error) {
      if (!(error instanceof MemdirError)) throw error;
      if (error instanceof SaveConflict) {
        send(response, 409, { error: { code: error.code, message: error.message, ...error.details } });
        return;
      }
      send(response, error.code === "not-found" ? 404 : 400, {
        error: { code: error.code, message: error.message },
      });
    }
  }

  /**
   * `GET /api/health/stream`: the Health page's findings as they are found, one JSON line each
   * (`streamHealth`), ended early when the page goes away.
   */
  async function streamHealthTo(response: http.ServerResponse, dir: string | null): Promise<void> {
    const view = await viewOf(dir === null || dir === "" ? null : dir).catch((error: unknown) => {
      if (!(error instanceof MemdirError)) throw error;
      send(response, 400, { error: { code: error.code, message: error.message } });
      return null;
    });
    if (!view) return;
    const gone = new AbortController();
    response.on("close", () => gone.abort());
    response.writeHead(200, { ...SECURITY_HEADERS, "content-type": "application/x-ndjson; charset=utf-8" });
    try {
      await streamHealth(view.memoryDir, (line) => response.write(`${JSON.stringify(line)}\n`), gone.signal);
    } catch (error) {
      if (gone.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      response.write(`${JSON.stringify({ error: { code: "internal", message } })}\n`);
    }
    response.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  // The start dir's scan and folder watchers begin now, not when the page first asks: by the
  // time a browser has opened the printed URL its first list is one cheap rescan away
  // (docs/ui.md#at-20000-memories). A page that comes sooner shares this scan.
  viewOf(null)
    .then((view) => view.headers())
    .catch((error: unknown) =>
      log(`memdir: ui: warm-up: ${error instanceof Error ? error.message : String(error)}`),
    );
  return {
    url: `${origin}/?token=${secrets.token}`,
    openUrl: () => `${origin}/?code=${codes.issue()}`,
    origin,
    port,
    async close() {
      events.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(instances.map((memdir) => memdir.close()));
    },
  };
}

function send(response: http.ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(value));
}

// Larger than any memory file the writer accepts, with room for JSON escaping.
const MAX_BODY_BYTES = 4 * MEMORY_FILE_MAX_BYTES;

async function readJson(request: http.IncomingMessage): Promise<Record<string, unknown>> {
  if (!(request.headers["content-type"] ?? "").startsWith("application/json"))
    throw new MemdirError("invalid-input", "ui: a write must send JSON (content-type: application/json)");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new MemdirError("invalid-input", "ui: request body too large");
    chunks.push(chunk as Buffer);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new MemdirError("invalid-input", "ui: the request body is not a JSON object");
}
