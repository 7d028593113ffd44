import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { type Lease, takeLease } from "./lease.ts";

/** The writer lock inside the memory dir (a dot-file: never a memory, never scanned). */
export const WRITE_LOCK_FILE = ".memdir-write.lock";

export interface LockOptions {
  /** How long to wait for another holder before failing with `lock-timeout` (default 10 s). */
  timeoutMs?: number;
  /** A lock not refreshed for this long is taken over even when its holder looks alive (default 30 s). */
  staleMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
// Writers hold the lock for milliseconds; 30 s without a refresh means a hung or foreign holder.
// A long holder (doctor --fix at 20,000 memories) refreshes it every third of that.
const DEFAULT_STALE_MS = 30_000;

// Leases this async context already holds, by memory dir, so nested calls (a caller holding the
// lock who then calls saveMemory) re-enter instead of waiting for themselves forever, and a
// writer can check it still holds the lease before its final rename.
const held = new AsyncLocalStorage<Map<string, Lease>>();

/**
 * Runs `fn` while holding the memory dir's writer lock (a {@link Lease}, docs/design.md#locks).
 * A lock whose holder is dead or that was not refreshed for `staleMs` is taken over; otherwise the
 * caller waits up to `timeoutMs` and then fails with `MemdirError("lock-timeout")` naming the
 * holder. The lease is refreshed while `fn` runs. Re-entrant within one async call chain.
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
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const lease = await takeLease(path.join(dir, WRITE_LOCK_FILE), {
    staleMs,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  lease.keepFresh(Math.max(1, Math.floor(staleMs / 3)));
  try {
    return await held.run(new Map([...(mine ?? []), [dir, lease]]), fn);
  } finally {
    await lease.release();
  }
}

/**
 * Throws `MemdirError("lock-lost")` unless this call chain still holds the writer lock of
 * `memoryDir`: a writer checks it right before the rename that makes its change visible, so a
 * holder that stalled past the stale limit (and was taken over) never overwrites the newer
 * holder's work. Outside {@link withMemoryLock} it does nothing.
 */
export async function assertStillLocked(memoryDir: string): Promise<void> {
  const lease = held.getStore()?.get(path.resolve(memoryDir));
  if (lease === undefined || (await lease.holds())) return;
  throw new MemdirError(
    "lock-lost",
    `lock: ${lease.path} was taken over while this writer held it (it stalled past the stale limit); nothing more was written — try again`,
  );
}
