/** The bench's result object (what `--json` prints) and its human-readable table. */

import { type CodingRecallHalf, type CodingRecallScores, formatCodingRecall } from "./coding-recall.ts";
import type { MachineInfo } from "./machine.ts";
import type { McpStartupFigures } from "./mcp-startup.ts";
import type { ProcessFigures } from "./process.ts";
import type { VariantQuality } from "./quality.ts";
import {
  type BenignCorpusFigures,
  formatBenignCorpora,
  formatQuarantine,
  type QuarantineFigures,
} from "./quarantine.ts";
import type { UiFigures } from "./ui.ts";

export interface ScanFigures {
  /** Naive reference, steady state: median of repeated calls (it re-reads everything every call). */
  naiveMs: number;
  /** Naive reference, first call in a fresh process. */
  naiveColdMs: number;
  coldMs: number;
  warmMs: number;
  warmTouchedMs: number;
  /** First scan in a fresh process after another process scanned (state it may have persisted). */
  coldSecondProcessMs: number;
  /** naive / memdir: cold vs naive cold, warm and warmTouched vs naive steady state. */
  ratios: { cold: number; warm: number; warmTouched: number };
  headers: number;
}

export interface Target {
  name: string;
  value: number | null;
  target: string;
  met: boolean | null;
}

/** The offline dream (`memdir dream` without a model) over a generated directory (bench/dream-worker.ts). */
export interface DreamFigures {
  memories: number;
  /** Reading every memory and finding the duplicates. */
  planMs: number;
  /** One whole run: lock, plan, history (its first git commit of every file), merges. */
  runMs: number;
  groups: number;
  /** Files the run changed (survivors rewritten, copies removed, the index). */
  merged: number;
}

/** `memdir sync` against a plain `git pull && git push` of the same repository (bench/sync-worker.ts). */
export interface SyncFigures {
  memories: number;
  runs: number;
  noChangeMs: number;
  oneChangedMs: number;
  plainNoChangeMs: number;
  plainOneChangedMs: number;
  /** The same syncs with the memory helper running: its change watch vouches for an unchanged dir. */
  noChangeWatchedMs: number;
  oneChangedWatchedMs: number;
  /** A sync with nothing changed for more than the stat cache's racy window (2 s), without the helper. */
  noChangeSettledMs: number;
  /** A new machine's first pull of every memory into an empty memory dir (null: not measured). */
  firstPullMs: number | null;
  /** A plain `git clone` of the same remote (null: not measured). */
  plainCloneMs: number | null;
  /** The box's load averages (1, 5, 15 min) when the worker ended. */
  load: number[];
  /** memdir / plain git: how many times the plain git commands memdir's sync takes. */
  ratios: {
    noChange: number;
    oneChanged: number;
    noChangeWatched: number;
    oneChangedWatched: number;
    noChangeSettled: number;
    firstPull: number | null;
  };
}

export interface BenchResult {
  machine: MachineInfo;
  sizes: number[];
  scan: Record<string, ScanFigures>;
  select: Record<string, { p50Ms: number; p95Ms: number }>;
  recall: Record<string, { p50Ms: number; p95Ms: number; firstRecallMs: number }>;
  /** Whole processes against `node -e 0` beside them, per size (bench/process.ts). */
  process: Record<string, ProcessFigures>;
  /** `memdir mcp` spawn → tools/list beside a minimal SDK server (bench/mcp-startup.ts). */
  mcpStartup?: McpStartupFigures;
  /** `memdir ui` in a real browser at the largest size, caches warm (bench/ui.ts). */
  ui?: UiFigures;
  loopOverheadMs: { pending: number; settled: number; startMs: number; loopAB: unknown };
  peakRssMb: number | null;
  /** `peakRssMb` is the built package's (bench/rss-worker.mjs); `throughTsxMb`, the sources' through tsx. */
  peakRss: { memories: number; baselineMb: number; throughTsxMb?: number } | null;
  dream: DreamFigures | null;
  sync: SyncFigures | null;
  /** The same at 20,000 memories (not with `--quick`). */
  syncLarge: SyncFigures | null;
  /** The quarantine's precision and recall per set and path (bench/quarantine.ts). */
  quarantine: QuarantineFigures | null;
  /** The surfacing check's false alarms on memory folders written for other purposes (bench/quarantine.ts). */
  quarantineBenign: Record<string, BenignCorpusFigures> | null;
  quality: { sessions?: VariantQuality; observations?: VariantQuality };
  /** recall@5 on the coding-agent set per half and category (bench/coding-recall.ts). */
  codingRecall: Partial<Record<CodingRecallHalf, CodingRecallScores>>;
  /** The same on the word-forms set (bench/word-forms). */
  wordForms: Partial<Record<CodingRecallHalf, CodingRecallScores>>;
  targets: Target[];
  skipped: string[];
  seconds: number;
}

