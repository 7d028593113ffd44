import { randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { debugEnabled, persistedCacheEnabled, watchingEnabled } from "../config.ts";
import { yieldToEventLoop } from "../event-loop.ts";
import { type Memdir, openMemdir } from "../memdir/instance.ts";
import { ChangeWatches } from "./change-watch.ts";
import { ensureHelperDir, HELPER_PROTOCOL, type HelperPaths } from "./paths.ts";

/** One request, one JSON line from the client (docs/design.md#the-memory-helper). */
export interface HelperRequest {
  /** {@link HELPER_PROTOCOL}. */
  v: number;
  /** The client's {@link HelperPaths.build}; a helper of another build answers `{"other": true}`. */
  build: string;
  /** The helper's secret ({@link HelperPaths.secret}); a request without it is refused. */
  secret?: string;
  /**
   * `run` (default): a CLI run; `status`: what the helper holds; `stop`: exit; `preload`: load
   * memory dir `dir` ahead of its first prompt, with `env` (the warm-up asks when it is done);
   * `watch`: whether memory dir `dir` is unchanged since `token` (src/helper/change-watch.ts,
   * asked by `memdir sync`).
   */
  op?: "run" | "status" | "stop" | "preload" | "watch";
  /** The memory dir of a `preload` or a `watch`. */
  dir?: string;
  /** The token a `watch` asks about (the one the last sync kept). */
  token?: string;
  /** The CLI's arguments after the script (`["hook", "user-prompt-submit"]`). */
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** All of the client's stdin (hooks). */
  stdin?: string;
}

/** What a run wrote and its exit code, sent back last (see resultFrame). */
export interface HelperResult {
  stdout: string;
  stderr: string;
  code: number;
  /** The helper could not run it (the client's cwd is gone): the client runs it itself. */
  fallback?: string;
}

/** The instances the helper keeps between requests, one per memory dir and switch set. */
export interface MemdirProvider {
  open(memoryDir: string, env: NodeJS.ProcessEnv): Memdir;
  /** The instance of `memoryDir` if one is kept (without opening one, or reordering). */
  kept(memoryDir: string, env: NodeJS.ProcessEnv): Memdir | undefined;
  /**
   * Asks for `memoryDir` to be loaded ahead of its first prompt ({@link HelperOptions.preload}),
   * once the current request has been answered.
   */
  preloadLater(memoryDir: string, env: NodeJS.ProcessEnv): void;
}

export interface HelperOptions {
  paths: HelperPaths;
  /** The HOME the helper serves: when it is gone (a test's temp HOME removed), the helper ends. */
  home: string;
  /** Exit after this long without a request. */
  idleMs: number;
  /** How often the helper checks its HOME, socket file and build (default 1 s). */
  checkMs?: number;
  /** Whether the build changed since the helper started: a rebuilt memdir ends its old helper. */
  buildChanged: () => boolean;
  /** Runs one CLI request in this process (the helper command: `main` with a captured io). */
  run: (request: HelperRequest, memdirs: MemdirProvider) => Promise<HelperResult>;
  /**
   * Loads a memory dir ahead of its first prompt (scan, lexical index, word vectors), between
   * requests; asked for by {@link MemdirProvider.preloadLater} or a `preload` request. True when
   * it loaded the dir (false: already loaded, or left to a warm-up under way).
   */
  preload?: (memoryDir: string, env: NodeJS.ProcessEnv, memdirs: MemdirProvider) => Promise<boolean>;
  /** A memory dir to load as soon as the helper listens (`memdir helper serve --preload`). */
  preloadAtStart?: { memoryDir: string; env: NodeJS.ProcessEnv };
}

/**
 * How long the helper waits, idle, before it loads a memory dir ahead of its first prompt. An
 * agent run headless (`claude -p`) sends its first prompt right after the session start: that
 * prompt loads the dir itself, as without the preload (a first version that loaded at once, while
 * its load still held the event loop for half a second, made such runs slower). A person typing
 * takes longer (docs/benchmarks.md#session-start-warm-up: a prompt 2 s after session start at 20,000
 * memories, 184 ms with the preload against 1,066 ms; one at once, 1,081 against 1,103 ms).
 */
const PRELOAD_AFTER_IDLE_MS = 1000;

/**
 * The largest request line the helper reads; a longer one is refused and its connection closed.
 * A request is the client's arguments, cwd, environment and a hook's stdin (a host's JSON payload:
 * kilobytes); bin/memdir.js sends nothing longer (it answers a bigger one itself). Before, a
 * connection could buffer 64 MB: a dozen idle ones held 769 MB.
 */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * How long a connection may take to send its whole request before the helper closes it. memdir's
 * clients write the request as soon as they have read stdin, which hosts write as they start the
 * hook, so it comes within milliseconds; a connection still silent after this is idle, and holds
 * a buffer and a descriptor for nothing. A client whose host is slow with stdin connects again
 * when it has it (bin/memdir.js).
 */
export const REQUEST_READ_MS = 5000;

/** Memory dirs kept open at once (least recently used closed first). */
const KEPT_MEMDIRS = 8;

/**
 * Serves CLI requests on the helper's unix socket until a reason to stop, which it resolves to.
 * Requests run one at a time, each with the client's cwd and environment handed to `run` (the
 * helper's own never change); a request is acknowledged (`{"ack": pid}`) when it starts, so a
 * client queued behind a long one or talking to a stopped helper does the work itself instead of
 * waiting. Behind nothing but the work between requests (a sweep, a memory dir loaded ahead, which
 * does what the request would have to do first anyway), it is acknowledged at once.
 */
export async function serveHelper(options: HelperOptions): Promise<string> {
  const opened = await openSocket(options);
  if (typeof opened === "string") return opened;
  const helper = new HelperRun(options, opened);
  opened.server.on("connection", (socket) => {
    helper.touch();
    readRequest(socket, (request) => helper.answer(socket, request));
  });
  return helper.stopped;
}

/** The socket a helper listens on, and the secret its clients must send. */
interface OpenSocket {
  server: net.Server;
  secret: string;
  /** The inodes of the socket and secret files: another one there ends the helper. */
  socketIno: number | null;
  secretIno: number | null;
}

/** Step 1: the socket folder checked, the socket listening, the secret written; or why not. */
async function openSocket(options: HelperOptions): Promise<OpenSocket | string> {
  const { paths } = options;
  // Never make a HOME that is gone (a test's temp HOME being removed as the helper starts).
  if (!fs.existsSync(options.home)) return `no helper: its HOME ${options.home} is gone`;
  const unfit = ensureHelperDir(paths.dir);
  if (unfit !== null) return `no helper: ${unfit}`;
  const server = net.createServer();
  const bound = await listenOnce(server, paths.socket);
  if (bound !== null) return bound;
  const secret = randomBytes(32).toString("hex");
  let secretIno: number | null;
  try {
    secretIno = writeSecret(paths.secret, secret);
  } catch (error) {
    server.close();
    fs.rmSync(paths.socket, { force: true });
    return `no helper: cannot write ${paths.secret}: ${(error as Error).message}`;
  }
  fs.rmSync(paths.starting, { force: true });
  return { server, secret, socketIno: inodeOf(paths.socket), secretIno };
}

/**
 * One serving helper: its queue of runs (one at a time), the work between them (sweeps, memory
 * dirs loaded ahead), the checks that end it, and its counters for `status`.
 */
class HelperRun {
  readonly memdirs = new MemdirCache();
  readonly changes = new ChangeWatches();
  readonly startedAt = Date.now();
  readonly stopped: Promise<string>;
  #lastActivity = Date.now();
  #requests = 0;
  #queue: Promise<void> = Promise.resolve();
  /** Jobs in the queue, the one under way included. */
  #pending = 0;
  /** Runs asked for and not started yet. */
  #runsQueued = 0;
  /** Whether a run is under way (a request behind it is acknowledged only when it starts). */
  #running = false;
  /** Memory dirs loaded ahead of their first prompt (reported by `status`). */
  readonly #preloaded = new Set<string>();
  #stopReason: string | null = null;
  #resolveStopped: (reason: string) => void = () => {};
  #preloadTimer: NodeJS.Timeout | undefined;
  readonly #lifeTimer: NodeJS.Timeout;

  readonly options: HelperOptions;
  readonly socket: OpenSocket;

  constructor(options: HelperOptions, socket: OpenSocket) {
    this.options = options;
    this.socket = socket;
    this.stopped = new Promise<string>((resolve) => {
      this.#resolveStopped = resolve;
    });
    if (options.preloadAtStart) {
      this.memdirs.preloadLater(options.preloadAtStart.memoryDir, options.preloadAtStart.env);
      this.#schedulePreloads();
    }
    this.#lifeTimer = setInterval(
      () => this.#checkLife(),
      Math.min(options.checkMs ?? 1000, Math.max(50, options.idleMs)),
    );
  }

  /** A client connected: the helper is not idle. */
  touch(): void {
    this.#lastActivity = Date.now();
  }

  /** Answers one request line (null: not a request) on `socket`. */
  answer(socket: net.Socket, request: HelperRequest | null): void {
    const { paths } = this.options;
    // Not a request, or not from memdir's own client (no secret): closed, and nothing else.
    if (request === null || !secretMatches(request.secret, this.socket.secret)) return void socket.destroy();
    if (request.v !== HELPER_PROTOCOL || request.build !== paths.build) {
      socket.end(`${JSON.stringify({ other: true })}\n`);
      this.#stop("a client of another build asked");
      return;
    }
    if (request.op === "status" || request.op === "stop") {
      socket.end(`${ackLine()}${JSON.stringify(this.#status())}\n`);
      if (request.op === "stop") this.#stop("asked to stop");
      return;
    }
    if (request.op === "preload") {
      const queued = typeof request.dir === "string" && path.isAbsolute(request.dir);
      socket.end(`${ackLine()}${JSON.stringify({ queued })}\n`);
      if (queued) {
        this.memdirs.preloadLater(request.dir as string, request.env ?? {});
        this.#schedulePreloads();
      }
      return;
    }
    if (request.op === "watch") {
      // Not queued behind a run: it reads no memory and costs a few system calls, and a sync
      // waits for it before reading the memory dir.
      const dir = request.dir;
      const asked =
        typeof dir === "string" && path.isAbsolute(dir)
          ? this.changes.check(dir, typeof request.token === "string" ? request.token : undefined)
          : Promise.resolve({ unchanged: false, token: null });
      void asked.then((answer) => socket.end(`${ackLine()}${JSON.stringify(answer)}\n`));
      return;
    }
    this.#queueRun(socket, request);
  }

  #status() {
    return {
      pid: process.pid,
      socket: this.options.paths.socket,
      startedAt: this.startedAt,
      requests: this.#requests,
      memoryDirs: this.memdirs.dirs(),
      preloaded: [...this.#preloaded],
      watchedForSync: this.changes.dirs(),
    };
  }

  /** A CLI run, queued behind the others; its answer is written to `socket` when it is done. */
  #queueRun(socket: net.Socket, request: HelperRequest): void {
    clearTimeout(this.#preloadTimer); // rescheduled after this run: preloads wait for an idle helper
    // Behind another run, the client learns it was taken only when it starts: a client queued
    // behind a long run does the work itself instead of waiting for it.
    const ackedEarly = this.#runsQueued === 0 && !this.#running;
    if (ackedEarly) socket.write(ackLine());
    this.#runsQueued++;
    this.#enqueue(async () => {
      this.#runsQueued--;
      if (socket.destroyed || this.#stopReason !== null) return; // the client gave up waiting
      if (!ackedEarly) socket.write(ackLine());
      this.#requests++;
      const result = await this.#run(request);
      if (!socket.destroyed) {
        const [line, stdout] = resultFrame(result);
        socket.write(line);
        socket.end(stdout);
      }
      this.touch();
      await this.#betweenRequests();
    });
  }

  async #run(request: HelperRequest): Promise<HelperResult> {
    this.#running = true;
    try {
      return await this.options.run(request, this.memdirs);
    } catch (error) {
      return { stdout: "", stderr: `memdir: ${(error as Error)?.message ?? String(error)}\n`, code: 1 };
    } finally {
      this.#running = false;
    }
  }

  #enqueue(job: () => Promise<void>): void {
    this.#pending++;
    this.#queue = this.#queue.then(job);
    void this.#queue.finally(() => {
      this.#pending--;
      this.touch();
    });
  }

  // Between requests, in the queue (so never beside a run): the folder watchers' next safety
  // sweep; and once the helper has been idle for PRELOAD_AFTER_IDLE_MS, the memory dirs asked to
  // be loaded ahead of their first prompt (docs/design.md#the-memory-helper).
  async #betweenRequests(): Promise<void> {
    await yieldToEventLoop();
    this.memdirs.sweepAhead();
    this.#schedulePreloads();
  }

  #schedulePreloads(): void {
    clearTimeout(this.#preloadTimer);
    if (this.memdirs.hasPreloads() && this.#stopReason === null)
      this.#preloadTimer = setTimeout(() => this.#enqueue(() => this.#runPreloads()), PRELOAD_AFTER_IDLE_MS);
  }

  async #runPreloads(): Promise<void> {
    if (this.#runsQueued > 0) return; // a prompt came first: it loads its dir, and the next idle time the rest
    for (const { memoryDir, env } of this.memdirs.takePreloads()) {
      if (this.#stopReason !== null) break;
      try {
        if (await this.options.preload?.(memoryDir, env, this.memdirs)) this.#preloaded.add(memoryDir);
      } catch {
        // Not loaded ahead: its first prompt loads it, as without the preload.
      }
    }
  }

  /** Once per check interval: the reasons a helper ends (docs/design.md#the-memory-helper). */
  #checkLife(): void {
    const { paths, home, idleMs } = this.options;
    if (!fs.existsSync(home)) this.#stop(`its HOME ${home} is gone`);
    else if (inodeOf(paths.socket) !== this.socket.socketIno)
      this.#stop(`its socket ${paths.socket} was removed or replaced`);
    else if (inodeOf(paths.secret) !== this.socket.secretIno)
      this.#stop(`its secret ${paths.secret} was removed or replaced`);
    else if (this.options.buildChanged()) this.#stop("memdir was rebuilt or reinstalled");
    else if (this.#pending === 0 && Date.now() - this.#lastActivity >= idleMs)
      this.#stop(`idle for ${idleMs} ms`);
  }

  #stop(reason: string): void {
    if (this.#stopReason !== null) return;
    this.#stopReason = reason;
    const { paths } = this.options;
    clearInterval(this.#lifeTimer);
    clearTimeout(this.#preloadTimer);
    this.changes.close();
    this.socket.server.close();
    if (inodeOf(paths.socket) === this.socket.socketIno) fs.rmSync(paths.socket, { force: true });
    if (inodeOf(paths.secret) === this.socket.secretIno) fs.rmSync(paths.secret, { force: true });
    void this.#queue.then(() => this.memdirs.closeAll()).then(() => this.#resolveStopped(reason));
  }
}

/** The line that tells a client its request was taken. */
function ackLine(): string {
  return `${JSON.stringify({ ack: process.pid })}\n`;
}

/**
 * The last part of an answer: a JSON line with the exit code, stderr and stdout's length in
 * bytes, then stdout as it is. Not stdout inside the JSON: escaping a `list --json` of 20,000
 * memories into a string and parsing it back in the client took longer than the listing
 * (916 ms through the helper vs 478 ms alone, bench of 2026-12-02). Stdout is encoded once:
 * measuring its length and then writing the string encoded 10 MB twice (~18 ms each).
 */
function resultFrame(result: HelperResult): [string, Buffer] {
  const { stdout, ...rest } = result;
  const bytes = Buffer.from(stdout, "utf8");
  return [`${JSON.stringify({ ...rest, stdoutBytes: bytes.length })}\n`, bytes];
}

/** Listens on `socket`; a stale socket file is replaced, a live one means another helper: why not. */
async function listenOnce(server: net.Server, socket: string): Promise<string | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const failure = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once("error", resolve);
      server.listen(socket, () => {
        server.off("error", resolve);
        resolve(null);
      });
    });
    if (failure === null) return null;
    if (failure.code !== "EADDRINUSE") return `no helper: cannot listen on ${socket}: ${failure.message}`;
    if (await answers(socket)) return "another helper already serves this key";
    fs.rmSync(socket, { force: true });
  }
  return `no helper: ${socket} is in use`;
}

