import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MemdirError } from "../errors.ts";

/** The writer lock inside the memory dir (a dot-file: never a memory, never scanned). */
export const WRITE_LOCK_FILE = ".memdir-write.lock";

export interface LockOptions {
  /** How long to wait for another holder before failing with `lock-timeout` (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is taken over even when its holder looks alive (default 30 s). */
  staleMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
// Writers hold the lock for milliseconds; 30 s without release means a hung or foreign holder.
const DEFAULT_STALE_MS = 30_000;

// Directories this async context already holds, so nested calls (a caller holding the lock who
// then calls saveMemory) re-enter instead of waiting for themselves forever.
const held = new AsyncLocalStorage<Set<string>>();

interface Holder {
  pid: number;
  host: string;
  /** The lock body as read, to make sure we remove the same stale lock we judged. */
  body: string;
  mtimeMs: number;
}

/**
 * Runs `fn` while holding the memory dir's writer lock: a file created with `open(…, "wx")`
 * holding the PID and host of its holder. A lock whose holder process is dead (same host) or that
 * is older than `staleMs` is taken over; otherwise the caller waits with jittered back-off up to
 * `timeoutMs` and then fails with `MemdirError("lock-timeout")` naming the holder.
 * Re-entrant within one async call chain.
 *
 * @example
 * await withMemoryLock(memoryDir, async () => { … read MEMORY.md, change it, write it … });
 */
export async function withMemoryLock<T>(
  memoryDir: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const dir = path.resolve(memoryDir);
  const mine = held.getStore();
  if (mine?.has(dir)) return fn();
  const lockPath = path.join(dir, WRITE_LOCK_FILE);
  const body = await acquire(lockPath, options);
  try {
    return await held.run(new Set([...(mine ?? []), dir]), fn);
  } finally {
    await release(lockPath, body);
  }
}

/**
 * A lock file's content. PID first (docs/design.md#locks: "holder PID inside"), then host and time for people;
 * the token makes each acquisition's body unique so release and stale removal never mistake one
 * lock for another.
 */
function lockBody(): string {
  const token = Math.random().toString(36).slice(2);
  return `${process.pid}\n${os.hostname()}\n${new Date().toISOString()}\n${token}\n`;
}

/**
 * Creates `lockPath` exclusively (O_EXCL) holding `body`, making its folder when missing: true
 * when this call created it, false when it already exists.
 */
async function createLockFile(lockPath: string, body: string): Promise<boolean> {
  for (;;) {
    try {
      const handle = await fs.open(lockPath, "wx");
      try {
        await handle.writeFile(body);
      } finally {
        await handle.close();
      }
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return false;
      if (code === "ENOENT") {
        await fs.mkdir(path.dirname(lockPath), { recursive: true });
        continue;
      }
      throw new MemdirError("io", `lock: cannot create ${lockPath}: ${code ?? String(error)}`, {
        cause: error,
      });
    }
  }
}

async function acquire(lockPath: string, options: LockOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const body = lockBody();
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  for (;;) {
    if (await createLockFile(lockPath, body)) return body;
    const holder = await readHolder(lockPath);
    if (holder && isStale(holder, staleMs)) {
      await removeStale(lockPath, holder);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder ? `process ${holder.pid} on ${holder.host}` : "another process";
      throw new MemdirError(
        "lock-timeout",
        `lock: ${lockPath} is held by ${who}; gave up after ${timeoutMs} ms. ` +
          "If no memdir writer is running, delete that file.",
      );
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 10); // saves take ~15 ms: poll often enough not to idle
  }
}

async function readHolder(lockPath: string): Promise<Holder | null> {
  try {
    const [body, stat] = await Promise.all([fs.readFile(lockPath, "utf8"), fs.stat(lockPath)]);
    const [pidText = "", host = ""] = body.split("\n");
    return { pid: Number.parseInt(pidText, 10), host, body, mtimeMs: stat.mtimeMs };
  } catch {
    return null; // released between our attempt and the read: just retry
  }
}

function isStale(holder: Holder, staleMs: number): boolean {
  if (Date.now() - holder.mtimeMs > staleMs) return true;
  // A holder killed between creating the file and writing its PID leaves an empty body; it is
  // judged by age alone (a live writer fills the body within microseconds).
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return Date.now() - holder.mtimeMs > 1000;
  if (holder.host !== os.hostname()) return false; // cannot see another machine's processes
  return !processIsAlive(holder.pid);
}

/** True when a process with this PID exists (EPERM: it exists but belongs to another user). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes a stale lock. Two waiters may judge the same lock stale at once; the lock is first
 * renamed to a unique name (only one rename of a given file succeeds) and the moved body is
 * compared with what was judged, so a fresh lock taken meanwhile is put back, not deleted.
 */
async function removeStale(lockPath: string, holder: Holder): Promise<void> {
  const aside = `${lockPath}.${process.pid}.${Math.random().toString(36).slice(2)}.stale`;
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return; // someone else moved or released it
  }
  const moved = await fs.readFile(aside, "utf8").catch(() => null);
  if (moved !== null && moved !== holder.body) {
    // We moved a live lock: put it back unless yet another lock already took its place.
    await fs.link(aside, lockPath).catch(() => undefined);
  }
  await fs.rm(aside, { force: true });
}