const pad = (cells: (string | number)[], widths: number[]) =>
  cells
    .map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i])))
    .join("  ");

function table(header: string[], rows: (string | number)[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  return [pad(header, widths), ...rows.map((r) => pad(r, widths))];
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const times = (value: number) => `${value.toFixed(1)}×`;

/** The report as printed by `npm run bench`. */
export function formatReport(result: BenchResult): string {
  const m = result.machine;
  const lines = [
    `memdir bench — ${m.nproc} cores (${m.cpu}), Node ${m.node}, ${m.platform}; load average ${m.loadAverage.start} → ${m.loadAverage.end ?? "?"}; ${result.seconds} s`,
    "",
  ];
  const sizes = Object.keys(result.scan);
  if (sizes.length > 0) {
    lines.push("scan (ms; × = naive / memdir; cold = first scan in a fresh process, OS page cache warm)");
    lines.push(
      ...table(
        [
          "memories",
          "naive",
          "naive cold",
          "cold",
          "cold, 2nd process",
          "warm",
          "warm 1% touched",
          "cold ×",
          "warm ×",
          "touched ×",
        ],
        sizes.map((n) => {
          const s = result.scan[n];
          return [
            n,
            ms(s.naiveMs),
            ms(s.naiveColdMs),
            ms(s.coldMs),
            ms(s.coldSecondProcessMs),
            ms(s.warmMs),
            ms(s.warmTouchedMs),
            times(s.ratios.cold),
            times(s.ratios.warm),
            times(s.ratios.warmTouched),
          ];
        }),
      ),
      "",
      "recall (ms; lexical selection with a warm index; recall = scan + select + capped read + messages)",
      ...table(
        ["memories", "select p50", "select p95", "recall p50", "recall p95", "first recall (cold)"],
        sizes.map((n) => [
          n,
          ms(result.select[n].p50Ms),
          ms(result.select[n].p95Ms),
          ms(result.recall[n].p50Ms),
          ms(result.recall[n].p95Ms),
          ms(result.recall[n].firstRecallMs),
        ]),
      ),
      "",
    );
  }
  if (result.mcpStartup) {
    const figures = result.mcpStartup;
    lines.push(
      `mcp start-up (spawn → tools/list answered, median of ${figures.runs} interleaved runs, load ${figures.load.join(" → ")}): ` +
        `node -e 0 ${ms(figures.nodeMs)} ms, minimal SDK server ${ms(figures.minimalServerMs)} ms, ` +
        `memdir mcp ${ms(figures.memdirMs)} ms (${times(figures.ratioToMinimal)} the minimal server)`,
      "",
    );
  }
  if (result.ui) {
    const figures = result.ui;
    lines.push(
      `ui at ${figures.memories} memories (caches warm, in the page, load ${figures.load.join(" → ")}): ` +
        `first list ${ms(figures.firstListMs)} ms (median of ${figures.runs} fresh servers: ${figures.firstListRunsMs.map(ms).join(", ")}); ` +
        `Health's first check ${ms(figures.healthFirstCheckMs)} ms, all checks ${figures.healthDoneMs === null ? "unfinished" : `${ms(figures.healthDoneMs)} ms`}`,
      "",
    );
  }
  const processSizes = Object.keys(result.process ?? {});
  if (processSizes.length > 0) {
    lines.push(
      `processes (median of 10 runs, ms; × = against \`node -e 0\` run beside each: ${processSizes.map((n) => `${n}: ${ms(Object.values(result.process[n])[0]?.nodeMedianMs ?? 0)} ms`).join(", ")})`,
    );
    const names = [...new Set(processSizes.flatMap((n) => Object.keys(result.process[n])))];
    lines.push(
      ...table(
        ["command", ...processSizes.flatMap((n) => [`${n} ms`, `${n} ×`])],
        names.map((name) => [
          name,
          ...processSizes.flatMap((n) => {
            const figure = result.process[n][name];
            if (!figure) return ["—", "—"];
            const failed = figure.exitCode === 0 ? "" : ` (exit ${figure.exitCode})`;
            return [`${ms(figure.medianMs)}${failed}`, times(figure.ratio)];
          }),
        ]),
      ),
      "",
    );
  }
  const loop = result.loopOverheadMs;
  lines.push(
    `loop overhead per iteration: prefetch pending ${loop.pending} ms, settled (takes 5 memories) ${loop.settled} ms; prefetch start ${loop.startMs} ms once per turn`,
  );
  if (result.peakRssMb !== null && result.peakRss)
    lines.push(
      `peak RSS of recall over ${result.peakRss.memories} memories: ${result.peakRssMb} MB from the built package (Node + modules before the first scan: ${result.peakRss.baselineMb} MB; the sources through tsx: ${result.peakRss.throughTsxMb ?? "?"} MB)`,
    );
  if (result.dream)
    lines.push(
      `offline dream over ${result.dream.memories} memories: plan ${ms(result.dream.planMs)} ms (${result.dream.groups} duplicate groups), whole run ${ms(result.dream.runMs)} ms (${result.dream.merged} files changed)`,
    );
  for (const sync of [result.sync, result.syncLarge])
    if (sync)
      lines.push(
        `sync over ${sync.memories} memories (median of ${sync.runs}, load ${sync.load.join(" ")}): no change ${ms(sync.noChangeMs)} ms vs git pull && git push ${ms(sync.plainNoChangeMs)} ms (×${sync.ratios.noChange}), nothing changed for 2 s ${ms(sync.noChangeSettledMs)} ms (×${sync.ratios.noChangeSettled}); one memory changed ${ms(sync.oneChangedMs)} ms vs ${ms(sync.plainOneChangedMs)} ms with its commit (×${sync.ratios.oneChanged}); with the memory helper running: no change ${ms(sync.noChangeWatchedMs)} ms (×${sync.ratios.noChangeWatched}), one changed ${ms(sync.oneChangedWatchedMs)} ms (×${sync.ratios.oneChangedWatched})${sync.firstPullMs === null || sync.plainCloneMs === null ? "" : `; first pull ${ms(sync.firstPullMs)} ms vs git clone ${ms(sync.plainCloneMs)} ms (×${sync.ratios.firstPull})`}`,
      );
  if (result.quarantine) lines.push("", ...formatQuarantine(result.quarantine));
  if (result.quarantineBenign) lines.push("", ...formatBenignCorpora(result.quarantineBenign));
  const variants = Object.entries(result.quality);
  if (variants.length > 0) {
    lines.push("", "quality (memdir eval, lexical, k = 5, LoCoMo development split)");
    const rows: (string | number)[][] = [];
    for (const [variant, q] of variants) {
      if (!q) continue;
      for (const [category, s] of Object.entries(q.byCategory).sort(([a], [b]) => a.localeCompare(b)))
        rows.push([variant, category, s.queries, s.recallAt5.toFixed(3), s.anyHitAt5.toFixed(3)]);
      rows.push([variant, "all", q.queries, q.recallAt5.toFixed(3), q.anyHitAt5.toFixed(3)]);
    }
    lines.push(...table(["variant", "category", "queries", "recall@5", "any-hit@5"], rows));
  }
  if (Object.keys(result.codingRecall).length > 0) {
    lines.push("", "coding-agent recall (lexical, recall@5, bench/coding-recall)");
    lines.push(formatCodingRecall(result.codingRecall));
  }
  if (Object.keys(result.wordForms).length > 0) {
    lines.push("", "word-forms recall (lexical, bench/word-forms): recall@5, then recall@1");
    lines.push(formatCodingRecall(result.wordForms, "word-forms"));
    lines.push(formatCodingRecall(result.wordForms, "word-forms", "recallAt1"));
  }
  for (const line of result.skipped) lines.push(line);
  lines.push("", "targets");
  for (const t of result.targets) {
    const verdict = t.met === null ? "not measured" : t.met ? "met" : "MISSED";
    lines.push(`  ${verdict.padEnd(12)} ${t.name}: ${t.value ?? "—"} (target ${t.target})`);
  }
  return `${lines.join("\n")}\n`;
}
