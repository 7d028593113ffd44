#!/usr/bin/env node
// The CLI entry: runs the compiled sources (built by `npm run build`, which `npm ci` runs via `prepare`).
//
// First, the memory helper's fast path (docs/design.md#the-memory-helper): `memdir hook
// user-prompt-submit`, `memdir hook session-start` and `memdir list` are asked of the per-user
// helper process over its unix socket, loading nothing but node builtins (Node 20 has no compile
// cache: loading the recall code alone costs a fresh process ~60 ms). When no helper answers in
// time, or it is of another build, or MEMDIR_HELPER=0, the command runs here as it always did,
// with the same answer. The socket's name and the build identity are computed as in
// src/helper/paths.ts: change both together.
// CommonJS (bin/package.json), not ESM: an ES module entry costs a fresh process ~4-5 ms more
// (measured: an empty .mjs 27.8 ms vs an empty .cjs 22.1 ms beside `node -e 0` 22.8 ms), and this
// file runs on every prompt.
"use strict";
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");

const started = performance.now();
const PROTOCOL = 2;
const DEFAULT_HOOK_TIMEOUT_MS = 8000; // DEFAULT_HOOK_TIMEOUT_MS of src/cli/commands/hook.ts
/** How long a client waits for a helper to take its request before doing the work itself. */
const ACK_WAIT_MS = 300;
/** MAX_REQUEST_BYTES of src/helper/server.ts: a longer request is not sent (the helper refuses it). */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** MAX_HOOK_INPUT_BYTES of src/hooks/bounded.ts: a hook reads no more of its stdin. */
const MAX_HOOK_INPUT_BYTES = 4 * 1024 * 1024;
/** What readStdin answers for a stdin longer than MAX_HOOK_INPUT_BYTES. */
const TOO_LARGE = Symbol("too large");
/** The host spellings of the hooks the helper answers (normalizeHookEvent, squashed). */
const FAST_EVENTS = {
  sessionstart: "session-start",
  userpromptsubmit: "user-prompt-submit",
  beforeagent: "before-agent",
};
const mainFile = path.join(__dirname, "..", "dist", "cli", "main.js");

const given = process.argv.slice(2);
// `memdir --version` / `-V` (src/cli/version.ts, isVersionRequest): read here, without loading the CLI.
if (given.length === 1 && (given[0] === "--version" || given[0] === "-V")) {
  const version = packageVersion(path.dirname(__dirname));
  answerAndExit({ stdout: `${version || "unknown"}\n`, stderr: "", code: 0 });
} else {
  const fast = fastPathOf(given, process.env);
  if (fast === null) inProcess(undefined);
  else viaHelper(fast);
}

/** The request the helper may answer, or null: run in this process. */
function fastPathOf(args, env) {
  const off = (env.MEMDIR_HELPER ?? "").trim().toLowerCase();
  if (process.platform === "win32" || off === "0" || off === "false" || off === "off") return null;
  if (args.some((arg) => arg === "-h" || arg === "--help")) return null;
  if (args[0] === "list") return { args, hook: null, boundMs: null };
  if (args[0] !== "hook" || args[1] === undefined) return null;
  const hook = FAST_EVENTS[args[1].toLowerCase().replace(/[^a-z]/g, "")];
  if (hook === undefined) return null;
  let given = env.MEMDIR_HOOK_TIMEOUT_MS || undefined;
  for (let i = 2; i < args.length; i++) {
    if (args[i] === "--timeout-ms") given = args[i + 1];
    else if (args[i].startsWith("--timeout-ms=")) given = args[i].slice("--timeout-ms=".length);
  }
  const boundMs = given === undefined ? DEFAULT_HOOK_TIMEOUT_MS : Number(given);
  // A bad bound is the in-process hook's to report.
  if (!Number.isFinite(boundMs) || boundMs <= 0) return null;
  return { args, hook, boundMs };
}

