/**
 * Child process of the recall benchmark. `recall-worker.ts <dir> <queries.json>` prints one JSON
 * line with, over that directory:
 * - `firstRecallMs`: the first `recall()` in this fresh process (cold scan + index build + select + read);
 * - `select`: lexical selection per query with a warm index (the selector call `recall()` makes:
 *   index sync against the headers + ranking), p50/p95 over every query, second pass;
 * - `recall`: end-to-end `recall()` per query, warm caches (scan + select + capped reads + messages);
 * - `maxRssMb`: the process's peak resident set (`process.resourceUsage().maxRSS`), and
 *   `baselineRssMb`, the peak before the first scan (Node + tsx + memdir modules).
 */
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { openMemdir } from "../src/memdir/instance.ts";
import { recall } from "../src/recall/recall.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";
import { median, percentile, round } from "./stats.ts";

const [dir, queriesFile] = process.argv.slice(2);
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf8")) as string[];
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;
const baselineRssMb = maxRssMb();

// The environment handed in, so `MEMDIR_NO_CACHE=1` (run.ts sets it) really keeps cache files out:
// without it the instance read no switches, wrote a 52 MB index cache at 20,000 while measured
// and left it for the next worker (docs/benchmarks.md#peak-rss-at-20000).
const memdir = openMemdir(dir, { env: process.env });
const selector = createLexicalSelector();
const now = () => Date.parse("2026-01-02T00:00:00Z");
const recallOnce = (query: string) =>
  recall({ memoryDir: dir, query, selector, k: 5, now, readFileState: new Map(), memdir });

let started = performance.now();
const first = await recallOnce(queries[0]);
const firstRecallMs = performance.now() - started;

const headers = await memdir.scan();
const selectTimes: number[] = [];
let picked = 0;
for (let pass = 0; pass < 2; pass++) {
  for (const query of queries) {
    started = performance.now();
    // With the instance, as recall() passes it: the same lexical index (without it the selector
    // would build and hold a second index of its own).
    const { picks } = await selector.select({
      query,
      headers,
      k: 5,
      memoryDir: dir,
      recentTools: [],
      memdir,
    });
    if (pass === 1) {
      selectTimes.push(performance.now() - started);
      if (picks.length > 0) picked++;
    }
  }
}
const recallTimes: number[] = [];
let surfaced = 0;
for (const query of queries) {
  started = performance.now();
  const result = await recallOnce(query);
  recallTimes.push(performance.now() - started);
  surfaced += result.messages.length;
}

console.log(
  JSON.stringify({
    memories: headers.length,
    queries: queries.length,
    firstRecallMs: round(firstRecallMs),
    firstRecallSurfaced: first.messages.length,
    select: {
      p50Ms: round(median(selectTimes)),
      p95Ms: round(percentile(selectTimes, 0.95)),
      queriesWithPicks: picked,
    },
    recall: { p50Ms: round(median(recallTimes)), p95Ms: round(percentile(recallTimes, 0.95)), surfaced },
    baselineRssMb: round(baselineRssMb, 1),
    maxRssMb: round(maxRssMb(), 1),
  }),
);
