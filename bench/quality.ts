/**
 * Recall quality on the LoCoMo development split: each variant is materialized into a temp dir
 * (mtimes restored) and scored by the real `memdir eval --selector lexical --json`, run as a child
 * process with a clean HOME (no settings, no model).
 */
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT, runCommand } from "./stats.ts";

export interface CategoryScores {
  queries: number;
  recallAt5: number;
  anyHitAt5: number;
}

export interface VariantQuality extends CategoryScores {
  byCategory: Record<string, CategoryScores>;
  msPerQuery: { p50: number; p95: number };
}

interface EvalJson {
  queries: number;
  recallAtK: number;
  anyHitAtK: number;
  byCategory: Record<string, { queries: number; recallAtK: number; anyHitAtK: number }>;
  msPerQuery: { p50: number; p95: number };
}

export const LOCOMO_VARIANTS = ["sessions", "observations"] as const;

/** Materializes `variant` under `workDir` and runs `memdir eval` on it. */
export async function measureQuality(
  sharedDir: string,
  variant: string,
  workDir: string,
): Promise<VariantQuality> {
  const dataDir = path.join(workDir, `locomo-${variant}`);
  await runCommand(process.execPath, [
    path.join(sharedDir, "bench", "materialize.mjs"),
    path.join(sharedDir, "bench", "locomo", variant),
    dataDir,
  ]);
  const home = path.join(workDir, `home-${variant}`);
  fs.mkdirSync(home, { recursive: true });
  const output = await runCommand(
    process.execPath,
    [
      "--import",
      import.meta.resolve("tsx"),
      path.join(REPO_ROOT, "src", "cli", "run.ts"),
      "eval",
      "--data",
      dataDir,
      "--selector",
      "lexical",
      "--json",
    ],
    { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
  );
  const report = JSON.parse(output) as EvalJson;
  fs.rmSync(dataDir, { recursive: true, force: true });
  const scores = (s: { queries: number; recallAtK: number; anyHitAtK: number }): CategoryScores => ({
    queries: s.queries,
    recallAt5: s.recallAtK,
    anyHitAt5: s.anyHitAtK,
  });
  return {
    ...scores(report),
    byCategory: Object.fromEntries(Object.entries(report.byCategory).map(([name, s]) => [name, scores(s)])),
    msPerQuery: report.msPerQuery,
  };
}
