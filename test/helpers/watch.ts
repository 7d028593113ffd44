import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { watchingEnabled } from "../../src/config.ts";
import { onLocalFileSystem } from "../../src/memdir/scan/scan-list.ts";

// inotify reports a local write at once; the bound only covers a machine under heavy load.
const PROBE_BOUND_MS = 2000;

let verdict: Promise<string | null> | undefined;

/**
 * Why assertions that rescans were served by folder watchers cannot be trusted here, or null when
 * they can (probed once per test process). The rule: memdir watches only on Linux with
 * `MEMDIR_NO_WATCH` unset and on a local file system, and there `fs.watch` must work: a
 * non-recursive watch (what memdir uses) on a fresh folder in the temp dir reports a file written
 * into it within 2 s. The probe uses `fs.watch` itself, not memdir's watchers, so a memdir bug
 * fails those assertions instead of skipping them.
 *
 * @example
 * const untrusted = await watchUntrusted();
 * if (untrusted) t.skip(untrusted);
 * else assert.equal(scanWatchStats.watchedRescans, before + 1);
 */
export function watchUntrusted(): Promise<string | null> {
  verdict ??= probe();
  return verdict;
}

async function probe(): Promise<string | null> {
  if (!watchingEnabled()) return "memdir does not watch folders here (not Linux, or MEMDIR_NO_WATCH is set)";
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "memdir-watch-probe-")));
  try {
    if (!onLocalFileSystem(dir)) return `memdir does not watch folders on the file system of ${os.tmpdir()}`;
    const seen = await new Promise<boolean | string>((resolve) => {
      let watcher: fs.FSWatcher;
      try {
        watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
          if (name === "probe.md") done(true);
        });
      } catch (error) {
        resolve(`fs.watch failed: ${(error as Error).message}`);
        return;
      }
      const timer = setTimeout(() => done(false), PROBE_BOUND_MS);
      function done(value: boolean | string) {
        clearTimeout(timer);
        watcher.close();
        resolve(value);
      }
      watcher.on("error", (error) => done(`fs.watch failed: ${error.message}`));
      fs.writeFileSync(path.join(dir, "probe.md"), "probe\n");
    });
    if (typeof seen === "string") return seen;
    return seen ? null : `fs.watch reported no event within ${PROBE_BOUND_MS} ms in ${os.tmpdir()}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
