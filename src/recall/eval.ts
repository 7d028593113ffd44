import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { MemdirError } from "../errors.ts";
import { type Memdir, openMemdir } from "../memdir/instance.ts";
import type { ProgressSink } from "../types.ts";
import { selectMemories } from "./recall.ts";
import type { Selector } from "./selector.ts";

/** One line of `queries.jsonl`. Other fields (id, answer, evidence…) are allowed and ignored. */
export interface EvalQuery {
  question: string;
  /** Files (relative to the query's memory dir) that hold the answer. */
  gold: string[];
  /** Sub-folder of the data dir that is this query's memory dir; absent → the data dir itself. */
  conv?: string;
  category_name?: string;
  /** When the question is asked (ISO 8601): dates it names ("yesterday", "5月4号") are resolved against it. Default: now. */
  asked?: string;
}

/** Averages over a set of queries. */
export interface EvalScores {
  queries: number;
  /** Mean of |picked ∩ gold| / |gold|. */
  recallAtK: number;
  /** Share of queries with at least one gold file picked. */
  anyHitAtK: number;
}

/** What `memdir eval --json` prints. */
export interface EvalReport extends EvalScores {
  k: number;
  selector: string;
  /** Per `category_name` (queries without one count only in the totals). */
  byCategory: Record<string, EvalScores>;
  /** Selection time per query (scan + select), in ms. */
  msPerQuery: { p50: number; p95: number };
}

export interface EvalOptions {
  /** Directory holding `queries.jsonl` and the memory dir(s). */
  dataDir: string;
  /** Its `name` is reported as `selector` (e.g. `lexical`). */
  selector: Selector;
  /** Picks per query (default 5). */
  k?: number;
  signal?: AbortSignal;
  /** Called after each query (progress output). */
  onQuery?: (done: number, total: number) => void;
  /** The environment the memory dirs' instances read their switches from (`MEMDIR_NO_CACHE`, …; default none). */
  env?: NodeJS.ProcessEnv;
  /** Where each memory dir's cold header scan and index build are reported (docs/design.md#progress). */
  progress?: ProgressSink;
}

/** The file every eval data dir holds. */
export const EVAL_QUERIES_FILE = "queries.jsonl";

/**
 * Runs recall's own selection step (`selectMemories`, no session state) for every query of
 * `DIR/queries.jsonl` over the files as they are on disk, and scores the picks against `gold`.
 *
 * @example
 * const report = await runEval({ dataDir: "bench-data", selector: createLexicalSelector() });
 * console.log(report.recallAtK, report.byCategory);
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const k = options.k ?? 5;
  const queries = await readEvalQueries(options.dataDir);
  const totals = new ScoreSum();
  const byCategory = new Map<string, ScoreSum>();
  const times: number[] = [];
  // One instance per memory dir, as a process serving it would have (its caches stay warm).
  const memdirs = new Map<string, Memdir>();
  for (const [position, query] of queries.entries()) {
    const memoryDir = query.conv ? path.join(options.dataDir, query.conv) : options.dataDir;
    let memdir = memdirs.get(memoryDir);
    if (memdir === undefined) {
      memdir = openMemdir(memoryDir, {
        env: options.env ?? {},
        ...(options.progress ? { progress: options.progress } : {}),
      });
      memdirs.set(memoryDir, memdir);
    }
    const started = performance.now();
    const selection = await selectMemories({
      memoryDir,
      query: query.question,
      selector: options.selector,
      k,
      signal: options.signal,
      memdir,
      ...(query.asked ? { now: () => Date.parse(query.asked ?? "") } : {}),
    });
    times.push(performance.now() - started);
    const picked = new Set(selection.picks.map((pick) => pick.file));
    const hits = query.gold.filter((file) => picked.has(file)).length;
    const recall = hits / query.gold.length;
    totals.add(recall, hits > 0);
    if (query.category_name !== undefined) {
      let sum = byCategory.get(query.category_name);
      if (!sum) {
        sum = new ScoreSum();
        byCategory.set(query.category_name, sum);
      }
      sum.add(recall, hits > 0);
    }
    options.onQuery?.(position + 1, queries.length);
  }
  // A failed run leaves its watchers to the process's end (they never keep it alive).
  await Promise.all([...memdirs.values()].map((memdir) => memdir.close()));
  return {
    ...totals.scores(),
    k,
    selector: options.selector.name,
    byCategory: Object.fromEntries([...byCategory].map(([name, sum]) => [name, sum.scores()])),
    msPerQuery: { p50: percentile(times, 0.5), p95: percentile(times, 0.95) },
  };
}

/**
 * Reads and validates `DIR/queries.jsonl` (blank lines allowed). Throws `MemdirError`
 * (`not-found` / `invalid-input`) naming the file and line of the first problem.
 */
export async function readEvalQueries(dataDir: string): Promise<EvalQuery[]> {
  const file = path.join(dataDir, EVAL_QUERIES_FILE);
  const text = await fs.readFile(file, "utf8").catch((error: unknown) => {
    throw new MemdirError(
      "not-found",
      `eval: cannot read ${file} (the data dir needs a ${EVAL_QUERIES_FILE})`,
      {
        cause: error,
      },
    );
  });
  const queries: EvalQuery[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const where = `eval: ${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new MemdirError("invalid-input", `${where}: not JSON`, { cause: error });
    }
    queries.push(validateQuery(value, where));
  }
  if (queries.length === 0) throw new MemdirError("invalid-input", `eval: ${file}: no queries`);
  return queries;
}

function validateQuery(value: unknown, where: string): EvalQuery {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MemdirError(
      "invalid-input",
      `${where}: expected an object {question, gold, conv?, category_name?}`,
    );
  }
  const record = value as Record<string, unknown>;
  if (typeof record.question !== "string" || record.question.trim() === "") {
    throw new MemdirError("invalid-input", `${where}: "question" must be a non-empty string`);
  }
  const gold = record.gold;
  if (!Array.isArray(gold) || gold.length === 0 || !gold.every((g) => typeof g === "string")) {
    throw new MemdirError("invalid-input", `${where}: "gold" must list at least one file name`);
  }
  const query: EvalQuery = { question: record.question, gold: gold as string[] };
  if (record.conv !== undefined && record.conv !== null) {
    // conv names a sub-folder of the data dir, never a path elsewhere.
    if (typeof record.conv !== "string" || !/^[^/\\]+$/.test(record.conv) || record.conv === "..") {
      throw new MemdirError("invalid-input", `${where}: "conv" must be a folder name inside the data dir`);
    }
    query.conv = record.conv;
  }
  if (record.category_name !== undefined && record.category_name !== null) {
    query.category_name = String(record.category_name);
  }
  if (record.asked !== undefined && record.asked !== null) {
    if (typeof record.asked !== "string" || Number.isNaN(Date.parse(record.asked))) {
      throw new MemdirError("invalid-input", `${where}: "asked" must be an ISO 8601 time`);
    }
    query.asked = record.asked;
  }
  return query;
}

class ScoreSum {
  #count = 0;
  #recall = 0;
  #hits = 0;
  add(recall: number, hit: boolean): void {
    this.#count++;
    this.#recall += recall;
    if (hit) this.#hits++;
  }
  scores(): EvalScores {
    const n = this.#count || 1;
    return {
      queries: this.#count,
      recallAtK: round(this.#recall / n, 4),
      anyHitAtK: round(this.#hits / n, 4),
    };
  }
}

/** Nearest-rank percentile, rounded to 0.01 ms. */
function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return round(sorted[rank], 2);
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