async function viaHelper({ args, hook, boundMs }) {
  // The connection first: the kernel makes it while stdin is read, mostly at once (readStdin).
  let paths = null;
  let asking = null;
  try {
    paths = helperPaths(process.env.HOME);
    if (paths !== null) asking = startAsking(paths);
  } catch {
    // Whatever went wrong here (a cwd that is gone), the process does the work itself.
  }
  const stdinRead = hook === null ? Promise.resolve(undefined) : readStdin(boundMs);
  const stdin = await stdinRead;
  if (stdin === TOO_LARGE) {
    asking?.cancel();
    // What the in-process hook answers (src/cli/commands/hook.ts).
    answerAndExit({
      stdout: "{}\n",
      stderr: `memdir: hook ${hook}: stdin is over ${MAX_HOOK_INPUT_BYTES / (1024 * 1024)} MB, no hook's JSON; stopped reading; nothing to add\n`,
      code: 0,
    });
    return;
  }
  if (stdin === null) {
    asking?.cancel();
    // What the in-process hook answers when its host never closes stdin.
    answerAndExit({ stdout: "{}\n", stderr: `memdir: hook ${hook}: timed out after ${boundMs} ms\n`, code: 0 });
    return;
  }
  let answer = { kind: "none" };
  try {
    const request = {
      v: PROTOCOL,
      build: paths?.build,
      secret: paths === null ? "" : readSecret(paths.secret),
      args,
      cwd: process.cwd(),
      env: process.env,
      stdin,
    };
    if (asking !== null) answer = await asking.send(request, boundMs);
  } catch {
    asking?.cancel();
  }
  if (answer.kind === "result") {
    answerAndExit(answer);
    return;
  }
  if (answer.kind === "late") {
    // The helper took the request and then went silent: the bound is spent, as in-process it would be.
    answerAndExit({
      stdout: "{}\n",
      stderr: `memdir: hook ${hook}: the memory helper (pid ${answer.pid}) did not answer within ${boundMs} ms; nothing to add\n`,
      code: 0,
    });
    return;
  }
  // No helper (or a stale socket, or one of another build, which has now exited): the prompt
  // hook starts one for the next prompt (session-start starts its own), then does the work itself.
  if (paths !== null && answer.startOne && hook !== null && hook !== "session-start") startHelper(paths);
  if (hook === null) return inProcess(undefined);
  const left = Math.max(1, Math.round(started + boundMs - performance.now()));
  return inProcess(stdin, [...process.argv, "--timeout-ms", String(left)]);
}

/**
 * Writes an answer to fds 2 and 1 and exits: nothing else is left to run here (a natural exit of
 * `list` waited ~3 ms more for the closed socket's handles). Written with fs.writeSync, not the
 * process.stdout/stderr streams, which this process would make only for this: making them cost
 * ~7 M and ~10 M instructions, as much as a fifth of `node -e 0` (callgrind). A stream is used
 * only for what a non-blocking descriptor does not take at once (EAGAIN).
 */
function answerAndExit({ stdout, stderr, code }) {
  const pending = [];
  if (stderr !== "") pending.push(writeFully(2, stderr, () => process.stderr));
  pending.push(writeFully(1, stdout, () => process.stdout));
  const waits = pending.filter((wait) => wait !== null);
  if (waits.length === 0) process.exit(code);
  Promise.all(waits).then(() => process.exit(code));
}

/** Writes `data` to `fd`; null when done, else a promise of the rest written through `stream()`. */
function writeFully(fd, data, stream) {
  let bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  try {
    while (bytes.length > 0) bytes = bytes.subarray(fs.writeSync(fd, bytes));
    return null;
  } catch (error) {
    // A reader that is gone (EPIPE) gets nothing more; a busy non-blocking one the rest, later.
    if (error.code !== "EAGAIN") return null;
    return new Promise((resolve) => stream().write(bytes, resolve));
  }
}