async function release(lockPath: string, body: string): Promise<void> {
  // Only remove our own lock: if it was (wrongly) taken over, the new holder keeps theirs.
  const current = await fs.readFile(lockPath, "utf8").catch(() => null);
  if (current === body) await fs.rm(lockPath, { force: true });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A lock file taken with {@link tryLockFile}. */
export interface HeldLockFile {
  readonly path: string;
  /** Touches the lock so a long holder is not judged stale by age (a heartbeat). */
  refresh(): Promise<void>;
  /** Removes the lock if it is still this holder's. */
  release(): Promise<void>;
}

/**
 * Takes the lock file at `lockPath` without waiting: the same O_EXCL file, PID body and stale
 * takeover as {@link withMemoryLock} (a holder that is dead on this host, or whose lock was not
 * touched for `staleMs`, is replaced), but when a live holder has it the answer is `null` at
 * once. For long, one-at-a-time jobs (background extraction, cache warm-up) that skip or queue
 * rather than wait. Creates the lock's folder.
 *
 * @example
 * const lock = await tryLockFile(path.join(memoryDir, ".memdir-extract", "lock"), { staleMs: 120_000 });
 * if (lock === null) return "another run is in progress";
 * try { … } finally { await lock.release(); }
 */
export async function tryLockFile(
  lockPath: string,
  options: { staleMs: number },
): Promise<HeldLockFile | null> {
  const body = lockBody();
  // A few rounds: each stale takeover may lose to another process taking the lock first.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createLockFile(lockPath, body)) {
      return {
        path: lockPath,
        refresh: async () => {
          const current = await fs.readFile(lockPath, "utf8").catch(() => null);
          if (current === body) await fs.utimes(lockPath, new Date(), new Date()).catch(() => undefined);
        },
        release: () => release(lockPath, body),
      };
    }
    const holder = await readHolder(lockPath);
    if (holder === null) continue; // released meanwhile: try again
    if (!isStale(holder, options.staleMs)) return null;
    await removeStale(lockPath, holder);
  }
  return null;
}

/**
 * The PID in the lock file at `lockPath` when a live process on this host holds it, else null
 * (no lock, a dead holder's, or one older than `staleMs`). A cheap look for "is one running?".
 */
export async function liveLockHolder(lockPath: string, options: { staleMs: number }): Promise<number | null> {
  const holder = await readHolder(lockPath);
  if (holder === null || isStale(holder, options.staleMs)) return null;
  return holder.pid;
}
