/**
 * `npm run bench [-- --json] [--sizes 200,2000] [--quick]`: speed at 200 / 2,000 / 20,000
 * memories (scan cold and warm against the naive reference, lexical selection, end-to-end
 * recall, peak RSS), sync over git against plain `git pull && git push` (2,000 memories), the
 * quarantine's precision and recall (bench/quarantine.ts), the agent loop's memory overhead, and recall quality on LoCoMo and on
 * the coding-agent set (bench/coding-recall.ts) — all in one
 * run, side by side. Progress goes to stderr; stdout gets the table, or with `--json` exactly one
 * JSON object. Directories are generated in a temp dir by `../shared/bench/gen-scale.mjs` and
 * removed at the end; parts that need `../shared` are skipped with one line when it is absent.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { measureCodingRecall } from "./coding-recall.ts";
import { machineInfo } from "./machine.ts";
import { measureMcpStartup } from "./mcp-startup.ts";
import { measureProcesses } from "./process.ts";
import { LOCOMO_VARIANTS, measureQuality } from "./quality.ts";
import { measureBenignCorpora, measureQuarantine } from "./quarantine.ts";
import { queriesFromManifest } from "./queries.ts";
import {
  type BenchResult,
  type DreamFigures,
  formatReport,
  type ScanFigures,
  type SyncFigures,
  type Target,
} from "./report.ts";
import { median, REPO_ROOT, round, runCommand, runWorker } from "./stats.ts";
import { CHROMIUM, measureUi } from "./ui.ts";

interface Options {
  json: boolean;
  sizes: number[];
  quick: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { json: false, sizes: [200, 2000, 20000], quick: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") options.json = true;
    else if (arg === "--quick") {
      options.quick = true;
      options.sizes = [200, 2000];
    } else if (arg === "--sizes") {
      const sizes = (argv[++i] ?? "").split(",").map(Number);
      if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1)) {
        console.error(`bench: --sizes wants positive whole numbers like 200,2000, got "${argv[i]}"`);
        process.exit(2);
      }
      options.sizes = sizes;
    } else {
      console.error(`bench: unknown option ${arg} (use --json, --sizes 200,2000, --quick)`);
      process.exit(2);
    }
  }
  return options;
}

interface ScanWorkerResult {
  coldMs: number;
  warmMs: number;
  warmTouchedMs?: number;
  headers: number;
}

interface RecallWorkerResult {
  memories: number;
  firstRecallMs: number;
  select: { p50Ms: number; p95Ms: number };
  recall: { p50Ms: number; p95Ms: number };
  baselineRssMb: number;
  maxRssMb: number;
}

interface RssWorkerResult {
  memories: number;
  baselineRssMb: number;
  maxRssMb: number;
}

interface LoopWorkerResult {
  pendingMs: number;
  settledMs: number;
  startMs: number;
  loopAB: unknown;
}

const QUERY_COUNT = 40;
/** The offline dream is measured at this size (docs/benchmarks.md: 2,000 memories once did not finish in 240 s). */
const DREAM_MEMORIES = 2000;
/** Sync is measured at this size (docs/design.md#sync), a few runs only: the box is shared. */
const SYNC_MEMORIES = 2000;
/** And at this size when the run is not `--quick` (docs/benchmarks.md#sync). */
const SYNC_LARGE_MEMORIES = 20000;
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** Scan figures for one directory: fresh processes for cold, alternating naive and memdir. */
async function measureScan(dir: string, size: number, quick: boolean): Promise<ScanFigures> {
  const coldRuns = quick ? 1 : 3;
  const repetitions = size >= 20000 ? 3 : 5;
  const naive: ScanWorkerResult[] = [];
  const memdir: ScanWorkerResult[] = [];
  for (let run = 0; run < coldRuns; run++) {
    // Only the first naive child repeats (its warm calls cost as much as its cold one).
    naive.push(
      await runWorker<ScanWorkerResult>("scan-worker.ts", [
        "naive",
        dir,
        String(run === 0 ? repetitions : 0),
      ]),
    );
    // Cold means no state at all: MEMDIR_NO_CACHE keeps a persisted header cache (if the scan
    // has one) out of it; the run after it measures a fresh process that finds that cache.
    memdir.push(
      await runWorker<ScanWorkerResult>("scan-worker.ts", ["memdir", dir, String(repetitions)], {
        env: { MEMDIR_NO_CACHE: "1" },
      }),
    );
  }
  // A fresh process that may find state an earlier process left (a persisted header cache).
  await runWorker<ScanWorkerResult>("scan-worker.ts", ["memdir", dir, "0"]);
  const persisted = await runWorker<ScanWorkerResult>("scan-worker.ts", ["memdir", dir, "0"]);
  if (memdir.some((m) => m.headers !== naive[0].headers))
    progress(
      `warning: at ${size} the naive scan found ${naive[0].headers} headers, memdir ${memdir[0].headers}`,
    );
  const naiveMs = naive[0].warmMs;
  const naiveColdMs = median(naive.map((n) => n.coldMs));
  const coldMs = median(memdir.map((m) => m.coldMs));
  const warmMs = median(memdir.map((m) => m.warmMs));
  const warmTouchedMs = median(memdir.map((m) => m.warmTouchedMs ?? 0));
  return {
    naiveMs,
    naiveColdMs,
    coldMs,
    warmMs,
    warmTouchedMs,
    coldSecondProcessMs: persisted.coldMs,
    ratios: {
      cold: round(naiveColdMs / coldMs, 2),
      warm: round(naiveMs / warmMs, 1),
      warmTouched: round(naiveMs / warmTouchedMs, 1),
    },
    headers: memdir[0].headers,
  };
}

