/**
 * Child process of the offline consolidation benchmark. `dream-worker.ts <dir>` prints one JSON
 * line: `planMs`, finding the duplicates of every memory in the directory (read + compare, the
 * part that used to be quadratic: 2,000 memories did not finish in 240 s), then `runMs`, one
 * whole `memdir dream` without a model in a fresh state (lock, plan, history with its first git
 * commit of every file, merges), and what it merged.
 */
import { performance } from "node:perf_hooks";
import { runOfflineConsolidation } from "../src/dream/consolidate.ts";
import { loadMemoryDocuments } from "../src/dream/dedupe.ts";
import { findDuplicateGroups } from "../src/dream/dedupe-groups.ts";
import { round } from "./stats.ts";

const [dir] = process.argv.slice(2);

let started = performance.now();
const documents = await loadMemoryDocuments(dir);
const groups = findDuplicateGroups(documents);
const planMs = performance.now() - started;

started = performance.now();
const result = await runOfflineConsolidation({ memoryDir: dir });
const runMs = performance.now() - started;
if (result.status === "failed") throw result.error ?? new Error("the offline dream failed");

console.log(
  JSON.stringify({
    memories: documents.length,
    planMs: round(planMs),
    runMs: round(runMs),
    groups: groups.length,
    merged: result.entry?.changes.length ?? 0,
    status: result.status,
  }),
);
