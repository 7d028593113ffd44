import type { Memdir } from "../../../memdir/instance.ts";
import { explainRecall, type RecallCandidate } from "../../../recall/explain.ts";
import { type RecallResult, recall } from "../../../recall/recall.ts";
import { type SelectorName, selectorFromConfig } from "../../../recall/select-from-config.ts";
import type { Selector } from "../../../recall/selector.ts";
import {
  type CommandContext,
  type CommonOptions,
  type ModelOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
  withModelOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions, memdirForCommand } from "../../support/location.ts";
import { printable, printJson } from "../../support/output.ts";

/** `--k` as a positive whole number, else a usage error (exit 2) naming the command. */
export function parsePickCount(value: string, command: string): number {
  const k = Number(value);
  if (!Number.isInteger(k) || k < 1)
    throw usageError(`${command}: --k must be a positive whole number, got "${value}"`);
  return k;
}

/**
 * The selector a command's `--selector`, `--cwd` and `--root` options ask for, with the model
 * configured from the CLI's environment and settings (see {@link selectorFromConfig}).
 */
export function selectorForCommand(
  options: { selector?: string; cwd?: string; root?: string } & ModelOptions,
  context: CommandContext,
): { selector: Selector; name: SelectorName } {
  const config = configFromOptions(options, context);
  // A misspelt provider must not read as "offline on purpose": the recall goes on, and says so.
  if (config.model.unknownProvider !== undefined && options.selector === undefined)
    context.io.stderr(
      `memdir: the provider ${config.model.unknownProvider} is not one memdir knows (anthropic, openai): recalling without a model\n`,
    );
  return selectorFromConfig(options.selector, config);
}

interface RecallCommandOptions extends CommonOptions {
  selector?: string;
  k: string;
  explain?: boolean;
  all?: boolean;
}

/**
 * How many of the candidates recall did not pick `--explain` lists by default, best scored first:
 * the ones a user asks about ("why not this one?") sit just below the picks, and at 20,000
 * memories a full list is 20,000 lines (the gen-scale runs in docs/benchmarks.md). `--all` lists every one.
 */
export const EXPLAIN_NEAR_MISSES = 10;

/**
 * `memdir recall "<query>"`: prints what the prefetch would inject for this query, as if it were
 * the first message of a session (nothing read or surfaced yet). `--explain` lists the picks and
 * the nearest misses with their scores and why, and counts the rest (`--all` lists every
 * candidate); `--json` prints
 * `{query, selector, selected, messages, skipped}` (plus `candidates`, `fallback` with `--explain`).
 */
export const registerRecallCommand: RegisterCommand = (program, context) => {
  withModelOptions(
    withCommonOptions(
      program
        .command("recall")
        .description("show the memories that would be recalled for a query")
        .argument("<query...>", "the user message to recall for (quotes optional)")
        .option("--selector <name>", "lexical | model | hybrid (default: hybrid with a model, else lexical)")
        .option("--k <n>", "at most this many memories", "5")
        .option("--explain", "show the picks, the nearest misses and a summary of every candidate's verdict")
        .option("--all", "with --explain: list every candidate with its score and why"),
    ),
  ).action(async (words: string[], options: RecallCommandOptions) => {
    // `memdir recall caching ttl` is the query "caching ttl", as forget and remember take their words.
    const query = words.join(" ");
    const k = parsePickCount(options.k, "recall");
    const { selector } = selectorForCommand(options, context);
    const location = await locationFromOptions(options, context);
    // A diagnostic: it still shows what would be recalled, but says that agents get nothing.
    const config = configFromOptions(options, context, location);
    if (!config.autoMemory)
      context.io.stderr(
        `memdir: auto memory is off (${config.autoMemoryOffReason}): agents recall nothing; showing what would be recalled if it were on\n`,
      );
    const memdir = memdirForCommand(location, context, options);
    const result = await recall({
      memoryDir: location.memoryDir,
      query,
      selector,
      k,
      explain: options.explain === true,
      memdir,
    });
    // `--explain` shows these in its report; otherwise a failed model would go unnoticed, its
    // answer silently the lexical one (or none).
    if (!options.explain && result.fallback !== undefined)
      context.io.stderr(`memdir: recall: ${result.fallback}\n`);
    if (!options.explain && result.modelFailure !== undefined)
      context.io.stderr(
        `memdir: recall: the model selector failed (${result.modelFailure}); nothing selected\n`,
      );
    if (options.json) printJson(context.io, recallJson(result, options.explain === true, memdir));
    else if (options.explain) printExplain(context, result, location.memoryDir, options.all === true);
    else printMessages(context, result);
    // The model selector was asked for and did not answer: what was printed is not its answer, and
    // a script must not read "nothing recalled" as one (the hybrid default falls back and says so).
    if (result.modelFailure !== undefined) context.setExitCode(1);
  });
};

