import fs from "node:fs/promises";
import path from "node:path";
import { type ForkedAgentResult, type RefusedCall, runForkedAgent } from "../agent/fork.ts";
import type { LoopEvent } from "../agent/loop.ts";
import { throwIfAborted } from "../errors.ts";
import { INDEX_MAX_BYTES, INDEX_MAX_LINES } from "../memdir/format/index-file.ts";
import { findStaleMemories } from "../memdir/health/stale.ts";
import { formatManifest, scanHeaders } from "../memdir/scan/scan.ts";
import { anchorRoot } from "../memdir/trust/anchors.ts";
import type { Proposal } from "../memdir/write/proposal-store.ts";
import { proposeChanges } from "../memdir/write/scratch.ts";
import type { ModelClient } from "../model/client.ts";
import { consolidationPrompt } from "../prompts/consolidate.ts";
import type { Clock, ProgressSink } from "../types.ts";
import { dedupeMemories, describeApplied } from "./dedupe.ts";
import { describeGroups } from "./dedupe-groups.ts";
import {
  type DreamDecision,
  type DreamGateSettings,
  evaluateDreamGates,
  SessionScanThrottle,
} from "./gate.ts";
import { beginChange } from "./history.ts";
import { changedMemoryCount, type HistoryEntry } from "./history-types.ts";
import { acquireConsolidationLock, type ProcessProbe, readLastConsolidatedAt } from "./lock.ts";
import { consolidationPermissions, consolidationTools } from "./tools.ts";

/** A consolidation may read, search and rewrite: more room than extraction's 5 turns. */
export const CONSOLIDATION_MAX_TURNS = 12;

export interface ConsolidationOptions {
  memoryDir: string;
  /** Where session transcripts live (the parent of the memory dir). */
  projectDir: string;
  client: ModelClient;
  model?: string;
  /** `propose`: run on a scratch copy and store a proposal; nothing changes until applied. */
  mode?: "apply" | "propose";
  /** The session that started the run (left out of the transcript search). */
  currentSessionId?: string;
  now?: Clock;
  signal?: AbortSignal;
  maxTurns?: number;
  onEvent?: (event: LoopEvent) => void;
  /** Lock overrides (tests). */
  isAlive?: ProcessProbe;
  pid?: number;
}

export interface ConsolidationResult {
  status: "done" | "proposed" | "unchanged" | "locked" | "failed";
  /** Memory files (not the index) changed, or proposed to change. */
  improved: number;
  /** The agent's closing summary. */
  summary: string;
  /** The history entry of an applied run. */
  entry: HistoryEntry | null;
  proposal: Proposal | null;
  refused: RefusedCall[];
  /**
   * Offline: memory files that changed between the plan and its application, left as they are
   * (their merges were not applied; docs/design.md#the-consolidation-run).
   */
  leftAlone: string[];
  error?: Error;
}

/** The fields of a result that did nothing (a status is added by the caller). */
function emptyResult(): Omit<ConsolidationResult, "status"> & { entry: null; proposal: null } {
  return { improved: 0, summary: "", entry: null, proposal: null, refused: [], leftAlone: [] };
}

/** Session ids changed since `sinceMs`, newest first, the current one left out. */
async function recentSessionIds(
  projectDir: string,
  sinceMs: number | null,
  exclude?: string,
): Promise<string[]> {
  const names = await fs.readdir(projectDir).catch(() => [] as string[]);
  const sessions: { id: string; mtimeMs: number }[] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const id = name.slice(0, -".jsonl".length);
    if (id === exclude) continue;
    const stat = await fs.stat(path.join(projectDir, name)).catch(() => null);
    if (stat?.isFile() && (sinceMs === null || stat.mtimeMs > sinceMs))
      sessions.push({ id, mtimeMs: stat.mtimeMs });
  }
  return sessions.sort((a, b) => b.mtimeMs - a.mtimeMs).map((s) => s.id);
}

