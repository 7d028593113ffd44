import fs from "node:fs/promises";
import path from "node:path";
import type { Clock } from "../types.ts";
import { inspectConsolidationLock, type ProcessProbe, readLastConsolidatedAt } from "./lock.ts";

/** The consolidation settings the gates read (`ResolvedConfig.autoDream`). */
export interface DreamGateSettings {
  enabled: boolean;
  minHours: number;
  minSessions: number;
}

/** How often the automatic path may re-count sessions (docs/design.md#consolidation-gates). */
export const SESSION_SCAN_INTERVAL_MS = 10 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/**
 * Remembers when sessions were last counted, in-process. The stop hook runs after every turn;
 * once the time gate opens, re-listing the transcript folder each turn would be wasted work, so
 * a count is reused for 10 minutes. Kept in memory rather than in a state file: the throttle only
 * matters inside a long-running agent process, and a file would be one more write in the memory
 * dir (and in its history) per turn.
 */
export class SessionScanThrottle {
  private lastScanMs: number | null = null;

  /** True when a count may run now (never counted, or 10 minutes have passed). */
  mayScan(nowMs: number): boolean {
    return this.lastScanMs === null || nowMs - this.lastScanMs >= SESSION_SCAN_INTERVAL_MS;
  }

  /** Records that a count ran at `nowMs`. */
  markScanned(nowMs: number): void {
    this.lastScanMs = nowMs;
  }
}

/** Each gate's result; the first five fields are the `memdir dream --status --json` shape. */
export interface DreamDecision {
  enabled: boolean;
  /** Hours since the last consolidation; null when none ever ran (the time gate then passes). */
  hoursSinceLast: number | null;
  /** Other sessions changed since the last consolidation; null when not counted (an earlier gate failed or the throttle held). */
  sessionsSince: number | null;
  lock: "free" | "held" | "stale";
  wouldRun: boolean;
  minHours: number;
  minSessions: number;
  lastConsolidatedAt: string | null;
  /** Why it would not run (the first failing gate), or null. */
  blockedBy: "disabled" | "time" | "throttled" | "sessions" | "lock" | null;
}

/** The time gate: never consolidated, or at least `minHours` since the last time. */
export function timeGatePasses(hoursSinceLast: number | null, minHours: number): boolean {
  return hoursSinceLast === null || hoursSinceLast >= minHours;
}

/** The session gate: at least `minSessions` other sessions changed since the last consolidation. */
export function sessionGatePasses(sessionsSince: number, minSessions: number): boolean {
  return sessionsSince >= minSessions;
}

/**
 * Counts session transcripts (`<projectDir>/*.jsonl`) modified after `sinceMs` (all of them when
 * null), leaving out the current session: a session must not count towards its own consolidation.
 */
export async function countSessionsSince(
  projectDir: string,
  sinceMs: number | null,
  currentSessionId?: string,
): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(projectDir);
  } catch {
    return 0;
  }
  const excluded = currentSessionId ? `${currentSessionId}.jsonl` : null;
  let count = 0;
  for (const name of names) {
    if (!name.endsWith(".jsonl") || name === excluded) continue;
    try {
      const stat = await fs.stat(path.join(projectDir, name));
      if (stat.isFile() && (sinceMs === null || stat.mtimeMs > sinceMs)) count++;
    } catch {
      // vanished between readdir and stat: not a session any more
    }
  }
  return count;
}

export interface GateInput {
  settings: DreamGateSettings;
  memoryDir: string;
  /** Where session transcripts live: the parent of the memory dir. */
  projectDir: string;
  currentSessionId?: string;
  now?: Clock;
  /** Skip the time and session gates (never the lock): `memdir dream --force`. */
  force?: boolean;
  /**
   * Automatic path (stop hook): stop at the first failing gate and honour the 10-minute
   * re-count throttle. Without it every gate is evaluated, for `--status`.
   */
  throttle?: SessionScanThrottle;
  isAlive?: ProcessProbe;
}

/**
 * Evaluates the consolidation gates, cheapest first (docs/design.md#consolidation-gates): enabled → hours since the last
 * consolidation (one `stat`) → re-count throttle → other sessions changed since then → the lock.
 * Only inspects the lock; the caller acquires it.
 *
 * @example
 * const decision = await evaluateDreamGates({ settings: config.autoDream, memoryDir, projectDir });
 * if (decision.wouldRun) await runConsolidation(...);
 */
export async function evaluateDreamGates(input: GateInput): Promise<DreamDecision> {
  const now = input.now ?? Date.now;
  const { settings } = input;
  const automatic = input.throttle !== undefined;
  const decision: DreamDecision = {
    enabled: settings.enabled,
    hoursSinceLast: null,
    sessionsSince: null,
    lock: "free",
    wouldRun: false,
    minHours: settings.minHours,
    minSessions: settings.minSessions,
    lastConsolidatedAt: null,
    blockedBy: null,
  };
  const block = (gate: NonNullable<DreamDecision["blockedBy"]>) => {
    decision.blockedBy ??= gate;
  };
  // --force is an explicit request, so it also overrides "auto dream disabled".
  if (!settings.enabled && !input.force) {
    block("disabled");
    if (automatic) return decision;
  }

  const lastMs = await readLastConsolidatedAt(input.memoryDir);
  const nowMs = now();
  decision.lastConsolidatedAt = lastMs === null ? null : new Date(lastMs).toISOString();
  decision.hoursSinceLast = lastMs === null ? null : Math.max(0, (nowMs - lastMs) / HOUR_MS);
  if (!input.force && !timeGatePasses(decision.hoursSinceLast, settings.minHours)) {
    block("time");
    if (automatic) return decision;
  }

  if (input.throttle && !input.force) {
    if (!input.throttle.mayScan(nowMs)) {
      block("throttled");
      return decision;
    }
    input.throttle.markScanned(nowMs);
  }
  decision.sessionsSince = await countSessionsSince(input.projectDir, lastMs, input.currentSessionId);
  if (!input.force && !sessionGatePasses(decision.sessionsSince, settings.minSessions)) {
    block("sessions");
    if (automatic) return decision;
  }

  const lock = await inspectConsolidationLock(input.memoryDir, { now, isAlive: input.isAlive });
  decision.lock = lock.status;
  if (lock.status === "held") block("lock");
  decision.wouldRun = decision.blockedBy === null;
  return decision;
}
