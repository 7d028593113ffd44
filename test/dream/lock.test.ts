import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  acquireConsolidationLock,
  CONSOLIDATE_LOCK_FILE,
  inspectConsolidationLock,
  readLastConsolidatedAt,
} from "../../src/dream/lock.ts";
import { makeTempDir } from "../helpers/temp.ts";

const HOUR = 60 * 60 * 1000;
const NOW = Date.parse("2026-03-01T12:00:00Z");

/** A PID that certainly belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

function writeLock(memoryDir: string, body: string, mtimeMs: number): string {
  const file = path.join(memoryDir, CONSOLIDATE_LOCK_FILE);
  fs.writeFileSync(file, body);
  fs.utimesSync(file, mtimeMs / 1000, mtimeMs / 1000);
  return file;
}

describe("consolidation lock", () => {
  it("is free when no consolidation ever ran, and taking it records the time", async () => {
    const memoryDir = makeTempDir();
    assert.equal(await readLastConsolidatedAt(memoryDir), null);
    const result = await acquireConsolidationLock(memoryDir, { now: () => NOW });
    assert.ok(result.ok);
    assert.equal(fs.readFileSync(path.join(memoryDir, CONSOLIDATE_LOCK_FILE), "utf8"), String(process.pid));
    await result.lock.release();
    assert.equal(await readLastConsolidatedAt(memoryDir), NOW);
    const after = await inspectConsolidationLock(memoryDir, { now: () => NOW });
    assert.equal(after.status, "free", "a finished run leaves no holder");
  });

  it("blocks while a live holder younger than an hour has it", async () => {
    const memoryDir = makeTempDir();
    writeLock(memoryDir, String(process.pid), NOW - 30 * 60 * 1000);
    assert.equal((await inspectConsolidationLock(memoryDir, { now: () => NOW })).status, "held");
    const result = await acquireConsolidationLock(memoryDir, { now: () => NOW, pid: process.pid + 1 });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.reason, "held");
  });

  it("reclaims a lock whose holder process is dead", async () => {
    const memoryDir = makeTempDir();
    writeLock(memoryDir, String(deadPid()), NOW - 60_000);
    assert.equal((await inspectConsolidationLock(memoryDir, { now: () => NOW })).status, "stale");
    const result = await acquireConsolidationLock(memoryDir, { now: () => NOW });
    assert.ok(result.ok);
    assert.equal(result.lock.priorMtimeMs, NOW - 60_000);
  });

  it("reclaims a lock older than an hour even when its holder lives", async () => {
    const memoryDir = makeTempDir();
    writeLock(memoryDir, String(process.pid), NOW - HOUR - 1000);
    assert.equal((await inspectConsolidationLock(memoryDir, { now: () => NOW })).status, "stale");
    const result = await acquireConsolidationLock(memoryDir, { now: () => NOW, pid: process.pid + 1 });
    assert.ok(result.ok);
  });

  it("winds the mtime back to its prior value after a failed run", async () => {
    const memoryDir = makeTempDir();
    const before = NOW - 30 * HOUR;
    writeLock(memoryDir, "", before);
    const result = await acquireConsolidationLock(memoryDir, { now: () => NOW });
    assert.ok(result.ok);
    assert.equal(await readLastConsolidatedAt(memoryDir), NOW);
    await result.lock.rollback();
    assert.equal(await readLastConsolidatedAt(memoryDir), before);
    assert.equal((await inspectConsolidationLock(memoryDir, { now: () => NOW })).status, "free");
  });

  it("removes the lock again when a first-ever run fails, so it still counts as never consolidated", async () => {
    const memoryDir = makeTempDir();
    const result = await acquireConsolidationLock(memoryDir, { now: () => NOW });
    assert.ok(result.ok);
    await result.lock.rollback();
    assert.equal(await readLastConsolidatedAt(memoryDir), null);
  });

  it("lets a crashed holder's lock be reclaimed by the next process", async () => {
    const memoryDir = makeTempDir();
    // A child takes the lock and exits without releasing it (a crash).
    const script = `
      const { acquireConsolidationLock } = await import(${JSON.stringify(path.resolve("src/dream/lock.ts"))});
      const r = await acquireConsolidationLock(${JSON.stringify(memoryDir)});
      process.exit(r.ok ? 0 : 3);`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
    assert.equal(child.status, 0, String(child.stderr));
    const inspected = await inspectConsolidationLock(memoryDir);
    assert.equal(inspected.status, "stale");
    const result = await acquireConsolidationLock(memoryDir);
    assert.ok(result.ok);
  });

  it("lets only one of two concurrent reclaimers win", async () => {
    const memoryDir = makeTempDir();
    writeLock(memoryDir, String(deadPid()), NOW - 2 * HOUR);
    const results = await Promise.all(
      [101, 202, 303].map((pid) =>
        acquireConsolidationLock(memoryDir, { now: () => NOW, pid, isAlive: (p) => p !== 0 && p < 1000 }),
      ),
    );
    assert.equal(results.filter((r) => r.ok).length, 1);
  });
});
