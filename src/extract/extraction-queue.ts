import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../memdir/fs/atomic.ts";
import { type Lease, liveLeaseHolder, tryTakeLease } from "../memdir/fs/lease.ts";
import { extractionStateDir, transcriptKey } from "./cursor-store.ts";

/**
 * One extraction at a time per memory dir, across processes (docs/design.md#coalescing, for agents whose
 * Stop hook starts a fresh `memdir extract` after every turn).
 *
 * - A lock file (`.memdir-extract/lock`, O_EXCL, holder PID inside) marks the running extraction.
 *   A killed holder's lock is taken over at once (dead PID); a live one is touched every
 *   {@link EXTRACTION_HEARTBEAT_MS}, so one left untouched for {@link EXTRACTION_LOCK_STALE_MS}
 *   (a hung process, or a holder on another machine) is taken over too.
 * - A request that finds the lock held is written to `.memdir-extract/pending/<transcript key>.json`
 *   and its process exits at once. Per transcript the latest wins (each write replaces that
 *   session's previous one); requests of different sessions wait side by side, so a session
 *   whose last turn ended while another session's extraction ran is not forgotten.
 * - The holder, after its own run, takes the pending requests oldest first and runs them: ONE
 *   trailing run per session over whatever arrived meanwhile, then again while requests keep
 *   arriving. After releasing the lock it looks once more, so a request written between its last
 *   look and the release is not lost.
 */

/** The holder touches its lock this often. */
export const EXTRACTION_HEARTBEAT_MS = 20_000;
/** A lock not touched for this long is taken over even when its PID looks alive. */
export const EXTRACTION_LOCK_STALE_MS = 120_000;

/** What a Stop hook (or a person) asks for: extract from this transcript. */
export interface ExtractionTicket {
  /** Unique per request, so a process can tell its own pending request from a newer one. */
  id: string;
  /** Absolute path of the session transcript. */
  transcript: string;
  /** The project directory the session ran in (the fork's working directory). */
  cwd: string;
  /** Ignore the saved cursor: extract from the whole transcript. */
  all: boolean;
  requestedAt: string;
  /** The process that asked (for people reading the file). */
  pid: number;
}

/** What {@link runOneAtATime} did with a request. */
export type QueueOutcome<R> =
  /** Another process is extracting: the request was left for it (`holder`: its PID, when known). */
  | { status: "queued"; holder: number | null }
  /** This process ran the request, then `trailing` runs for requests that arrived meanwhile. */
  | { status: "ran"; own: R; trailing: R[] };

export interface QueueOptions {
  staleMs?: number;
  heartbeatMs?: number;
  log?: (message: string) => void;
}

/** A new ticket for `transcript`. */
export function extractionTicket(fields: {
  transcript: string;
  cwd: string;
  all?: boolean;
}): ExtractionTicket {
  return {
    id: randomBytes(8).toString("hex"),
    transcript: path.resolve(fields.transcript),
    cwd: path.resolve(fields.cwd),
    all: fields.all === true,
    requestedAt: new Date().toISOString(),
    pid: process.pid,
  };
}

function lockPath(memoryDir: string): string {
  return path.join(extractionStateDir(memoryDir), "lock");
}

function pendingDir(memoryDir: string): string {
  return path.join(extractionStateDir(memoryDir), "pending");
}

/** Where a queued request for `transcript` waits (tests and people reading the state folder). */
export function pendingRequestFile(memoryDir: string, transcript: string): string {
  return path.join(pendingDir(memoryDir), `${transcriptKey(transcript)}.json`);
}

/**
 * Runs `run(ticket)` unless another process is extracting in `memoryDir`, in which case the
 * ticket is queued for that process and this call returns `queued` at once. While holding the
 * lock, runs every queued request too (one at a time, latest wins). `run` should not throw; if it
 * does, the error is logged and the queue goes on.
 *
 * @example
 * const outcome = await runOneAtATime(memoryDir, extractionTicket({ transcript, cwd }), (t) => extractTranscript({ … }));
 * if (outcome.status === "queued") console.log("another extraction is running; it will pick this up");
 */
