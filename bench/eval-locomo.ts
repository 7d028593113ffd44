/**
 * Measures the lexical selector on the LoCoMo development split (the selector's targets in docs/design.md#selectors:
 * recall@5 ≥ 0.90 on sessions, ≥ 0.75 on observations). Materialize the split first:
 *
 *   node ../shared/bench/materialize.mjs ../shared/bench/locomo/sessions /tmp/locomo-sessions
 *   node ../shared/bench/materialize.mjs ../shared/bench/locomo/observations /tmp/locomo-observations
 *   node --import tsx bench/eval-locomo.ts [/tmp/locomo-sessions /tmp/locomo-observations]
 *
 * `LEXICAL_TUNING='{"passageWeight":0}'` overrides ranking knobs for an experiment.
 */
import fs from "node:fs";
import path from "node:path";
import { runEval } from "../src/recall/eval.ts";
import type { LexicalTuning } from "../src/recall/lexical/index/types.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";

const dirs = process.argv.slice(2);
const dataDirs = dirs.length > 0 ? dirs : ["/tmp/locomo-sessions", "/tmp/locomo-observations"];
const tuning = JSON.parse(process.env.LEXICAL_TUNING ?? "{}") as Partial<LexicalTuning>;

for (const dataDir of dataDirs) {
  if (!fs.existsSync(path.join(dataDir, "queries.jsonl"))) {
    const variant = path.basename(dataDir).replace(/^locomo-/, "");
    console.error(
      `${dataDir}: no queries.jsonl. Materialize it first:\n` +
        `  node ../shared/bench/materialize.mjs ../shared/bench/locomo/${variant} ${dataDir}`,
    );
    process.exitCode = 1;
    continue;
  }
  const report = await runEval({
    dataDir,
    selector: createLexicalSelector({ tuning }),
    k: 5,
  });
  const categories = Object.entries(report.byCategory)
    .map(([name, c]) => `${name} ${c.recallAtK.toFixed(3)} (${c.queries})`)
    .join(", ");
  console.log(
    `${dataDir}: recall@5 ${report.recallAtK.toFixed(4)} any-hit ${report.anyHitAtK.toFixed(3)} ` +
      `p50 ${report.msPerQuery.p50} ms p95 ${report.msPerQuery.p95} ms — ${categories}`,
  );
}
