/**
 * Recall in a coding agent's own domain (docs/benchmarks.md#coding-agent-recall): the memory dirs
 * and task prompts in `bench/coding-recall/` (written for this project; README there), recall@5 of
 * the lexical selector per category and per half. The held-out half was written before any
 * tuning and is never tuned on. Cheap (76 prompts over four small dirs, about a second), so it
 * runs as part of `npm run bench` and alone:
 *
 *   node --import tsx bench/coding-recall.ts [--json] [--half tuning|held-out] [--set word-forms]
 *
 * `--set word-forms` scores `bench/word-forms/` instead: one developer word written in two ways
 * (joined, apart, hyphenated, another verb form) and distractors that share a word in another
 * sense, written blind to the tokenizer's rules (its README; docs/benchmarks.md#word-forms).
 *
 * `LEXICAL_TUNING='{"bridgeWeight":0}'` overrides ranking knobs for an experiment.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runEval } from "../src/recall/eval.ts";
import type { LexicalTuning } from "../src/recall/lexical/index/types.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";
import { REPO_ROOT } from "./stats.ts";

export const CODING_RECALL_HALVES = ["tuning", "held-out"] as const;
export type CodingRecallHalf = (typeof CODING_RECALL_HALVES)[number];

/** recall@5 and recall@1 of one half: overall and per category (`queries` prompts each). */
export interface CodingRecallScores {
  queries: number;
  recallAt5: number;
  /** Whether the gold memory is the first pick: what a set too small for recall@5 to tell apart measures. */
  recallAt1: number;
  byCategory: Record<string, { queries: number; recallAt5: number; recallAt1: number }>;
}

/** Which figure a table shows. */
export type RecallMetric = "recallAt5" | "recallAt1";

/** The sets in the repository of this format: their folder under `bench/` and categories in order. */
export const RECALL_SETS = {
  "coding-recall": ["key words", "file name", "paraphrase", "zh→en", "en→zh", "zh→zh", "ja"],
  "word-forms": ["form", "distractor", "plain"],
} as const;
export type RecallSet = keyof typeof RECALL_SETS;

/**
 * Scores `halves` with the lexical selector (`tuning` overrides its knobs). Each half is copied to
 * a temp dir first: eval may leave cache files beside the memories, never in the repository.
 */
export async function measureCodingRecall(
  halves: readonly CodingRecallHalf[] = CODING_RECALL_HALVES,
  tuning: Partial<LexicalTuning> = {},
  set: RecallSet = "coding-recall",
): Promise<Partial<Record<CodingRecallHalf, CodingRecallScores>>> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-coding-recall-"));
  const result: Partial<Record<CodingRecallHalf, CodingRecallScores>> = {};
  try {
    for (const half of halves) {
      const dataDir = path.join(workDir, half);
      fs.cpSync(path.join(REPO_ROOT, "bench", set, half), dataDir, { recursive: true });
      const report = await runEval({ dataDir, selector: createLexicalSelector({ tuning }), k: 5 });
      const first = await runEval({ dataDir, selector: createLexicalSelector({ tuning }), k: 1 });
      result[half] = {
        queries: report.queries,
        recallAt5: report.recallAtK,
        recallAt1: first.recallAtK,
        byCategory: Object.fromEntries(
          Object.entries(report.byCategory).map(([name, s]) => [
            name,
            { queries: s.queries, recallAt5: s.recallAtK, recallAt1: first.byCategory[name]?.recallAtK ?? 0 },
          ]),
        ),
      };
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  return result;
}

/** One markdown table: a row per half, a column per category (in the order the set's README lists them). */
export function formatCodingRecall(
  scores: Partial<Record<CodingRecallHalf, CodingRecallScores>>,
  set: RecallSet = "coding-recall",
  metric: RecallMetric = "recallAt5",
): string {
  const categories = RECALL_SETS[set];
  const header = `| half | all | ${categories.join(" | ")} |`;
  const rule = `|---|---|${categories.map(() => "---").join("|")}|`;
  const rows = CODING_RECALL_HALVES.flatMap((half) => {
    const s = scores[half];
    if (!s) return [];
    const cells = categories.map((name) => {
      const c = s.byCategory[name];
      return c ? `${c[metric].toFixed(2)} (${c.queries})` : "–";
    });
    return [`| ${half} | ${s[metric].toFixed(3)} (${s.queries}) | ${cells.join(" | ")} |`];
  });
  return [header, rule, ...rows].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const halfAt = args.indexOf("--half");
  const halves =
    halfAt >= 0 ? CODING_RECALL_HALVES.filter((half) => half === args[halfAt + 1]) : CODING_RECALL_HALVES;
  if (halves.length === 0) {
    console.error(`coding-recall: --half wants tuning or held-out, got "${args[halfAt + 1]}"`);
    process.exit(2);
  }
  const setAt = args.indexOf("--set");
  const set = (setAt >= 0 ? args[setAt + 1] : "coding-recall") as RecallSet;
  if (!(set in RECALL_SETS)) {
    console.error(`coding-recall: --set wants ${Object.keys(RECALL_SETS).join(" or ")}, got "${set}"`);
    process.exit(2);
  }
  const tuning = JSON.parse(process.env.LEXICAL_TUNING ?? "{}") as Partial<LexicalTuning>;
  const scores = await measureCodingRecall(halves, tuning, set);
  process.stdout.write(
    json
      ? `${JSON.stringify(scores)}\n`
      : `recall@5\n${formatCodingRecall(scores, set)}\n\nrecall@1\n${formatCodingRecall(scores, set, "recallAt1")}\n`,
  );
}