/** Whether something accepts connections on `socket` (a live helper). */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socket);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

/**
 * Writes the helper's secret to `file` (mode 0600, through a temporary file and a rename, so a
 * client never reads half of it); its inode, which the helper watches like its socket's.
 */
function writeSecret(file: string, secret: string): number | null {
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, `${secret}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
  return inodeOf(file);
}

function secretMatches(given: unknown, secret: string): boolean {
  if (typeof given !== "string" || given.length !== secret.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(secret));
}

function inodeOf(file: string): number | null {
  try {
    return fs.lstatSync(file).ino;
  } catch {
    return null;
  }
}

/**
 * Reads one JSON line from `socket`, then calls `done` (null: not a request — not JSON, longer
 * than {@link MAX_REQUEST_BYTES}, or not complete within {@link REQUEST_READ_MS}).
 */
function readRequest(socket: net.Socket, done: (request: HelperRequest | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const deadline = setTimeout(() => finish(null), REQUEST_READ_MS);
  const finish = (request: HelperRequest | null) => {
    if (finished) return;
    finished = true;
    clearTimeout(deadline);
    socket.off("data", onData);
    done(request);
  };
  const onData = (chunk: Buffer) => {
    const newline = chunk.indexOf(10);
    size += newline < 0 ? chunk.length : newline;
    if (size > MAX_REQUEST_BYTES) return finish(null);
    chunks.push(newline < 0 ? chunk : chunk.subarray(0, newline));
    if (newline < 0) return;
    try {
      const value = JSON.parse(Buffer.concat(chunks).toString("utf8")) as HelperRequest;
      finish(typeof value === "object" && value !== null ? value : null);
    } catch {
      finish(null);
    }
  };
  socket.on("data", onData);
  socket.on("error", () => finish(null));
  socket.on("end", () => finish(null));
}

function instanceKey(memoryDir: string, env: NodeJS.ProcessEnv): string {
  const switches = [persistedCacheEnabled(env), watchingEnabled(env), debugEnabled(env)].join(",");
  return `${memoryDir}\0${switches}`;
}

/** The helper's Memdir instances, watched, kept between requests. */
class MemdirCache implements MemdirProvider {
  readonly #open = new Map<string, Memdir>();

  kept(memoryDir: string, env: NodeJS.ProcessEnv): Memdir | undefined {
    return this.#open.get(instanceKey(memoryDir, env));
  }

  open(memoryDir: string, env: NodeJS.ProcessEnv): Memdir {
    const key = instanceKey(memoryDir, env);
    let memdir = this.#open.get(key);
    if (memdir === undefined) {
      memdir = openMemdir(memoryDir, { env, watch: true });
      if (this.#open.size >= KEPT_MEMDIRS) {
        const [oldest, instance] = this.#open.entries().next().value as [string, Memdir];
        this.#open.delete(oldest);
        void instance.close();
      }
    } else this.#open.delete(key);
    this.#open.set(key, memdir);
    return memdir;
  }

  readonly #preloads = new Map<string, { memoryDir: string; env: NodeJS.ProcessEnv }>();

  sweepAhead(): void {
    for (const memdir of this.#open.values()) memdir.sweepAhead();
  }

  preloadLater(memoryDir: string, env: NodeJS.ProcessEnv): void {
    this.#preloads.set(instanceKey(memoryDir, env), { memoryDir, env });
  }

  hasPreloads(): boolean {
    return this.#preloads.size > 0;
  }

  /** The memory dirs asked to be loaded ahead, each once; the list is emptied. */
  takePreloads(): { memoryDir: string; env: NodeJS.ProcessEnv }[] {
    const all = [...this.#preloads.values()];
    this.#preloads.clear();
    return all;
  }

  dirs(): string[] {
    return [...new Set([...this.#open.values()].map((memdir) => memdir.memoryDir))];
  }

  async closeAll(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, 2000);
    });
    await Promise.race([Promise.all(all.map((memdir) => memdir.close())), bound]);
    clearTimeout(timer);
  }
}