export async function runOneAtATime<R>(
  memoryDir: string,
  ticket: ExtractionTicket,
  run: (ticket: ExtractionTicket) => Promise<R>,
  options: QueueOptions = {},
): Promise<QueueOutcome<R>> {
  const staleMs = options.staleMs ?? EXTRACTION_LOCK_STALE_MS;
  const log = options.log ?? (() => {});
  let lock = await tryTakeLease(lockPath(memoryDir), { staleMs });
  let carried: ExtractionTicket | null = null;
  if (lock === null) {
    await writePending(memoryDir, ticket);
    // The holder may have released between our attempt and the write (and already looked for
    // pending work): try once more, so the request is never left with nobody to run it.
    lock = await tryTakeLease(lockPath(memoryDir), { staleMs });
    if (lock === null)
      return { status: "queued", holder: await liveLeaseHolder(lockPath(memoryDir), { staleMs }) };
    // Take our session's request back. A newer one of the same session may have replaced it
    // (a later turn ended meanwhile): that one runs right after ours, since the caller may run
    // ours on the transcript as it read it before queueing. Other sessions' requests stay queued.
    const taken = await takePendingFile(pendingRequestFile(memoryDir, ticket.transcript));
    if (taken !== null && taken.id !== ticket.id) carried = taken;
  }
  const safeRun = async (next: ExtractionTicket): Promise<R | null> => {
    try {
      return await run(next);
    } catch (error) {
      log(
        `memdir: extraction of ${next.transcript} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return null;
    }
  };
  const trailing: R[] = [];
  const runQueued = async () => {
    let next = await takePending(memoryDir);
    while (next !== null) {
      const outcome = await safeRun(next);
      if (outcome !== null) trailing.push(outcome);
      next = await takePending(memoryDir);
    }
  };
  let own: { value: R } | { error: unknown };
  try {
    own = await withHeartbeat(lock, options.heartbeatMs, async () => {
      // Our own run's failure is the caller's to report, after the queue behind it has run.
      const result = await run(ticket).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      if (carried !== null) {
        const outcome = await safeRun(carried);
        if (outcome !== null) trailing.push(outcome);
      }
      await runQueued();
      return result;
    });
  } finally {
    await lock.release();
  }
  // A request written after our last look but before the release: run it, unless another
  // process has taken the lock (it looks for pending work before it releases).
  while (await pendingExists(memoryDir)) {
    const again = await tryTakeLease(lockPath(memoryDir), { staleMs });
    if (again === null) break;
    try {
      await withHeartbeat(again, options.heartbeatMs, runQueued);
    } finally {
      await again.release();
    }
  }
  if ("error" in own) throw own.error;
  return { status: "ran", own: own.value, trailing };
}

async function withHeartbeat<T>(lock: Lease, heartbeatMs: number | undefined, work: () => Promise<T>) {
  const timer = setInterval(() => void lock.refresh(), heartbeatMs ?? EXTRACTION_HEARTBEAT_MS);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

async function writePending(memoryDir: string, ticket: ExtractionTicket): Promise<void> {
  const file = pendingRequestFile(memoryDir, ticket.transcript);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(ticket)}\n`);
}

/** Names of the waiting requests (not the ones another process has set aside to run). */
async function pendingFiles(memoryDir: string): Promise<string[]> {
  const names = await fs.readdir(pendingDir(memoryDir)).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith(".json"));
}

async function pendingExists(memoryDir: string): Promise<boolean> {
  return (await pendingFiles(memoryDir)).length > 0;
}

/** Takes the oldest waiting request (by modification time), if any. */
async function takePending(memoryDir: string): Promise<ExtractionTicket | null> {
  const dir = pendingDir(memoryDir);
  const waiting = await Promise.all(
    (await pendingFiles(memoryDir)).map(async (name) => {
      const stat = await fs.stat(path.join(dir, name)).catch(() => null);
      return { file: path.join(dir, name), mtimeMs: stat?.mtimeMs ?? Number.POSITIVE_INFINITY };
    }),
  );
  waiting.sort((a, b) => a.mtimeMs - b.mtimeMs || a.file.localeCompare(b.file));
  for (const { file } of waiting) {
    const ticket = await takePendingFile(file);
    if (ticket !== null) return ticket;
  }
  return null;
}

/**
 * Takes one waiting request: renamed aside first (only one rename of a file succeeds, and a
 * request written after it lands in a fresh file), then read and removed. Null when another
 * process took it first or it is unreadable.
 */
async function takePendingFile(file: string): Promise<ExtractionTicket | null> {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.taken`;
  try {
    await fs.rename(file, aside);
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(await fs.readFile(aside, "utf8")) as Partial<ExtractionTicket>;
    if (typeof parsed.transcript !== "string" || typeof parsed.cwd !== "string") return null;
    return {
      id: typeof parsed.id === "string" ? parsed.id : "",
      transcript: parsed.transcript,
      cwd: parsed.cwd,
      all: parsed.all === true,
      requestedAt: typeof parsed.requestedAt === "string" ? parsed.requestedAt : "",
      pid: typeof parsed.pid === "number" ? parsed.pid : 0,
    };
  } catch {
    return null; // unreadable or torn by hand: dropped
  } finally {
    await fs.rm(aside, { force: true });
  }
}
