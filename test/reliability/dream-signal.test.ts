// Faults: a consolidation killed part-way (docs/design.md#the-consolidation-lock). The lock file's mtime is the time
// of the last consolidation (docs/design.md#the-consolidation-lock); a `memdir dream` ended by
// SIGTERM while its model call was still out left the new mtime behind, so the time gate held
// every later run back for 24 hours although nothing had been consolidated.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseIndex } from "../../src/memdir/format/index-file.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli, startProcess } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { recordBoundedRun } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";

const HOUR_MS = 60 * 60 * 1000;

/** The run did not count: no PID in the lock, its time still the last real run's, the gate agrees. */
async function assertNotCounted(home: string, memoryDir: string, lastRun: Date): Promise<void> {
  const lockPath = path.join(memoryDir, ".consolidate-lock");
  assert.equal(fs.readFileSync(lockPath, "utf8"), "", "no PID left in the lock");
  const mtimeMs = fs.statSync(lockPath).mtimeMs;
  assert.ok(
    Math.abs(mtimeMs - lastRun.getTime()) < 1000,
    `the last run is still two days ago (${new Date(mtimeMs).toISOString()})`,
  );
  const status = await runCli(["dream", "--status", "--json", "--dir", memoryDir], { home });
  assert.equal(status.code, 0, status.stderr);
  const gates = JSON.parse(status.stdout) as { hoursSinceLast: number; lock: string };
  assert.ok(gates.hoursSinceLast > 47, `hours since the last consolidation: ${gates.hoursSinceLast}`);
  assert.equal(gates.lock, "free");
}

/** `memdir dream --force` on `memoryDir` as a real child, killed at `boundMs` (counted as a hang). */
function startDream(home: string, memoryDir: string, env: Record<string, string>, boundMs: number) {
  const started = startProcess(process.execPath, [...cliNodeArgs(), "dream", "--force", "--dir", memoryDir], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", ...env },
    timeoutMs: boundMs,
  });
  started.child.stdin.end();
  const output = () => {
    const { stdout, stderr } = started.output();
    return `${stdout}${stderr}`;
  };
  return { child: started.child, output, result: started.result };
}

describe("a dream killed by SIGTERM", () => {
  it("does not count as a run: the lock's time is wound back and no PID is left", async () => {
    const home = makeTempDir("memdir-dream-signal-");
    const memoryDir = path.join(home, "project", "memory");
    writeMemory(memoryDir, "feedback-real-db.md", memory("tests hit a real database", "Never mock it."));
    fs.writeFileSync(
      path.join(memoryDir, "MEMORY.md"),
      "- [Real DB](feedback-real-db.md) — tests hit a real database\n",
    );
    // The last real consolidation, two days ago.
    const lockPath = path.join(memoryDir, ".consolidate-lock");
    const lastRun = new Date(Date.now() - 48 * HOUR_MS);
    fs.writeFileSync(lockPath, "");
    fs.utimesSync(lockPath, lastRun, lastRun);

    // The model holds its first answer until the client gives up.
    const server = await startFakeModelServer([{ hang: true }]);
    const env = { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.anthropicBaseURL };
    const { child, output, result } = startDream(home, memoryDir, env, 60_000);
    try {
      await waitFor(() => server.requests.length > 0, { what: "the dream's model call" });
      assert.match(fs.readFileSync(lockPath, "utf8"), /^\d+$/, "the running dream holds the lock");
      child.kill("SIGTERM");
      const ended = await result;
      const { code, signal } = ended;
      recordBoundedRun("faults", ended, {
        losses: fs.existsSync(path.join(memoryDir, "feedback-real-db.md")) ? 0 : 1,
      });
      assert.equal(signal, null, `the dream cleaned up and exited itself (output: ${output()})`);
      assert.equal(code, 143, "exit code 128 + SIGTERM");
      await assertNotCounted(home, memoryDir, lastRun);
    } finally {
      child.kill("SIGKILL");
      await server.close();
    }
  });
});