/** Runs the consolidating agent on `workDir` (the memory dir, or a scratch copy of it). */
async function runAgent(
  workDir: string,
  options: ConsolidationOptions,
  lastConsolidatedMs: number | null,
): Promise<ForkedAgentResult> {
  const now = options.now ?? Date.now;
  const projectRoot = await anchorRoot(options.memoryDir);
  // Stale memories first (docs/design.md#stale-anchors): listed ahead of the rest, with what changed.
  const stale = await findStaleMemories(workDir, { projectRoot });
  const staleFiles = new Set(stale.map((memory) => memory.file));
  const scanned = await scanHeaders(workDir, { cache: null });
  const headers = [
    ...scanned.filter((h) => staleFiles.has(h.file)),
    ...scanned.filter((h) => !staleFiles.has(h.file)),
  ];
  const prompt = consolidationPrompt({
    memoryDir: workDir,
    manifest: formatManifest(headers),
    stale: stale.map((memory) => `- ${memory.file}: ${memory.changes.map((c) => c.message).join("; ")}`),
    recentSessions: (
      await recentSessionIds(options.projectDir, lastConsolidatedMs, options.currentSessionId)
    ).slice(0, 20),
    today: new Date(now()).toISOString().slice(0, 10),
    lastConsolidatedAt: lastConsolidatedMs === null ? null : new Date(lastConsolidatedMs).toISOString(),
    indexMaxLines: INDEX_MAX_LINES,
    indexMaxBytes: INDEX_MAX_BYTES,
  });
  const excludeSessionIds = options.currentSessionId ? [options.currentSessionId] : [];
  return runForkedAgent({
    messages: [],
    prompt,
    tools: consolidationTools({ projectDir: options.projectDir, excludeSessionIds }),
    client: options.client,
    model: options.model,
    permissions: consolidationPermissions({ memoryDir: workDir }),
    cwd: workDir,
    memoryDir: workDir,
    maxTurns: options.maxTurns ?? CONSOLIDATION_MAX_TURNS,
    signal: options.signal,
    now,
    onEvent: options.onEvent,
    origin: {
      source: "consolidation",
      projectRoot,
      ...(options.currentSessionId ? { session: options.currentSessionId } : {}),
      proposing: workDir !== options.memoryDir,
    },
  });
}

function failure(run: ForkedAgentResult): Error | null {
  if (run.error) return run.error;
  if (run.reason === "aborted") return new Error("consolidation was cancelled");
  if (run.reason === "error") return new Error("consolidation failed");
  return null;
}

/**
 * One consolidation run (docs/design.md#the-consolidation-run), gates already checked by the caller: takes the lock, records
 * the memory dir's state in the history, lets the forked agent merge, correct, delete and
 * re-index, then records what it changed as a `dream` entry. A failed or cancelled run winds the
 * lock back (the next gate check sees no consolidation) but keeps what it changed recorded, so
 * it can be undone. In propose mode the agent works on a scratch copy and the result is a proposal.
 *
 * @example
 * const result = await runConsolidation({ memoryDir, projectDir, client });
 * if (result.improved > 0) console.log(`Improved ${result.improved} memories`);
 */