/** Writes a directory of `count` generated memories (`../shared/bench/gen-scale.mjs`). */
async function generate(sharedDir: string, count: number, dir: string): Promise<void> {
  await runCommand(process.execPath, [
    path.join(sharedDir, "bench", "gen-scale.mjs"),
    "--n",
    String(count),
    "--out",
    dir,
  ]);
}

function targetsOf(result: BenchResult): Target[] {
  const largest = String(Math.max(...result.sizes));
  const at20k = result.scan["20000"];
  const select20k = result.select["20000"];
  const loopMeasured = result.loopOverheadMs.loopAB !== null;
  const worstLoop = loopMeasured
    ? Math.max(result.loopOverheadMs.pending, result.loopOverheadMs.settled)
    : null;
  const rss20k = result.peakRss?.memories === 20000 ? result.peakRssMb : null;
  const dreamSeconds = result.dream ? round(result.dream.runMs / 1000, 1) : null;
  const dreamTarget = {
    name: `offline dream at ${DREAM_MEMORIES.toLocaleString("en")} memories, whole run (s)`,
    value: dreamSeconds,
    target: "< 20 s",
    met: dreamSeconds === null ? null : dreamSeconds < 20,
  };
  return [
    {
      name: "warm scan at 20,000 vs naive (×)",
      value: at20k ? at20k.ratios.warm : null,
      target: "≥ 20×",
      met: at20k ? at20k.ratios.warm >= 20 : null,
    },
    {
      name: "cold scan at 20,000 vs naive cold (×)",
      value: at20k ? at20k.ratios.cold : null,
      target: "≥ 1× (no slower)",
      met: at20k ? at20k.coldMs <= at20k.naiveColdMs : null,
    },
    {
      name: "warm lexical selection at 20,000, p50 (ms)",
      value: select20k ? select20k.p50Ms : null,
      target: "< 50 ms",
      met: select20k ? select20k.p50Ms < 50 : null,
    },
    {
      name: "loop overhead per iteration, worst of pending/settled (ms)",
      value: worstLoop,
      target: "< 1 ms",
      met: worstLoop === null ? null : worstLoop < 1,
    },
    {
      name: "peak RSS of recall at 20,000 (MB)",
      value: rss20k,
      target: "≤ 150 MB",
      met: rss20k === null ? null : rss20k <= 150,
    },
  ]
    .map((t) => (t.value === null && largest !== "20000" ? { ...t, met: null } : t))
    .concat(dreamTarget)
    .concat(syncTargets(result))
    .concat(startTargets(result));
}

/**
 * `memdir mcp`'s start against a minimal SDK server, and the web view's first list, both measured
 * side by side in this run (bench/mcp-startup.ts, bench/ui.ts; docs/benchmarks.md).
 */
function startTargets(result: BenchResult): Target[] {
  const rows: Target[] = [];
  if (result.mcpStartup)
    rows.push({
      name: "memdir mcp, spawn → tools/list, vs a minimal Node MCP server (×)",
      value: result.mcpStartup.ratioToMinimal,
      target: "≤ 2×",
      met: result.mcpStartup.ratioToMinimal <= 2,
    });
  if (result.ui && result.ui.memories === 20000)
    rows.push({
      name: "memdir ui at 20,000, caches warm: first list after the page opens (ms)",
      value: result.ui.firstListMs,
      target: "≤ 1,000 ms",
      met: result.ui.firstListMs <= 1000,
    });
  return rows;
}