/** The `--json` shape (docs/design.md#selectors): exactly these keys, plus the explain fields with `--explain`. */
export function recallJson(result: RecallResult, explain: boolean, memdir?: Memdir): Record<string, unknown> {
  return {
    query: result.query,
    selector: result.selector,
    selected: result.selected,
    messages: result.messages.map((message) => ({
      role: message.role,
      isMeta: true,
      content: message.content,
    })),
    skipped: result.skipped,
    ...(explain
      ? {
          candidates: explainRecall(result),
          // What the command's instance took from the cache files (headers and the lexical index).
          cache: memdir?.stats().cache ?? { headers: { hits: 0, misses: 0 }, index: { hits: 0, misses: 0 } },
          ...(result.fallback !== undefined ? { fallback: result.fallback } : {}),
          ...(result.modelFailure !== undefined ? { modelFailure: result.modelFailure } : {}),
        }
      : {}),
  };
}

function printMessages(context: CommandContext, result: RecallResult): void {
  if (result.messages.length === 0) {
    context.io.stdout("no memories would be recalled for this query\n");
    return;
  }
  context.io.stdout(printable(`${result.messages.map((message) => message.content).join("\n\n")}\n`));
}

/**
 * The candidates `--explain` lists: every pick and linked memory, then the {@link EXPLAIN_NEAR_MISSES}
 * best-scored others (all of them with `all`), in the explain order; and the verdicts of the rest,
 * counted.
 */
export function explainShown(
  candidates: readonly RecallCandidate[],
  all: boolean,
): { shown: RecallCandidate[]; hidden: Map<string, number> } {
  if (all) return { shown: [...candidates], hidden: new Map() };
  const chosen = new Set(
    candidates.filter((candidate) => candidate.status === "picked" || candidate.status === "linked"),
  );
  const misses = candidates
    .filter((candidate) => !chosen.has(candidate))
    .sort((a, b) => (b.score ?? Number.NEGATIVE_INFINITY) - (a.score ?? Number.NEGATIVE_INFINITY));
  for (const miss of misses.slice(0, EXPLAIN_NEAR_MISSES)) chosen.add(miss);
  const hidden = new Map<string, number>();
  for (const candidate of candidates)
    if (!chosen.has(candidate)) hidden.set(candidate.status, (hidden.get(candidate.status) ?? 0) + 1);
  return { shown: candidates.filter((candidate) => chosen.has(candidate)), hidden };
}

function printExplain(context: CommandContext, result: RecallResult, memoryDir: string, all: boolean): void {
  const out: string[] = [];
  out.push(`query: ${result.query}`);
  out.push(`selector: ${result.selector}`);
  out.push(`memory dir: ${memoryDir}`);
  if (result.fallback !== undefined) out.push(`fallback: ${result.fallback}`);
  if (result.modelFailure !== undefined) out.push(`model failure: ${result.modelFailure} (nothing selected)`);
  out.push("");
  const candidates = explainRecall(result);
  out.push(`candidates (${candidates.length}):`);
  const { shown, hidden } = explainShown(candidates, all);
  const width = shown.reduce((widest, candidate) => Math.max(widest, candidate.file.length), 0);
  for (const candidate of shown) out.push(`  ${candidateLine(candidate, width)}`);
  if (candidates.length === 0) out.push("  (no memories in this directory)");
  if (hidden.size > 0) {
    const counts = [...hidden].map(([status, count]) => `${count} ${status}`).join(", ");
    out.push(`  … and ${candidates.length - shown.length} more (${counts}); --all lists every candidate`);
  }
  out.push("");
  const bytes = result.messages.reduce(
    (sum, message) => sum + Buffer.byteLength(message.content as string),
    0,
  );
  const count = result.messages.length;
  out.push(
    `would inject ${count} ${count === 1 ? "memory" : "memories"} (${bytes} bytes)${count > 0 ? ":" : ""}`,
  );
  for (const message of result.messages) out.push("", message.content as string);
  context.io.stdout(printable(`${out.join("\n")}\n`));
}

function candidateLine(candidate: RecallCandidate, width: number): string {
  const score = candidate.score === null ? "-" : candidate.score.toFixed(3);
  return `${candidate.status.padEnd(12)} ${score.padStart(8)}  ${candidate.file.padEnd(width)}  ${candidate.reason}`;
}