export async function runConsolidation(options: ConsolidationOptions): Promise<ConsolidationResult> {
  const empty = emptyResult();
  const lastConsolidatedMs = await readLastConsolidatedAt(options.memoryDir);
  const acquired = await acquireConsolidationLock(options.memoryDir, {
    now: options.now,
    isAlive: options.isAlive,
    pid: options.pid,
  });
  if (!acquired.ok) return { ...empty, status: "locked" };
  const { lock } = acquired;
  try {
    if (options.mode === "propose") {
      let run: ForkedAgentResult | null = null;
      const proposal = await proposeChanges(options.memoryDir, {
        source: "dream",
        now: options.now,
        run: async (scratchDir) => {
          run = await runAgent(scratchDir, options, lastConsolidatedMs);
          const error = failure(run);
          if (error) throw error;
          return summaryLine(run.text);
        },
      });
      const finished = run as ForkedAgentResult | null;
      await lock.release();
      const improved = proposedMemoryChanges(proposal);
      return {
        ...empty,
        status: proposal ? "proposed" : "unchanged",
        improved,
        summary: finished?.text ?? "",
        proposal,
        refused: finished?.refused ?? [],
      };
    }

    const pending = await beginChange(options.memoryDir, { kind: "dream", now: options.now });
    let run: ForkedAgentResult;
    try {
      run = await runAgent(options.memoryDir, options, lastConsolidatedMs);
    } catch (thrown) {
      await pending.finish("consolidation (failed part-way)").catch(() => null);
      throw thrown;
    }
    const error = failure(run);
    const entry = await pending.finish(
      error
        ? `${summaryLine(run.text) || "consolidation"} (failed part-way)`
        : summaryLine(run.text) || "consolidation",
    );
    if (error) {
      await lock.rollback();
      return { ...empty, status: "failed", entry, summary: run.text, refused: run.refused, error };
    }
    await lock.release();
    const improved = changedMemoryCount(entry);
    return {
      ...empty,
      status: entry ? "done" : "unchanged",
      improved,
      summary: run.text,
      entry,
      refused: run.refused,
    };
  } catch (error) {
    await lock.rollback();
    return { ...empty, status: "failed", error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/**
 * Consolidation without a model (docs/design.md#consolidation, offline): the deterministic duplicate merge of
 * `dedupe.ts`, under the same lock and recorded in the same history; in propose mode it runs on
 * a scratch copy and stores a proposal. A `signal` that aborts (the CLI's SIGTERM / SIGINT) stops
 * it between two merges and winds the lock back, so a cancelled run does not count as a
 * consolidation; what it merged before stopping is recorded (status `failed`, `entry`).
 *
 * @example
 * const result = await runOfflineConsolidation({ memoryDir });
 */
export async function runOfflineConsolidation(
  options: Pick<ConsolidationOptions, "memoryDir" | "mode" | "now" | "isAlive" | "pid" | "signal"> & {
    /** Counts each step for a terminal (docs/design.md#progress). */
    progress?: ProgressSink;
  },
): Promise<ConsolidationResult> {
  const empty = emptyResult();
  const { signal, progress } = options;
  const acquired = await acquireConsolidationLock(options.memoryDir, options);
  if (!acquired.ok) return { ...empty, status: "locked" };
  const { lock } = acquired;
  try {
    throwIfAborted(signal, "consolidation");
    if (options.mode === "propose") {
      const proposal = await proposeChanges(options.memoryDir, {
        source: "dedupe",
        now: options.now,
        run: async (scratchDir) => {
          const planned = await dedupeMemories(scratchDir, { record: false, signal, progress });
          // A proposal of part of the plan would read as the whole one: none at all.
          if (planned.cancelled) throwIfAborted(signal, "consolidation");
          return describeGroups(planned.groups, "proposed");
        },
      });
      await lock.release();
      const improved = proposedMemoryChanges(proposal);
      return {
        ...empty,
        status: proposal ? "proposed" : "unchanged",
        improved,
        summary: proposal?.summary ?? "",
        proposal,
      };
    }
    const result = await dedupeMemories(options.memoryDir, { now: options.now, signal, progress });
    const outcome = {
      ...empty,
      improved: changedMemoryCount(result.entry),
      summary: describeApplied(result, result.groups.length),
      entry: result.entry,
      leftAlone: result.leftAlone,
    };
    if (result.cancelled) {
      await lock.rollback();
      return { ...outcome, status: "failed", error: cancelledError(signal, result) };
    }
    await lock.release();
    return { ...outcome, status: result.entry ? "done" : "unchanged" };
  } catch (error) {
    await lock.rollback();
    // Cancelled before any merge (while reading or planning): say so, not "aborted".
    if (signal?.aborted) return { ...empty, status: "failed", error: cancelledError(signal) };
    return { ...empty, status: "failed", error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/** The error of a cancelled offline run, with how far it got when it was merging. */
function cancelledError(
  signal: AbortSignal | undefined,
  progress?: { applied: unknown[]; groups: unknown[] },
): Error {
  const reason = signal?.reason instanceof Error ? signal.reason.message : "consolidation was cancelled";
  return new Error(
    progress
      ? `${reason} after ${progress.applied.length} of ${progress.groups.length} merges`
      : `${reason} before any merge`,
  );
}

/** The first non-empty line of the agent's summary, shortened: a history message. */
function summaryLine(text: string): string {
  const line = text
    .split("\n")
    .map((l) => l.replace(/^[#>*\-\s]+/, "").trim())
    .find((l) => l !== "");
  if (!line) return "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** The user-visible line after a run, or null when there is nothing to say. */
export function consolidationNotice(result: ConsolidationResult): string | null {
  if (result.status === "done" && result.improved > 0)
    return `Improved ${result.improved} ${result.improved === 1 ? "memory" : "memories"}`;
  if (result.status === "proposed" && result.proposal)
    return `Proposed changes to ${result.improved} ${result.improved === 1 ? "memory" : "memories"}, nothing changed yet: memdir dream --apply ${result.proposal.id}`;
  return null;
}

export interface AutoConsolidationOptions {
  /** `ResolvedConfig.autoDream`. */
  settings: DreamGateSettings & { mode?: "apply" | "propose" };
  memoryDir: string;
  projectDir: string;
  client: ModelClient | null;
  model?: string;
  currentSessionId?: string;
  /** Only the main agent consolidates (docs/design.md#consolidation-gates). */
  isMainAgent: boolean;
  /** Shared across calls in one process: the 10-minute session re-count throttle. */
  throttle: SessionScanThrottle;
  notify?: (text: string) => void;
  log?: (text: string) => void;
  now?: Clock;
  signal?: AbortSignal;
}

/**
 * The stop-hook entry: checks the gates (cheapest first, throttled) and, when they all pass,
 * starts a consolidation. Returns a promise the caller need not await (fire-and-forget); it never
 * rejects. Resolves to the gate decision and the run's result (null when it did not run).
 *
 * @example
 * const throttle = new SessionScanThrottle();
 * hooks.onStop("dream", (context) => { void maybeStartConsolidation({ settings: config.autoDream, memoryDir, projectDir,
 *   client, isMainAgent: context.isMainAgent, throttle, notify: context.notify }); });
 */
export function maybeStartConsolidation(
  options: AutoConsolidationOptions,
): Promise<{ decision: DreamDecision | null; result: ConsolidationResult | null }> {
  const log = options.log ?? (() => {});
  return (async () => {
    if (!options.isMainAgent || options.client === null) return { decision: null, result: null };
    const decision = await evaluateDreamGates({
      settings: options.settings,
      memoryDir: options.memoryDir,
      projectDir: options.projectDir,
      currentSessionId: options.currentSessionId,
      now: options.now,
      throttle: options.throttle,
    });
    if (!decision.wouldRun) return { decision, result: null };
    const result = await runConsolidation({
      memoryDir: options.memoryDir,
      projectDir: options.projectDir,
      client: options.client,
      model: options.model,
      mode: options.settings.mode ?? "apply",
      currentSessionId: options.currentSessionId,
      now: options.now,
      signal: options.signal,
    });
    if (result.error) log(`memdir: consolidation failed: ${result.error.message}`);
    const notice = consolidationNotice(result);
    if (notice) options.notify?.(notice);
    return { decision, result };
  })().catch((error: unknown) => {
    log(`memdir: consolidation failed: ${error instanceof Error ? error.message : String(error)}`);
    return { decision: null, result: null };
  });
}

export { SessionScanThrottle };

/** Memories a proposal would change; index-only edits do not count as improvements. */
function proposedMemoryChanges(proposal: { changes: { file: string }[] } | null): number {
  return proposal ? proposal.changes.filter((change) => !/(^|\/)MEMORY\.md$/.test(change.file)).length : 0;
}
