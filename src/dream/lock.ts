import fs from "node:fs/promises";
import path from "node:path";
import { processIsAlive, tryTakeLease } from "../memdir/fs/lease.ts";
import type { Clock } from "../types.ts";

/**
 * The consolidation lock (docs/design.md#the-consolidation-lock). One file, `.consolidate-lock`, in the memory dir does two jobs:
 * its mtime IS the time of the last consolidation (so the time gate is one `stat`), and its body
 * is the PID of the process consolidating right now (empty once that run has ended).
 */
export const CONSOLIDATE_LOCK_FILE = ".consolidate-lock";
/** A holder older than this is presumed stuck and its lock is reclaimed (docs/design.md#the-consolidation-lock). */
export const LOCK_STALE_MS = 60 * 60 * 1000;
// Guards the few milliseconds between "inspect" and "write our PID" so two reclaimers can never
// both win (the write-then-re-read check alone lets two sequential winners through).
const ACQUIRE_MUTEX_FILE = ".consolidate-lock.acquire";
const ACQUIRE_MUTEX_STALE_MS = 30_000;

/** Whether a process with this PID exists. EPERM means it exists but belongs to someone else. */
export type ProcessProbe = (pid: number) => boolean;

/** The shared probe (`process.kill(pid, 0)`: ESRCH → dead; anything else → alive). */
export const isProcessAlive: ProcessProbe = processIsAlive;

/** What the lock file says right now. */
export interface LockInspection {
  /** `free`: no holder; `held`: a live holder younger than an hour; `stale`: a holder that is dead or too old. */
  status: "free" | "held" | "stale";
  /** Time of the last consolidation (the file's mtime), or null when none ever ran. */
  lastConsolidatedMs: number | null;
  holderPid: number | null;
}

export interface LockOptions {
  now?: Clock;
  /** Defaults to {@link isProcessAlive}; tests pass their own. */
  isAlive?: ProcessProbe;
  /** Our PID; defaults to `process.pid` (tests simulate a second process with another value). */
  pid?: number;
}

function lockPath(memoryDir: string): string {
  return path.join(memoryDir, CONSOLIDATE_LOCK_FILE);
}

function parsePid(body: string): number | null {
  const pid = Number.parseInt(body.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Time of the last consolidation: the lock file's mtime, or null when it does not exist.
 * One `stat`, so the time gate stays the cheapest gate after the enabled flag.
 */
export async function readLastConsolidatedAt(memoryDir: string): Promise<number | null> {
  try {
    return (await fs.stat(lockPath(memoryDir))).mtimeMs;
  } catch {
    return null;
  }
}

/** Reads the lock and classifies it; never changes anything. */
export async function inspectConsolidationLock(
  memoryDir: string,
  options: LockOptions = {},
): Promise<LockInspection> {
  const now = options.now ?? Date.now;
  const isAlive = options.isAlive ?? isProcessAlive;
  let mtimeMs: number;
  let body: string;
  try {
    mtimeMs = (await fs.stat(lockPath(memoryDir))).mtimeMs;
    body = await fs.readFile(lockPath(memoryDir), "utf8");
  } catch {
    return { status: "free", lastConsolidatedMs: null, holderPid: null };
  }
  const holderPid = parsePid(body);
  if (holderPid === null) return { status: "free", lastConsolidatedMs: mtimeMs, holderPid: null };
  const young = now() - mtimeMs < LOCK_STALE_MS;
  const status = young && isAlive(holderPid) ? "held" : "stale";
  return { status, lastConsolidatedMs: mtimeMs, holderPid };
}

/** A lock we hold. Exactly one of `release` / `rollback` should be called. */
export interface ConsolidationLock {
  /** The mtime before we took the lock (null: never consolidated), restored by {@link ConsolidationLock.rollback}. */
  readonly priorMtimeMs: number | null;
  /** When we took it; stays the "last consolidation" time after a successful run. */
  readonly acquiredMs: number;
  /** Success: clear our PID and keep the mtime at the acquisition time. */
  release(): Promise<void>;
  /** Failure or cancel: wind the mtime back to its prior value, so the next gate check sees no consolidation. */
  rollback(): Promise<void>;
}

export type AcquireResult =
  | { ok: true; lock: ConsolidationLock }
  | { ok: false; reason: "held" | "lost-race"; holderPid: number | null };

/**
 * Takes the consolidation lock when it is free or stale (docs/design.md#the-consolidation-lock). A live holder younger than an
 * hour blocks; a dead PID or an hour-old lock is reclaimed. After writing our PID we re-read the
 * file: if another reclaimer's PID is there, we lost and back off. A crash while holding leaves a
 * PID that is dead (or an mtime that ages past an hour), so the next process reclaims it.
 *
 * @example
 * const result = await acquireConsolidationLock(memoryDir);
 * if (!result.ok) return; // someone else is consolidating
 * try { await run(); await result.lock.release(); } catch (e) { await result.lock.rollback(); throw e; }
 */
export async function acquireConsolidationLock(
  memoryDir: string,
  options: LockOptions = {},
): Promise<AcquireResult> {
  const now = options.now ?? Date.now;
  const pid = options.pid ?? process.pid;
  await fs.mkdir(memoryDir, { recursive: true });
  const releaseMutex = await takeAcquireMutex(memoryDir);
  if (!releaseMutex) return { ok: false, reason: "lost-race", holderPid: null };
  try {
    const seen = await inspectConsolidationLock(memoryDir, options);
    if (seen.status === "held") return { ok: false, reason: "held", holderPid: seen.holderPid };
    const acquiredMs = now();
    await writeLockFile(memoryDir, String(pid), acquiredMs);
    const reread = parsePid(await fs.readFile(lockPath(memoryDir), "utf8").catch(() => ""));
    if (reread !== pid) return { ok: false, reason: "lost-race", holderPid: reread };
    return { ok: true, lock: heldLock(memoryDir, pid, seen.lastConsolidatedMs, acquiredMs) };
  } finally {
    await releaseMutex();
  }
}

function heldLock(
  memoryDir: string,
  pid: number,
  priorMtimeMs: number | null,
  acquiredMs: number,
): ConsolidationLock {
  let settled = false;
  const stillOurs = async () =>
    parsePid(await fs.readFile(lockPath(memoryDir), "utf8").catch(() => "")) === pid;
  return {
    priorMtimeMs,
    acquiredMs,
    async release() {
      if (settled) return;
      settled = true;
      // A reclaimer may have taken over after an hour; its lock is not ours to touch.
      if (await stillOurs()) await writeLockFile(memoryDir, "", acquiredMs);
    },
    async rollback() {
      if (settled) return;
      settled = true;
      if (!(await stillOurs())) return;
      if (priorMtimeMs === null) await fs.rm(lockPath(memoryDir), { force: true });
      else await writeLockFile(memoryDir, "", priorMtimeMs);
    },
  };
}

async function writeLockFile(memoryDir: string, body: string, mtimeMs: number): Promise<void> {
  await fs.writeFile(lockPath(memoryDir), body);
  const seconds = mtimeMs / 1000;
  await fs.utimes(lockPath(memoryDir), seconds, seconds);
}

/**
 * The acquire step's lease ({@link tryTakeLease}): only one process at a time gets past it; one
 * left by a crash (dead PID, or not refreshed for 30 s) is taken over.
 */
async function takeAcquireMutex(memoryDir: string): Promise<(() => Promise<void>) | null> {
  const lease = await tryTakeLease(path.join(memoryDir, ACQUIRE_MUTEX_FILE), {
    staleMs: ACQUIRE_MUTEX_STALE_MS,
  });
  return lease === null ? null : () => lease.release();
}