// The offline dream (no model) took no notice of the signal: it finished every merge and counted
// as a run. Now it stops between two merges (each group whole), winds the lock back and exits
// 128 + the signal's number; what it merged before stopping is recorded and can be undone.
describe("an offline dream stopped by a signal part-way through its merges", () => {
  const PAIRS = 300;
  // Equal files: the survivor is the first by name.
  const copyFile = (i: number) => `project-topic-${i}-b.md`;
  const keptFile = (i: number) => `project-topic-${i}-a.md`;
  // Words no other pair has, so each pair is one group of its own.
  const words = (i: number, what: string) =>
    Array.from({ length: 10 }, (_, k) => `${what}${i}x${k}`).join(" ");

  for (const [signal, exitCode] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`${signal}: stops between two merges, each merge whole; the run does not count; exit ${exitCode}`, async () => {
      const home = makeTempDir("memdir-dream-signal-offline-");
      const memoryDir = path.join(home, "project", "memory");
      let index = "";
      const saved = new Date(Date.now() - HOUR_MS); // the same time for both: no newer copy
      for (let i = 0; i < PAIRS; i++) {
        const text = memory(`topic ${words(i, "d")}`, `Body ${words(i, "b")}.`, "project");
        writeMemory(memoryDir, keptFile(i), text, saved);
        writeMemory(memoryDir, copyFile(i), text, saved);
        index += `- [Topic ${i}](${keptFile(i)}) — topic ${i}\n- [Topic ${i} again](${copyFile(i)}) — topic ${i}\n`;
      }
      fs.writeFileSync(path.join(memoryDir, "MEMORY.md"), index);
      const lockPath = path.join(memoryDir, ".consolidate-lock");
      const lastRun = new Date(Date.now() - 48 * HOUR_MS);
      fs.writeFileSync(lockPath, "");
      fs.utimesSync(lockPath, lastRun, lastRun);
      const copiesLeft = () => fs.readdirSync(memoryDir).filter((f) => f.endsWith("-b.md")).length;

      const bound = 120_000;
      const { child, output, result } = startDream(home, memoryDir, {}, bound);
      try {
        // Mid-run, seen from its progress: the first merge has removed its copy.
        await waitFor(
          () => {
            assert.equal(child.exitCode, null, `the dream ended before its first merge: ${output()}`);
            return copiesLeft() < PAIRS;
          },
          { what: "the first merge", interval: 5, timeout: bound },
        );
        child.kill(signal);
        const ended = await result;
        const { code, signal: endedBy } = ended;

        const onDisk = new Set(fs.readdirSync(memoryDir));
        const indexed = parseIndex(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8")).map(
          (e) => e.file,
        );
        const merged = Array.from({ length: PAIRS }, (_, i) => i).filter((i) => !onDisk.has(copyFile(i)));
        // Lost: a survivor gone, an index line without its file or a file without its line.
        const lost = [
          ...Array.from({ length: PAIRS }, (_, i) => keptFile(i)).filter((f) => !onDisk.has(f)),
          ...indexed.filter((f) => !onDisk.has(f)),
          ...[...onDisk].filter((f) => f.endsWith(".md") && f !== "MEMORY.md" && !indexed.includes(f)),
        ];
        recordBoundedRun("faults", ended, { losses: lost.length });
        assert.equal(endedBy, null, `the dream stopped itself (output: ${output()})`);
        assert.equal(code, exitCode, `exit code 128 + ${signal} (output: ${output()})`);
        assert.ok(
          merged.length > 0 && merged.length < PAIRS,
          `stopped part-way: ${merged.length} of ${PAIRS} merges applied (output: ${output()})`,
        );
        assert.match(
          output(),
          new RegExp(`cancelled by ${signal} after ${merged.length} of ${PAIRS} merges`),
        );
        assert.deepEqual(lost, [], "every memory keeps its file and its one index line");
        assert.equal(indexed.length, new Set(indexed).size, "no index line twice");
        for (let i = 0; i < PAIRS; i++) {
          const lines = indexed.filter((f) => f === keptFile(i) || f === copyFile(i)).length;
          assert.equal(
            lines,
            merged.includes(i) ? 1 : 2,
            `topic ${i}: a merge is applied whole or not at all`,
          );
        }
        // Dot-files: the consolidation lock and the history (git); nothing else, no temp file.
        const leftovers = [...onDisk].filter(
          (f) => f.startsWith(".") && f !== ".consolidate-lock" && f !== ".git",
        );
        assert.deepEqual(leftovers, [], "no temp file left behind");

        await assertNotCounted(home, memoryDir, lastRun);

        // What it merged before stopping is recorded: undo brings every copy back.
        const undo = await runCli(["undo", "--dir", memoryDir], { home, timeoutMs: 60_000 });
        assert.equal(undo.code, 0, undo.stderr);
        assert.equal(copiesLeft(), PAIRS, undo.stdout);
      } finally {
        child.kill("SIGKILL");
      }
    });
  }
});
