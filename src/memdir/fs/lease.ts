import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { processMemo } from "../../process-memo.ts";

/**
 * One lock-file lease for every lock memdir takes (the writer lock, the extraction queue, the
 * warm-up, the consolidation lock's acquire step; docs/design.md#locks). A lease is a file whose
 * body names its holder: PID first, then host, the holder process's start time, the time taken,
 * and a token unique to this acquisition. It is created with its body already inside (written to
 * a temp file, then hard-linked into place: `link` fails when the name exists, like `O_EXCL`), so
 * no one ever sees an empty lock. A lease whose holder is dead on this host (or whose PID now
 * belongs to a younger process), or that was not refreshed for `staleMs`, is taken over.
 */
export interface Lease {
  readonly path: string;
  /** True while the lock file still holds this lease's body (not taken over, not removed). */
  holds(): Promise<boolean>;
  /** Touches the lock so a long holder is not judged stale by age. A no-op once lost. */
  refresh(): Promise<void>;
  /** Refreshes every `intervalMs` until released (the timer never keeps the process alive). */
  keepFresh(intervalMs: number): void;
  /** Removes the lock if it is still this lease's. */
  release(): Promise<void>;
}

/** What a lock file says about its holder. */
export interface LeaseHolder {
  pid: number;
  host: string;
  /** When the holder process started (ms since the epoch), or null in an older memdir's lock. */
  processStartMs: number | null;
  /** The whole body, to make sure a stale lock removed is the one that was judged. */
  body: string;
  mtimeMs: number;
}

export interface LeaseOptions {
  /** A lease not refreshed for this long is taken over even when its holder looks alive. */
  staleMs: number;
}

/** True when a process with this PID exists (EPERM: it exists but belongs to another user). */
export function processIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** This process's start time, rounded to the millisecond. */
const OWN_START_MS = Math.round(performance.timeOrigin);

/**
 * When process `pid` started, read from Linux's `/proc` (start ticks since boot + boot time),
 * or null where that cannot be read. Used only after it proved right for this very process
 * (within 2 s), so a wrong assumption about clock ticks can never make a live holder look dead.
 */
