import path from "node:path";
import { type EvalReport, type EvalScores, runEval } from "../../../recall/eval.ts";
import {
  type ModelOptions,
  type RegisterCommand,
  resolveFrom,
  withModelOptions,
} from "../../support/common.ts";
import { type CliIO, printJson } from "../../support/output.ts";
import { terminalProgress } from "../../support/progress.ts";
import { parsePickCount, selectorForCommand } from "./recall.ts";

interface EvalCommandOptions extends ModelOptions {
  data: string;
  selector?: string;
  k: string;
  json?: boolean;
  cwd?: string;
  root?: string;
}

/**
 * `memdir eval --data DIR`: a regression harness for recall. `DIR/queries.jsonl` holds one
 * `{question, gold: [files], conv?, category_name?}` a line; each query runs recall's own
 * selection over `DIR/<conv>` (or `DIR`) and is scored by recall@k and any-hit@k.
 */
export const registerEvalCommand: RegisterCommand = (program, context) => {
  withModelOptions(program.command("eval"))
    .description("measure recall on a set of questions with known answers (DIR/queries.jsonl)")
    .requiredOption("--data <dir>", "directory holding queries.jsonl and the memory files")
    .option("--selector <name>", "lexical | model | hybrid (default: hybrid with a model, else lexical)")
    .option("--k <n>", "picks per query", "5")
    .option("--json", "machine-readable output")
    .option(
      "--cwd <dir>",
      "project directory whose settings configure the model (default: the current directory)",
    )
    .option(
      "--root <dir>",
      "memory root whose settings configure the model (default: $MEMDIR_ROOT, then ~/.claude)",
    )
    .action(async (options: EvalCommandOptions) => {
      const k = parsePickCount(options.k, "eval");
      const { selector } = selectorForCommand(options, context);
      const dataDir = path.resolve(resolveFrom(context, options.cwd ?? "."), options.data);
      // At 20,000 memories a cold eval reads and indexes for tens of seconds (docs/benchmarks.md).
      const progress = terminalProgress(context, options);
      const report = await runEval({
        dataDir,
        selector,
        k,
        env: context.env,
        ...(progress
          ? {
              progress,
              onQuery: (done: number, total: number) => progress("evaluating queries", done, total),
            }
          : {}),
      });
      if (options.json) printJson(context.io, report);
      else printReport(context.io, report);
    });
};

function printReport(io: CliIO, report: EvalReport): void {
  const rows: [string, EvalScores][] = Object.entries(report.byCategory).sort(([a], [b]) =>
    a.localeCompare(b),
  );
  rows.push(["all", report]);
  const width = Math.max(8, ...rows.map(([name]) => name.length));
  const line = (cells: string[]) =>
    `${cells[0].padEnd(width)}  ${cells
      .slice(1)
      .map((c) => c.padStart(9))
      .join("  ")}`;
  const lines = [
    `eval: ${report.queries} queries, selector ${report.selector}, k = ${report.k}`,
    "",
    line(["category", "queries", `recall@${report.k}`, `any-hit@${report.k}`]),
    ...rows.map(([name, scores]) =>
      line([name, String(scores.queries), scores.recallAtK.toFixed(3), scores.anyHitAtK.toFixed(3)]),
    ),
    "",
    `selection time per query: p50 ${report.msPerQuery.p50} ms, p95 ${report.msPerQuery.p95} ms`,
  ];
  io.stdout(`${lines.join("\n")}\n`);
}
