import type { ResolvedConfig } from "../../../config.ts";
import {
  type ConsolidationResult,
  consolidationNotice,
  runConsolidation,
  runOfflineConsolidation,
} from "../../../dream/consolidate.ts";
import { type DreamDecision, evaluateDreamGates } from "../../../dream/gate.ts";
import { historyBackend } from "../../../dream/history.ts";
import { applyProposal } from "../../../dream/proposal.ts";
import { listProposals } from "../../../memdir/write/proposal-store.ts";
import type { ModelClient } from "../../../model/client.ts";
import { createModelClientFromConfig } from "../../../model/factory.ts";
import type { ProgressSink } from "../../../types.ts";
import {
  type CommandContext,
  type CommonOptions,
  type ModelOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
  withModelOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";
import { terminalProgress } from "../../support/progress.ts";
import { signalExitCode, untilSignal } from "../../support/until-signal.ts";

interface DreamCommandOptions extends CommonOptions, ModelOptions {
  force?: boolean;
  propose?: boolean;
  status?: boolean;
  apply?: string;
}

/** Why the gates held a run back, in words. */
function blockedReason(decision: DreamDecision): string {
  switch (decision.blockedBy) {
    case "disabled":
      return "auto dream is off (autoDreamEnabled, auto memory or bare mode); --force runs it anyway";
    case "time":
      return `last consolidation ${decision.hoursSinceLast?.toFixed(1)} h ago (needs ${decision.minHours} h); --force skips this`;
    case "sessions":
      return `${decision.sessionsSince} other sessions since the last consolidation (needs ${decision.minSessions}); --force skips this`;
    case "lock":
    case "throttled":
      return "another consolidation is running";
    default:
      return "";
  }
}

function hours(value: number | null): string {
  return value === null ? "never consolidated" : `${value.toFixed(1)} h since the last consolidation`;
}

/**
 * `memdir dream`: consolidates the memory directory (docs/design.md#consolidation) — with a model, the consolidating
 * agent; without one, the offline duplicate merge. `--status` shows each gate, `--propose` stores
 * a proposal instead of changing files, `--apply ID` applies one.
 */
export const registerDreamCommand: RegisterCommand = (program, context) => {
  withModelOptions(
    withCommonOptions(
      program
        .command("dream")
        .description(
          "consolidate memories: merge duplicates, fix the index (recorded; see memdir history / undo)",
        )
        .option("--force", "skip the time and session gates (never the lock)")
        .option("--propose", "store the planned changes as a proposal instead of changing files")
        .option("--status", "show each gate and whether a run would start")
        .option("--apply <id>", "apply a stored proposal"),
    ),
  ).action(async (options: DreamCommandOptions) => {
    const { io } = context;
    if (
      [options.status, options.apply !== undefined, options.propose || options.force].filter(Boolean).length >
      1
    )
      throw usageError("dream: use one of --status, --apply, or a run (--force / --propose)");
    const location = await locationFromOptions(options, context);
    const config = configFromOptions(options, context, location);
    const { memoryDir, projectDir } = location;

    if (options.apply !== undefined) return applyStoredProposal(memoryDir, options.apply, options.json, io);

    const client = createModelClientFromConfig(config.model);
    const settings = config.autoDream;
    const decision = await evaluateDreamGates({ settings, memoryDir, projectDir, force: options.force });

    if (options.status)
      return printDreamStatus({ decision, settings, client, memoryDir, json: options.json, io });

    if (!decision.wouldRun) {
      const status = decision.blockedBy === "lock" ? "locked" : "skipped";
      if (options.json) printJson(io, { status, reason: blockedReason(decision), decision });
      else io.stdout(`not consolidating: ${blockedReason(decision)}\n`);
      return;
    }

    const mode = options.propose ? "propose" : settings.mode;
    if (!client && !options.json)
      io.stdout(
        "no model configured: running the offline duplicate merge (set ANTHROPIC_API_KEY for a full consolidation)\n",
      );
    const { result, stoppedBy } = await consolidateUntilSignal({
      memoryDir,
      projectDir,
      client,
      mode,
      progress: terminalProgress(context, options),
    });
    if (options.json) printJson(io, resultJson(result, client !== null));
    else printResult(context.io.stdout, result);
    if (result.status === "failed") context.setExitCode(1);
    // 128 + the signal's number, as a shell reports a process the signal ended.
    if (stoppedBy !== null) context.setExitCode(signalExitCode(stoppedBy));
  });
};

type Io = CommandContext["io"];

/** `--apply ID`: a stored proposal applied, and how to undo it. */
async function applyStoredProposal(
  memoryDir: string,
  id: string,
  json: boolean | undefined,
  io: Io,
): Promise<void> {
  const { proposal, entry } = await applyProposal(memoryDir, id);
  if (json)
    printJson(io, {
      applied: proposal.id,
      changes: proposal.changes.map(shortChange),
      historyId: entry?.id ?? null,
    });
  else {
    io.stdout(`applied proposal ${proposal.id}: ${proposal.changes.length} file(s) changed\n`);
    if (entry) io.stdout(`undo with: memdir undo ${entry.id}\n`);
  }
}

/** `--status`: each gate, whether a run would start, and the proposals waiting. */
async function printDreamStatus(state: {
  decision: DreamDecision;
  settings: ResolvedConfig["autoDream"];
  client: ModelClient | null;
  memoryDir: string;
  json: boolean | undefined;
  io: Io;
}): Promise<void> {
  const { decision, settings, client, memoryDir, io } = state;
  const pending = (await listProposals(memoryDir)).filter((p) => !p.appliedAt).map((p) => p.id);
  const status = {
    enabled: decision.enabled,
    hoursSinceLast: decision.hoursSinceLast,
    sessionsSince: decision.sessionsSince,
    lock: decision.lock,
    wouldRun: decision.wouldRun,
    minHours: decision.minHours,
    minSessions: decision.minSessions,
    lastConsolidatedAt: decision.lastConsolidatedAt,
    blockedBy: decision.blockedBy,
    mode: settings.mode,
    consolidator: client ? "model" : "offline",
    history: await historyBackend(memoryDir),
    proposals: pending,
  };
  if (state.json) printJson(io, status);
  else {
    io.stdout(
      `enabled: ${decision.enabled}\n${hours(decision.hoursSinceLast)} (needs ${decision.minHours})\n`,
    );
    io.stdout(`other sessions since then: ${decision.sessionsSince} (needs ${decision.minSessions})\n`);
    io.stdout(
      `lock: ${decision.lock}\nwould run: ${decision.wouldRun ? "yes" : `no — ${blockedReason(decision)}`}\n`,
    );
    if (pending.length > 0) io.stdout(`proposals waiting: ${pending.join(", ")} (memdir dream --apply ID)\n`);
  }
}

/**
 * One consolidation, with the model's agent or offline. SIGTERM or SIGINT cancels the run: the
 * agent stops (offline: between two merges, each applied whole), the lock's mtime is wound back,
 * so a killed dream does not count as a consolidation for the time gate
 * (docs/design.md#consolidation-gates). A second signal finds no listener and ends the process
 * the default way.
 */
async function consolidateUntilSignal(run: {
  memoryDir: string;
  projectDir: string;
  client: ModelClient | null;
  mode: ResolvedConfig["autoDream"]["mode"];
  /** The offline merge's steps on a terminal (the model's run reports none). */
  progress: ProgressSink | undefined;
}): Promise<{ result: ConsolidationResult; stoppedBy: NodeJS.Signals | null }> {
  const { memoryDir, projectDir, client, mode, progress } = run;
  const { value: result, stoppedBy } = await untilSignal("consolidation", (signal) =>
    client
      ? runConsolidation({ memoryDir, projectDir, client, mode, signal })
      : runOfflineConsolidation({ memoryDir, mode, signal, progress }),
  );
  return { result, stoppedBy };
}

/** A run's `--json` answer. */
function resultJson(result: ConsolidationResult, withModel: boolean): Record<string, unknown> {
  return {
    status: result.status,
    consolidator: withModel ? "model" : "offline",
    improved: result.improved,
    summary: result.summary,
    historyId: result.entry?.id ?? null,
    changes: result.entry?.changes ?? result.proposal?.changes.map(shortChange) ?? [],
    proposal: result.proposal
      ? { id: result.proposal.id, changes: result.proposal.changes.map(shortChange) }
      : null,
    refused: result.refused.map((r) => ({ tool: r.tool, message: r.message })),
    leftAlone: result.leftAlone,
    ...(result.error ? { error: result.error.message } : {}),
  };
}

function shortChange(change: { file: string; action: string }): { file: string; action: string } {
  return { file: change.file, action: change.action };
}

function printResult(write: (text: string) => void, result: ConsolidationResult): void {
  switch (result.status) {
    case "locked":
      write("not consolidating: another consolidation is running\n");
      return;
    case "failed":
      write(`consolidation failed: ${result.error?.message ?? "unknown error"}\n`);
      if (result.entry) write(`what it changed before failing is recorded: memdir undo ${result.entry.id}\n`);
      return;
    case "unchanged":
      write("nothing to consolidate\n");
      if (result.leftAlone.length > 0)
        write(`left alone (changed since the plan was made): ${result.leftAlone.join(", ")}\n`);
      return;
    default: {
      if (result.summary) write(`${result.summary.trim()}\n`);
      write(`${consolidationNotice(result) ?? "nothing changed"}\n`);
      if (result.entry) write(`undo with: memdir undo ${result.entry.id}\n`);
      for (const refused of result.refused) write(`refused: ${refused.message}\n`);
    }
  }
}