/** The sync rows against their floors (docs/benchmarks.md#sync): ratios measured side by side. */
function syncTargets(result: BenchResult): Target[] {
  const rows: Target[] = [];
  for (const figures of [result.sync, result.syncLarge]) {
    if (figures === null) continue;
    const at = figures.memories.toLocaleString("en");
    rows.push(
      {
        name: `sync with nothing changed at ${at} vs a Node process's git pull && git push (×)`,
        value: figures.ratios.noChange,
        target: "≤ 2×",
        met: figures.ratios.noChange <= 2,
      },
      {
        name: `sync with nothing changed for 2 s at ${at} vs a Node process's git pull && git push (×)`,
        value: figures.ratios.noChangeSettled,
        target: "≤ 2×",
        met: figures.ratios.noChangeSettled <= 2,
      },
      {
        name: `sync with nothing changed at ${at}, memory helper running, vs git pull && git push (×)`,
        value: figures.ratios.noChangeWatched,
        target: "≤ 2×",
        met: figures.ratios.noChangeWatched <= 2,
      },
      {
        name: `sync with one memory changed at ${at} vs the same git commands (×)`,
        value: figures.ratios.oneChanged,
        target: "≤ 2×",
        met: figures.ratios.oneChanged <= 2,
      },
      {
        name: `sync with one memory changed at ${at}, memory helper running, vs the same git commands (×)`,
        value: figures.ratios.oneChangedWatched,
        target: "≤ 2×",
        met: figures.ratios.oneChangedWatched <= 2,
      },
    );
    if (figures.ratios.firstPull !== null)
      rows.push({
        name: `first pull of ${at} memories vs a Node process's git clone (×)`,
        value: figures.ratios.firstPull,
        target: "≤ 3×",
        met: figures.ratios.firstPull !== null && figures.ratios.firstPull <= 3,
      });
  }
  return rows;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const machine = machineInfo();
  const sharedDir = path.resolve(REPO_ROOT, "../shared");
  const hasShared = fs.existsSync(path.join(sharedDir, "bench", "gen-scale.mjs"));
  const workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "memdir-bench-")));
  const cleanup = () => fs.rmSync(workDir, { recursive: true, force: true });
  process.on("SIGINT", () => {
    cleanup();
    process.exit(130);
  });
  const result: BenchResult = {
    machine,
    sizes: hasShared ? options.sizes : [],
    scan: {},
    select: {},
    recall: {},
    process: {},
    loopOverheadMs: { pending: 0, settled: 0, startMs: 0, loopAB: null },
    peakRssMb: null,
    peakRss: null,
    dream: null,
    sync: null,
    syncLarge: null,
    quarantine: null,
    quarantineBenign: null,
    quality: {},
    codingRecall: {},
    wordForms: {},
    targets: [],
    skipped: [],
    seconds: 0,
  };
  try {
    if (!hasShared) {
      result.skipped.push(
        `scan, recall, memory: skipped — ${path.join(sharedDir, "bench", "gen-scale.mjs")} not found (../shared is absent)`,
      );
    }
    // A part that fails (e.g. a module mid-edit) is reported, and the other parts still run.
    const attempt = async (part: string, work: () => Promise<void>) => {
      progress(part);
      try {
        await work();
      } catch (error) {
        const message =
          error instanceof Error ? error.message.split("\n").slice(0, 4).join(" ") : String(error);
        result.skipped.push(`${part}: FAILED — ${message}`);
        progress(`${part} failed: ${message}`);
      }
    };
    for (const size of result.sizes) {
      const dir = path.join(workDir, `mem-${size}`);
      await attempt(`generating ${size} memories`, async () => {
        await generate(sharedDir, size, dir);
      });
      await attempt(`scan at ${size}`, async () => {
        result.scan[size] = await measureScan(dir, size, options.quick);
      });
      await attempt(`recall at ${size}`, async () => {
        const queriesFile = path.join(workDir, `queries-${size}.json`);
        const queries = queriesFromManifest(`${dir}.manifest.jsonl`, QUERY_COUNT);
        fs.writeFileSync(queriesFile, JSON.stringify(queries));
        // firstRecallMs is a cold process: no cache files an earlier worker left in the dir.
        const recalled = await runWorker<RecallWorkerResult>("recall-worker.ts", [dir, queriesFile], {
          env: { MEMDIR_NO_CACHE: "1" },
        });
        result.select[size] = recalled.select;
        result.recall[size] = { ...recalled.recall, firstRecallMs: recalled.firstRecallMs };
        if (size >= (result.peakRss?.memories ?? 0)) {
          // The target's figure is the built package's, as users run it; the sources through
          // tsx stay reported beside it (docs/benchmarks.md#peak-rss-at-20000).
          const built = await runWorker<RssWorkerResult>("rss-worker.mjs", [dir, queriesFile], {
            env: { MEMDIR_NO_CACHE: "1" },
          });
          result.peakRssMb = built.maxRssMb;
          result.peakRss = {
            memories: built.memories,
            baselineMb: built.baselineRssMb,
            throughTsxMb: recalled.maxRssMb,
          };
        }
      });
      await attempt(`processes at ${size}`, async () => {
        result.process[size] = measureProcesses(dir, { importRoot: size === result.sizes[0] });
      });
      if (size === Math.max(...result.sizes)) {
        if (fs.existsSync(CHROMIUM))
          await attempt(`ui at ${size}`, async () => {
            result.ui = await measureUi(dir, workDir, size);
          });
        else
          result.skipped.push(`ui at ${size}: skipped — ${CHROMIUM} is missing (apt-get install chromium)`);
      }
      if (size === result.sizes[0])
        await attempt("mcp start-up", async () => {
          result.mcpStartup = await measureMcpStartup(dir, workDir);
        });
      // Retried: the session-start hook of the process section may have started a background
      // warm-up that is still writing the dir's cache files.
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
      fs.rmSync(`${dir}.manifest.jsonl`, { force: true });
    }
    if (hasShared) {
      await attempt(`offline dream at ${DREAM_MEMORIES}`, async () => {
        const dir = path.join(workDir, `dream-${DREAM_MEMORIES}`);
        await generate(sharedDir, DREAM_MEMORIES, dir);
        result.dream = await runWorker<DreamFigures>("dream-worker.ts", [dir]);
        fs.rmSync(dir, { recursive: true, force: true });
      });
    } else result.skipped.push("offline dream: skipped — ../shared is absent (no gen-scale.mjs)");
    await attempt(`sync at ${SYNC_MEMORIES}`, async () => {
      const dir = path.join(workDir, "sync");
      fs.mkdirSync(dir, { recursive: true });
      result.sync = await runWorker<SyncFigures>("sync-worker.ts", [
        dir,
        String(SYNC_MEMORIES),
        options.quick ? "2" : "5",
      ]);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    // The 20,000 rows sync a `gen-scale.mjs` directory; no first pull there (minutes a run).
    if (options.quick) result.skipped.push(`sync at ${SYNC_LARGE_MEMORIES}: skipped — --quick`);
    else if (!hasShared)
      result.skipped.push(`sync at ${SYNC_LARGE_MEMORIES}: skipped — ../shared is absent (no gen-scale.mjs)`);
    else
      await attempt(`sync at ${SYNC_LARGE_MEMORIES}`, async () => {
        const dir = path.join(workDir, "sync-large");
        const source = path.join(workDir, "sync-large-source");
        fs.mkdirSync(dir, { recursive: true });
        await generate(sharedDir, SYNC_LARGE_MEMORIES, source);
        result.syncLarge = await runWorker<SyncFigures>("sync-worker.ts", [
          dir,
          String(SYNC_LARGE_MEMORIES),
          "3",
          "0",
          source,
        ]);
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(source, { recursive: true, force: true });
        fs.rmSync(`${source}.manifest.jsonl`, { force: true });
      });
    await attempt("quarantine", async () => {
      result.quarantine = await measureQuarantine();
    });
    await attempt("quarantine false alarms", async () => {
      result.quarantineBenign = await measureBenignCorpora(
        hasShared ? sharedDir : null,
        hasShared ? (dir) => generate(sharedDir, 2000, dir) : null,
      );
    });
    await attempt("loop overhead", async () => {
      const loop = await runWorker<LoopWorkerResult>("loop-worker.ts", []);
      result.loopOverheadMs = {
        pending: loop.pendingMs,
        settled: loop.settledMs,
        startMs: loop.startMs,
        loopAB: loop.loopAB,
      };
    });
    // The coding-agent set lives in the repository: it runs with or without ../shared.
    await attempt("coding-agent recall", async () => {
      result.codingRecall = await measureCodingRecall();
    });
    await attempt("word-forms recall", async () => {
      result.wordForms = await measureCodingRecall(undefined, {}, "word-forms");
    });
    if (hasShared && fs.existsSync(path.join(sharedDir, "bench", "locomo"))) {
      for (const variant of LOCOMO_VARIANTS) {
        await attempt(`quality on LoCoMo ${variant}`, async () => {
          result.quality[variant] = await measureQuality(sharedDir, variant, workDir);
        });
      }
    } else {
      result.skipped.push(
        `quality: skipped — ${path.join(sharedDir, "bench", "locomo")} not found (../shared is absent)`,
      );
    }
  } finally {
    cleanup();
  }
  result.machine.loadAverage.end = round(os.loadavg()[0], 2);
  result.seconds = Math.round((performance.now() - started) / 1000);
  result.targets = targetsOf(result);
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(formatReport(result));
}

await main();
