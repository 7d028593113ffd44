import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { evaluateDreamGates, SessionScanThrottle } from "../../src/dream/gate.ts";
import { CONSOLIDATE_LOCK_FILE } from "../../src/dream/lock.ts";
import { makeTempDir } from "../helpers/temp.ts";

const HOUR = 60 * 60 * 1000;
const NOW = Date.parse("2026-03-01T12:00:00Z");
const settings = { enabled: true, minHours: 24, minSessions: 5 };

function setMtime(file: string, ms: number): void {
  fs.utimesSync(file, ms / 1000, ms / 1000);
}

/** A project dir with a memory dir, a lock last touched `hoursAgo`, and `sessions` transcripts changed since. */
function layout(options: {
  hoursAgo: number | null;
  sessions: number;
  oldSessions?: number;
  current?: string;
}) {
  const projectDir = makeTempDir();
  const memoryDir = path.join(projectDir, "memory");
  fs.mkdirSync(memoryDir);
  const lastMs = options.hoursAgo === null ? null : NOW - options.hoursAgo * HOUR;
  if (lastMs !== null) {
    fs.writeFileSync(path.join(memoryDir, CONSOLIDATE_LOCK_FILE), "");
    setMtime(path.join(memoryDir, CONSOLIDATE_LOCK_FILE), lastMs);
  }
  for (let i = 0; i < options.sessions; i++) {
    const file = path.join(projectDir, `session-${i}.jsonl`);
    fs.writeFileSync(file, "{}\n");
    setMtime(file, NOW - HOUR);
  }
  for (let i = 0; i < (options.oldSessions ?? 0); i++) {
    const file = path.join(projectDir, `old-${i}.jsonl`);
    fs.writeFileSync(file, "{}\n");
    setMtime(file, (lastMs ?? NOW) - 2 * HOUR);
  }
  if (options.current) {
    const file = path.join(projectDir, `${options.current}.jsonl`);
    fs.writeFileSync(file, "{}\n");
    setMtime(file, NOW);
  }
  return { projectDir, memoryDir };
}

describe("dream gates", () => {
  it("passes every gate after 25 hours and 5 other sessions", async () => {
    const dirs = layout({ hoursAgo: 25, sessions: 5 });
    const decision = await evaluateDreamGates({ settings, ...dirs, now: () => NOW });
    assert.equal(decision.enabled, true);
    assert.equal(decision.hoursSinceLast, 25);
    assert.equal(decision.sessionsSince, 5);
    assert.equal(decision.lock, "free");
    assert.equal(decision.wouldRun, true);
  });

  it("holds back at 23 hours since the last consolidation", async () => {
    const dirs = layout({ hoursAgo: 23, sessions: 9 });
    const decision = await evaluateDreamGates({ settings, ...dirs, now: () => NOW });
    assert.equal(decision.hoursSinceLast, 23);
    assert.equal(decision.wouldRun, false);
    assert.equal(decision.blockedBy, "time");
  });

  it("holds back with 4 other sessions and runs with 5", async () => {
    const four = await evaluateDreamGates({
      settings,
      ...layout({ hoursAgo: 25, sessions: 4 }),
      now: () => NOW,
    });
    assert.equal(four.sessionsSince, 4);
    assert.equal(four.wouldRun, false);
    assert.equal(four.blockedBy, "sessions");
    const five = await evaluateDreamGates({
      settings,
      ...layout({ hoursAgo: 25, sessions: 5 }),
      now: () => NOW,
    });
    assert.equal(five.wouldRun, true);
  });

  it("does not count the current session, nor sessions older than the last consolidation", async () => {
    const dirs = layout({ hoursAgo: 25, sessions: 4, oldSessions: 3, current: "me" });
    const decision = await evaluateDreamGates({ settings, ...dirs, currentSessionId: "me", now: () => NOW });
    assert.equal(decision.sessionsSince, 4);
    assert.equal(decision.wouldRun, false);
    const counted = await evaluateDreamGates({ settings, ...dirs, now: () => NOW });
    assert.equal(counted.sessionsSince, 5, "without a current session id the same file counts");
  });

  it("treats a memory dir that was never consolidated as due", async () => {
    const dirs = layout({ hoursAgo: null, sessions: 5 });
    const decision = await evaluateDreamGates({ settings, ...dirs, now: () => NOW });
    assert.equal(decision.hoursSinceLast, null);
    assert.equal(decision.wouldRun, true);
  });

  it("is off when auto dream is disabled, unless forced", async () => {
    const dirs = layout({ hoursAgo: 25, sessions: 5 });
    const off = { ...settings, enabled: false };
    const decision = await evaluateDreamGates({ settings: off, ...dirs, now: () => NOW });
    assert.equal(decision.enabled, false);
    assert.equal(decision.wouldRun, false);
    assert.equal(decision.blockedBy, "disabled");
    const forced = await evaluateDreamGates({ settings: off, ...dirs, now: () => NOW, force: true });
    assert.equal(forced.wouldRun, true);
  });

  it("--force skips the time and session gates but not a held lock", async () => {
    const dirs = layout({ hoursAgo: 1, sessions: 0 });
    const forced = await evaluateDreamGates({ settings, ...dirs, now: () => NOW, force: true });
    assert.equal(forced.wouldRun, true);
    fs.writeFileSync(path.join(dirs.memoryDir, CONSOLIDATE_LOCK_FILE), String(process.pid));
    setMtime(path.join(dirs.memoryDir, CONSOLIDATE_LOCK_FILE), NOW - 60_000);
    const held = await evaluateDreamGates({ settings, ...dirs, now: () => NOW, force: true });
    assert.equal(held.lock, "held");
    assert.equal(held.wouldRun, false);
  });

  it("re-counts sessions at most every 10 minutes on the automatic path", async () => {
    const dirs = layout({ hoursAgo: 25, sessions: 4 });
    const throttle = new SessionScanThrottle();
    let now = NOW;
    const first = await evaluateDreamGates({ settings, ...dirs, now: () => now, throttle });
    assert.equal(first.blockedBy, "sessions");
    fs.writeFileSync(path.join(dirs.projectDir, "late.jsonl"), "{}\n");
    setMtime(path.join(dirs.projectDir, "late.jsonl"), NOW);
    now = NOW + 9 * 60 * 1000;
    const second = await evaluateDreamGates({ settings, ...dirs, now: () => now, throttle });
    assert.equal(second.blockedBy, "throttled");
    assert.equal(second.sessionsSince, null);
    now = NOW + 10 * 60 * 1000;
    const third = await evaluateDreamGates({ settings, ...dirs, now: () => now, throttle });
    assert.equal(third.sessionsSince, 5);
    assert.equal(third.wouldRun, true);
  });
});
