import assert from "node:assert/strict";
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export interface WaitOptions {
  /** Fail after this long (default 30 s: a bound for a loaded machine, not a pace). */
  timeout?: number;
  /** Between two looks (default 20 ms). */
  interval?: number;
  /** What is awaited, for the failure message. */
  what?: string;
}

/**
 * Resolves as soon as `condition()` is true; fails the test after `timeout`. For what a test
 * cannot await directly: a detached process's file, a request another process made. An error
 * thrown by `condition` fails at once.
 *
 * @example
 * await waitFor(() => server.requests.length > 0, { what: "the request" });
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  options: WaitOptions = {},
): Promise<void> {
  const timeout = options.timeout ?? 30_000;
  for (const deadline = Date.now() + timeout; Date.now() < deadline; ) {
    if (await condition()) return;
    await sleep(options.interval ?? 20);
  }
  assert.ok(await condition(), `timed out after ${timeout} ms waiting for ${options.what ?? "a condition"}`);
}

/** True once `pid` has exited (an exited orphan nobody reaped yet counts as gone). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return /^\d+ \(.*\) Z/.test(stat);
}

/**
 * Waits until the background process a hook reported on stderr (`… in the background (pid N)`)
 * has exited, so a test's temp folders are not removed under its last writes (seen in CI as
 * ENOTEMPTY, after which the file's remaining cleanup hooks never ran and its process never ended).
 */
export async function waitForBackgroundExit(stderr: string, options: WaitOptions = {}): Promise<void> {
  const pid = /in the background \(pid (\d+)\)/.exec(stderr)?.[1];
  assert.ok(pid, `the hook names the background process it started: ${stderr}`);
  await waitFor(() => processGone(Number(pid)), {
    timeout: 60_000,
    interval: 100,
    what: `background process ${pid} to exit`,
    ...options,
  });
}
