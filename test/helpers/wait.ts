import assert from "node:assert/strict";
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