/** Runs the CLI in this process (stdin already read, when given), as without the helper. */
async function inProcess(stdin, argv = process.argv) {
  // A reader that went away (`memdir list | head`) ends the output, not with a stack trace.
  process.stdout.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  await import("../dist/cli/compile-cache.js");
  const { main, mustExitAfter } = await import("../dist/cli/main.js");
  const options =
    stdin === undefined
      ? {}
      : {
          io: {
            stdout: (text) => process.stdout.write(text),
            stderr: (text) => process.stderr.write(text),
            stdin: async () => stdin,
          },
        };
  return main(argv, options).then(
    (code) => {
      process.exitCode = code;
      // A hook has answered: exit even if its host never closes stdin.
      if (mustExitAfter(argv)) process.stdout.write("", () => process.exit(code));
    },
    (error) => {
      process.stderr.write(`memdir: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

/**
 * All of stdin as UTF-8 ("" for a TTY), null when it did not close within `boundMs`, TOO_LARGE
 * past MAX_HOOK_INPUT_BYTES (then it reads no further).
 *
 * Hosts write the payload and close stdin as they start the hook, so it is mostly all there by
 * now, and read at once without blocking (readStdinNow); the stream, whose first data comes ~3 ms
 * after it is made, reads only the rest of a stdin still open. Never a blocking read of fd 0: one
 * blocked in the thread pool on a stdin its host never closes keeps the process from exiting at
 * all (Node joins the pool's threads at exit), where the hook must answer at its bound.
 */
function readStdin(boundMs) {
  const chunks = [];
  let now;
  try {
    now = readStdinNow(chunks);
  } catch {
    now = "stream"; // the stream reads what is left, and reports what it cannot
  }
  if (now === "too large") return Promise.resolve(TOO_LARGE);
  if (now === "closed") return Promise.resolve(Buffer.concat(chunks).toString("utf8"));
  if (process.stdin.isTTY) return Promise.resolve("");
  let size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      process.stdin.destroy();
      resolve(null);
    }, boundMs);
    process.stdin.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_HOOK_INPUT_BYTES) {
        clearTimeout(timer);
        process.stdin.destroy();
        resolve(TOO_LARGE);
      }
      chunks.push(chunk);
    });
    process.stdin.on("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    process.stdin.on("error", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

/**
 * Reads into `chunks` what stdin holds now without waiting: "closed" when that was all of it,
 * "too large" past MAX_HOOK_INPUT_BYTES, else "stream" (the rest, if any, comes from the stream). A file is read whole; a pipe through a
 * non-blocking descriptor of its own (Linux's /proc/self/fd/0), so fd 0's own flags stay the
 * host's; a socket (Node hosts' stdin) through fd 0 once making `process.stdin` has set it
 * non-blocking, as the stream would anyway.
 */
function readStdinNow(chunks) {
  const stat = fs.fstatSync(0);
  let fd = 0;
  if (stat.isFIFO()) {
    if (process.platform !== "linux") return "stream";
    fd = fs.openSync("/proc/self/fd/0", fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } else if (stat.isSocket()) {
    if (process.stdin.isTTY) return "stream";
  } else if (!stat.isFile()) return "stream"; // a TTY or a device
  let size = 0;
  try {
    for (;;) {
      if (size > MAX_HOOK_INPUT_BYTES) return "too large";
      const buffer = Buffer.allocUnsafe(65536);
      let read;
      try {
        read = fs.readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if (error.code === "EAGAIN") return "stream";
        throw error;
      }
      if (read === 0) return "closed";
      size += read;
      chunks.push(buffer.subarray(0, read));
    }
  } finally {
    if (fd !== 0) fs.closeSync(fd);
  }
}

/**
 * Connects to the helper at once; `send` then asks it: `result` (its stdout as bytes, stderr,
 * exit code), `late` (it took the request but did not answer within the hook's bound), or `none`
 * (no socket, refused, no acknowledgement within ACK_WAIT_MS, another build: `startOne` when no
 * helper serves this key).
 */
function startAsking(paths) {
  const unsafe = unsafeDir(paths.dir);
  if (unsafe) {
    const none = { kind: "none", startOne: unsafe === "missing" };
    return { send: () => Promise.resolve(none), cancel() {} };
  }
  let connection = connect(paths.socket);
  const noHelper = (error) => ({
    kind: "none",
    startOne: error.code === "ENOENT" || error.code === "ECONNREFUSED",
  });
  const send = (request, boundMs) =>
    new Promise((resolve) => {
      const line = `${JSON.stringify(request)}\n`;
      // The helper would refuse it (MAX_REQUEST_BYTES): the work is done here.
      if (Buffer.byteLength(line) > MAX_REQUEST_BYTES) {
        connection.socket.destroy();
        return resolve({ kind: "none", startOne: false });
      }
      // The helper closes a connection that sent no request within REQUEST_READ_MS (a host slow
      // to write stdin): ask on a new one.
      if (connection.ended && connection.failed === null) {
        connection.socket.destroy();
        connection = connect(paths.socket);
      }
      const socket = connection.socket;
      let timer;
      let pid = null;
      const done = (answer) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(answer);
      };
      if (connection.failed !== null) return done(noHelper(connection.failed));
      connection.onFailure = (error) => done(noHelper(error));
      const wait = (ms, answer) => {
        clearTimeout(timer);
        timer = setTimeout(() => done(answer), ms);
      };
      wait(ACK_WAIT_MS, { kind: "none", startOne: false });
      connection.sent = true;
      if (connection.connected) socket.write(line);
      else connection.onConnect = () => socket.write(line);
      // Bytes, not strings: after the acknowledgement the answer is only collected (searching a
      // growing string at each chunk made a 10 MB `list --json` quadratic, 668 ms of CPU at
      // 20,000 memories), then written out as it came.
      let head = Buffer.alloc(0);
      const answerChunks = [];
      socket.on("data", (chunk) => {
        if (pid !== null) {
          answerChunks.push(chunk);
          return;
        }
        head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
        const newline = head.indexOf(10);
        if (newline < 0) return;
        const first = parseLine(head.toString("utf8", 0, newline));
        answerChunks.push(head.subarray(newline + 1));
        if (first?.other === true) return done({ kind: "none", startOne: true });
        if (typeof first?.ack !== "number") return done({ kind: "none", startOne: false });
        pid = first.ack;
        // The helper's own bound answers first; a list has none, so a generous one.
        wait(boundMs === null ? 120_000 : boundMs + 1000, { kind: "late", pid });
      });
      socket.on("end", () => {
        // A JSON line (code, stderr, stdout's length in bytes), then stdout as it is (resultFrame).
        const answer = Buffer.concat(answerChunks);
        const newline = answer.indexOf(10);
        const result = pid === null || newline < 0 ? null : parseLine(answer.toString("utf8", 0, newline));
        const stdout = answer.subarray(newline + 1);
        if (
          result === null ||
          typeof result.code !== "number" ||
          result.fallback !== undefined ||
          result.stdoutBytes !== stdout.length
        )
          return done({ kind: "none", startOne: false });
        done({ kind: "result", stdout, stderr: String(result.stderr), code: result.code });
      });
    });
  return { send, cancel: () => connection.socket.destroy() };
}

/**
 * A connection to the helper's socket; until a request is sent on it, a failure, the connection
 * and its end (the helper closing it) are only remembered.
 */
function connect(socketFile) {
  const socket = net.connect(socketFile);
  const connection = { socket, failed: null, connected: false, ended: false, sent: false };
  connection.onFailure = (error) => {
    connection.failed = error;
  };
  connection.onConnect = () => {
    connection.connected = true;
  };
  socket.on("error", (error) => connection.onFailure(error));
  socket.on("connect", () => connection.onConnect());
  socket.on("end", () => {
    if (!connection.sent) connection.ended = true;
  });
  return connection;
}

/** The helper's secret (src/helper/paths.ts readHelperSecret), "" when there is none to read. */
function readSecret(file) {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

function parseLine(line) {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** Starts `memdir helper serve` detached, unless another start is under way (its marker file). */
async function startHelper(paths) {
  try {
    fs.mkdirSync(path.dirname(paths.dir), { recursive: true });
    try {
      fs.mkdirSync(paths.dir, { mode: 0o700 });
    } catch (error) {
      if (error.code !== "EEXIST") return;
    }
    if (unsafeDir(paths.dir)) return;
    try {
      fs.writeFileSync(paths.starting, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
    } catch (error) {
      // Another start within 10 s (STARTING_STALE_MS): leave it to that one.
      if (error.code !== "EEXIST" || Date.now() - fs.statSync(paths.starting).mtimeMs < 10_000) return;
      fs.writeFileSync(paths.starting, `${process.pid}\n`, { mode: 0o600 });
    }
    // A helper another prompt started may have begun listening (and removed its marker) since
    // this client found none: then it serves, and a second start would only exit again.
    if (await socketAnswers(paths.socket)) {
      fs.rmSync(paths.starting, { force: true });
      return;
    }
    const { spawn } = require("node:child_process");
    const child = spawn(process.execPath, [...process.execArgv, __filename, "helper", "serve"], {
      detached: true,
      stdio: "ignore",
      env: process.env,
      cwd: "/",
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No helper this time: the hook does its work itself anyway.
  }
}

/** Whether something accepts connections on `socket` (a live helper). */
function socketAnswers(socket) {
  return new Promise((resolve) => {
    const probe = net.connect(socket);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

/** src/helper/paths.ts helperPaths, in plain JavaScript. */
function helperPaths(home) {
  const uid = process.getuid?.();
  if (!home || uid === undefined) return null;
  let identity;
  try {
    const stat = fs.statSync(mainFile);
    const version = packageVersion(path.dirname(path.dirname(mainFile)));
    identity = [PROTOCOL, version, stat.dev, stat.ino, stat.size, stat.mtimeMs].join(":");
  } catch {
    return null;
  }
  const build = JSON.stringify([identity, process.execPath, home, uid]);
  const name = `${shortHash(build)}.sock`;
  let dir = path.join(home, ".cache", "memdir", "helper");
  // node:os only here (~0.3 ms to load): a HOME whose socket path would not fit an address.
  if (Buffer.byteLength(path.join(dir, name)) > 103) dir = path.join(require("node:os").tmpdir(), `memdir-${uid}`);
  return {
    dir,
    socket: path.join(dir, name),
    starting: path.join(dir, `${name}.starting`),
    secret: path.join(dir, `${name}.secret`),
    build,
  };
}

function packageVersion(from) {
  let dir = from;
  for (let level = 0; level < 4; level++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      if (pkg.name === "memdir") return String(pkg.version);
    } catch {
      // not here: look further up
    }
    dir = path.dirname(dir);
  }
  return "";
}

function shortHash(text) {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** src/helper/paths.ts unsafeHelperDir: "missing", a reason, or null when fit. */
function unsafeDir(dir) {
  let stat;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    return "missing";
  }
  if (stat.isSymbolicLink() || !stat.isDirectory()) return "not a folder";
  if (stat.uid !== process.getuid() || (stat.mode & 0o077) !== 0) return "not private";
  return null;
}
