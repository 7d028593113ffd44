// Child process of the recall benchmark for its peak RSS, in plain JavaScript over the built
// package (`dist/`, as an installed memdir runs): `recall-worker.ts` runs the TypeScript sources
// through tsx, whose loader thread alone adds ~37 MB (docs/benchmarks.md#peak-rss-at-20000).
// `rss-worker.mjs <dir> <queries.json>` makes the calls recall-worker.ts makes — a first recall,
// then every query twice — and prints one JSON line: `maxRssMb`, the process's peak resident set,
// and `baselineRssMb`, the peak once memdir's entry is loaded, before the first scan.
import fs from "node:fs";
import { createLexicalSelector, openMemdir, recall } from "../dist/index.js";

const [dir, queriesFile] = process.argv.slice(2);
/** @type {string[]} */
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf8"));
const peakMb = () => process.resourceUsage().maxRSS / 1024;
const baselineRssMb = peakMb();
// The environment handed in, so the MEMDIR_NO_CACHE=1 run.ts sets keeps cache files out.
const memdir = openMemdir(dir, { env: process.env });
const selector = createLexicalSelector();
const now = () => Date.parse("2026-01-02T00:00:00Z");
let surfaced = 0;
for (const query of [queries[0], ...queries, ...queries]) {
  const result = await recall({
    memoryDir: dir,
    query,
    selector,
    k: 5,
    now,
    readFileState: new Map(),
    memdir,
  });
  surfaced += result.messages.length;
}
console.log(
  JSON.stringify({
    memories: (await memdir.scan()).length,
    surfaced,
    baselineRssMb: Math.round(baselineRssMb * 10) / 10,
    maxRssMb: Math.round(peakMb() * 10) / 10,
  }),
);
