/**
 * Child process of the scan benchmark. `scan-worker.ts <naive|memdir> <dir> <repetitions>`
 * prints one JSON line:
 * - naive: `{coldMs, warmMs, headers}` — the first call in this process, then the median of
 *   `repetitions` further calls (the naive scan reads everything every time).
 * - memdir: `{coldMs, warmMs, warmTouchedMs, headers, touched, watchedRescans}` — the first
 *   scan of this process's Memdir (empty cache), the median rescan of the unchanged dir, and the
 *   median rescan after new mtimes on 1% of the files (a different 1% each time). Original mtimes
 *   are restored. Rescans are served by the folder watchers (src/memdir/scan/scan-watch.ts) unless
 *   `MEMDIR_NO_WATCH=1`; `watchedRescans` counts the rescans that were.
 */
import fs from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { openMemdir } from "../src/memdir/instance.ts";
import { naiveScanHeaders } from "./naive-scan.ts";
import { median, round } from "./stats.ts";

const [mode, dir, repetitionsText] = process.argv.slice(2);
const repetitions = Number(repetitionsText ?? "5");

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

if (mode === "naive") {
  const cold = await timed(() => naiveScanHeaders(dir));
  const warm: number[] = [];
  for (let i = 0; i < repetitions; i++) warm.push((await timed(() => naiveScanHeaders(dir))).ms);
  console.log(
    JSON.stringify({ coldMs: round(cold.ms), warmMs: round(median(warm)), headers: cold.value.length }),
  );
} else if (mode === "memdir") {
  const memdir = openMemdir(dir);
  const cold = await timed(() => memdir.scan());
  const warm: number[] = [];
  for (let i = 0; i < repetitions; i++) warm.push((await timed(() => memdir.scan())).ms);
  const headers = cold.value;
  const touchCount = Math.max(1, Math.round(headers.length / 100));
  const touchedTimes: number[] = [];
  const original = new Map<string, number>();
  try {
    for (let pass = 0; pass < repetitions; pass++) {
      // Every 100th file, shifted each pass: a spread-out 1% gets a new mtime (a re-read).
      const chosen = headers.filter((_, i) => i % 100 === pass % 100).slice(0, touchCount);
      for (const h of chosen) if (!original.has(h.path)) original.set(h.path, h.mtimeMs);
      const stamp = new Date(Date.now() + (pass + 1) * 1000);
      await Promise.all(chosen.map((h) => fs.utimes(h.path, stamp, stamp)));
      touchedTimes.push((await timed(() => memdir.scan())).ms);
    }
  } finally {
    await Promise.all(
      [...original].map(([file, mtimeMs]) =>
        fs.utimes(file, new Date(mtimeMs), new Date(mtimeMs)).catch(() => {}),
      ),
    );
  }
  console.log(
    JSON.stringify({
      coldMs: round(cold.ms),
      warmMs: round(median(warm)),
      warmTouchedMs: round(median(touchedTimes)),
      headers: headers.length,
      touched: touchCount,
      watchedRescans: memdir.stats().watch.watchedRescans,
    }),
  );
} else {
  console.error("usage: scan-worker.ts <naive|memdir> <dir> [repetitions]");
  process.exit(2);
}