function processStartMs(pid: number): number | null {
  if (process.platform !== "linux") return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const startTicks = Number(fields[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(bootSeconds)) return null;
    return bootSeconds * 1000 + (startTicks / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return null;
  }
}
// USER_HZ: 100 on every Linux architecture Node supports.
const CLOCK_TICKS_PER_SECOND = 100;
const START_TIME_TOLERANCE_MS = 2_000;
// A lock without a readable PID: only the O_EXCL fallback writes one, for moments; 10 s is far
// beyond any stall between its create and its write, even on a loaded box (it was 1 s, which a
// stalled holder on a loaded 2-core machine did exceed).
const EMPTY_LOCK_STALE_MS = 10_000;

/** Whether {@link processStartMs} gives this process's own start time (checked on each use: two small reads). */
function startTimeCheckWorks(): boolean {
  const own = processStartMs(process.pid);
  return own !== null && Math.abs(own - OWN_START_MS) < START_TIME_TOLERANCE_MS;
}

/**
 * True when `holder` no longer holds its lease: not refreshed for `staleMs`, or on this host with
 * a dead PID, or with a PID that a younger process has since taken.
 */
export function isLeaseStale(holder: LeaseHolder, staleMs: number, now = Date.now()): boolean {
  if (now - holder.mtimeMs > staleMs) return true;
  // No PID: an O_EXCL fallback's holder between create and write, or not a lease at all.
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return now - holder.mtimeMs > EMPTY_LOCK_STALE_MS;
  if (holder.host !== os.hostname()) return false; // cannot see another machine's processes
  if (!processIsAlive(holder.pid)) return true;
  if (holder.processStartMs === null || !startTimeCheckWorks()) return false;
  const started = processStartMs(holder.pid);
  return started !== null && Math.abs(started - holder.processStartMs) > START_TIME_TOLERANCE_MS;
}

/**
 * The start time this process writes into its leases: on Linux the very `/proc` reading a judge
 * makes of its PID ({@link processStartMs}), so the two agree exactly; elsewhere Node's time origin.
 * Not the time origin on Linux: `/proc` counts from the fork and rounds the boot time down to a
 * second, Node's origin comes after exec and start-up, and a holder exec'd by a slow wrapper or
 * started on a loaded box was more than 2 s off, so a live writer was judged a younger process on
 * a reused PID and lost its lock (docs/design.md#locks).
 */
export function ownProcessStartMs(): number {
  // Read once: a process's start never changes, and a long-lived helper takes many locks.
  return processMemo(OWN_PROC_START, () => processStartMs(process.pid) ?? OWN_START_MS);
}

/** The key of this process's `/proc` start time among the process memos. */
const OWN_PROC_START = Symbol("own-process-start");

function leaseBody(): string {
  const token = randomBytes(8).toString("hex");
  return `${process.pid}\n${os.hostname()}\n${ownProcessStartMs()}\n${new Date().toISOString()}\n${token}\n`;
}

/** The holder named in the lock file at `lockPath`, or null when there is none (or it vanished). */
export async function readLeaseHolder(lockPath: string): Promise<LeaseHolder | null> {
  try {
    const [body, stat] = await Promise.all([fs.readFile(lockPath, "utf8"), fs.stat(lockPath)]);
    const [pidText = "", host = "", startText = ""] = body.split("\n");
    const start = Number(startText);
    return {
      pid: Number.parseInt(pidText, 10),
      host,
      processStartMs: /^\d+$/.test(startText) && Number.isFinite(start) ? start : null,
      body,
      mtimeMs: stat.mtimeMs,
    };
  } catch {
    return null;
  }
}

/** Puts `body` at `lockPath` only if nothing is there: true when this call created it. */
async function createLockFile(lockPath: string, body: string): Promise<boolean> {
  const temp = `${lockPath}.${process.pid}.${randomBytes(6).toString("hex")}.new`;
  for (;;) {
    try {
      await fs.writeFile(temp, body, { flag: "wx" });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") throw ioError(lockPath, error);
      await fs.mkdir(path.dirname(lockPath), { recursive: true });
    }
  }
  try {
    await fs.link(temp, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // File systems without hard links (FAT, exFAT, some network mounts): an O_EXCL create, with
    // the short window in which the lock is empty (judged stale only by age, see isLeaseStale).
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP")
      return createExclusive(lockPath, body);
    throw ioError(lockPath, error);
  } finally {
    await fs.rm(temp, { force: true });
  }
}

async function createExclusive(lockPath: string, body: string): Promise<boolean> {
  try {
    await fs.writeFile(lockPath, body, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw ioError(lockPath, error);
  }
}

function ioError(lockPath: string, error: unknown): MemdirError {
  const code = (error as NodeJS.ErrnoException).code;
  return new MemdirError("io", `lock: cannot create ${lockPath}: ${code ?? String(error)}`, { cause: error });
}

/**
 * Removes a stale lock. Two waiters may judge the same lock stale at once; the lock is first
 * renamed to a unique name (only one rename of a given file succeeds) and the moved body is
 * compared with what was judged, so a fresh lease taken meanwhile is put back, not deleted (its
 * holder checks {@link Lease.holds} before committing, should even that lose a race).
 */
async function removeStale(lockPath: string, holder: LeaseHolder): Promise<void> {
  const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString("hex")}.stale`;
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return; // someone else moved or released it
  }
  const moved = await fs.readFile(aside, "utf8").catch(() => null);
  if (moved !== null && moved !== holder.body) await fs.link(aside, lockPath).catch(() => undefined);
  await fs.rm(aside, { force: true });
}

function heldLease(lockPath: string, body: string): Lease {
  let timer: NodeJS.Timeout | undefined;
  const holds = async () => (await fs.readFile(lockPath, "utf8").catch(() => null)) === body;
  const refresh = async () => {
    if (await holds()) await fs.utimes(lockPath, new Date(), new Date()).catch(() => undefined);
  };
  return {
    path: lockPath,
    holds,
    refresh,
    keepFresh(intervalMs) {
      clearInterval(timer);
      timer = setInterval(() => void refresh(), intervalMs);
      timer.unref();
    },
    async release() {
      clearInterval(timer);
      if (await holds()) await fs.rm(lockPath, { force: true });
    },
  };
}

/**
 * Takes the lease at `lockPath` without waiting: a live holder's lease gives `null` at once; a
 * stale one is taken over. For one-at-a-time jobs that skip or queue rather than wait.
 *
 * @example
 * const lease = await tryTakeLease(path.join(memoryDir, ".memdir-extract", "lock"), { staleMs: 120_000 });
 * if (lease === null) return "another run is in progress";
 * try { … } finally { await lease.release(); }
 */
export async function tryTakeLease(lockPath: string, options: LeaseOptions): Promise<Lease | null> {
  const body = leaseBody();
  // A few rounds: each stale takeover may lose to another process taking the lock first.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createLockFile(lockPath, body)) return heldLease(lockPath, body);
    const holder = await readLeaseHolder(lockPath);
    if (holder === null) continue; // released meanwhile: try again
    if (!isLeaseStale(holder, options.staleMs)) return null;
    await removeStale(lockPath, holder);
  }
  return null;
}

/**
 * Takes the lease at `lockPath`, waiting with jittered back-off for a live holder up to
 * `timeoutMs`, then failing with `MemdirError("lock-timeout")` naming the holder.
 */
export async function takeLease(
  lockPath: string,
  options: LeaseOptions & { timeoutMs: number },
): Promise<Lease> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 1;
  for (;;) {
    const lease = await tryTakeLease(lockPath, options);
    if (lease) return lease;
    if (Date.now() >= deadline) {
      const holder = await readLeaseHolder(lockPath);
      const who = holder ? `process ${holder.pid} on ${holder.host}` : "another process";
      throw new MemdirError(
        "lock-timeout",
        `lock: ${lockPath} is held by ${who}; gave up after ${options.timeoutMs} ms. ` +
          "If no memdir writer is running, delete that file.",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 10); // saves take ~15 ms: poll often enough not to idle
  }
}

/**
 * The PID in the lock file at `lockPath` when a live holder has it, else null (no lock, a dead
 * holder's, or one not refreshed for `staleMs`). A cheap look for "is one running?".
 */
export async function liveLeaseHolder(lockPath: string, options: LeaseOptions): Promise<number | null> {
  const holder = await readLeaseHolder(lockPath);
  if (holder === null || isLeaseStale(holder, options.staleMs)) return null;
  return holder.pid;
}
