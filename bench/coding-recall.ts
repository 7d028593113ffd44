/**
 * Recall in a coding agent's own domain (docs/benchmarks.md#coding-agent-recall): the memory dirs
 * and task prompts in `bench/coding-recall/` (written for this project; README there), recall@5 of
 * the lexical selector per category and per half. The held-out half was written before any
 * tuning and is never tuned on. Cheap (76 prompts over four small dirs, about a second), so it
 * runs as part of `npm run bench` and alone:
 *
 *   node --import tsx bench/coding-recall.ts [--json] [--half tuning|held-out]
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

/** recall@5 of one half: overall and per category (`queries` prompts each). */
export interface CodingRecallScores {
  queries: number;
  recallAt5: number;
  byCategory: Record<string, { queries: number; recallAt5: number }>;
}

const SET_DIR = path.join(REPO_ROOT, "bench", "coding-recall");

/**
 * Scores `halves` with the lexical selector (`tuning` overrides its knobs). Each half is copied to
 * a temp dir first: eval may leave cache files beside the memories, never in the repository.
 */
export async function measureCodingRecall(
  halves: readonly CodingRecallHalf[] = CODING_RECALL_HALVES,
  tuning: Partial<LexicalTuning> = {},
): Promise<Partial<Record<CodingRecallHalf, CodingRecallScores>>> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-coding-recall-"));
  const result: Partial<Record<CodingRecallHalf, CodingRecallScores>> = {};
  try {
    for (const half of halves) {
      const dataDir = path.join(workDir, half);
      fs.cpSync(path.join(SET_DIR, half), dataDir, { recursive: true });
      const report = await runEval({ dataDir, selector: createLexicalSelector({ tuning }), k: 5 });
      result[half] = {
        queries: report.queries,
        recallAt5: report.recallAtK,
        byCategory: Object.fromEntries(
          Object.entries(report.byCategory).map(([name, s]) => [
            name,
            { queries: s.queries, recallAt5: s.recallAtK },
          ]),
        ),
      };
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  return result;
}

/** The categories in the order the set's README lists them. */
export const CODING_RECALL_CATEGORIES = [
  "key words",
  "file name",
  "paraphrase",
  "zh→en",
  "en→zh",
  "zh→zh",
  "ja",
] as const;

/** One markdown table: a row per half, a column per category. */
export function formatCodingRecall(scores: Partial<Record<CodingRecallHalf, CodingRecallScores>>): string {
  const header = `| half | all | ${CODING_RECALL_CATEGORIES.join(" | ")} |`;
  const rule = `|---|---|${CODING_RECALL_CATEGORIES.map(() => "---").join("|")}|`;
  const rows = CODING_RECALL_HALVES.flatMap((half) => {
    const s = scores[half];
    if (!s) return [];
    const cells = CODING_RECALL_CATEGORIES.map((name) => {
      const c = s.byCategory[name];
      return c ? `${c.recallAt5.toFixed(2)} (${c.queries})` : "–";
    });
    return [`| ${half} | ${s.recallAt5.toFixed(3)} (${s.queries}) | ${cells.join(" | ")} |`];
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
  const tuning = JSON.parse(process.env.LEXICAL_TUNING ?? "{}") as Partial<LexicalTuning>;
  const scores = await measureCodingRecall(halves, tuning);
  process.stdout.write(json ? `${JSON.stringify(scores)}\n` : `${formatCodingRecall(scores)}\n`);
}
