// Faults: a consolidation killed part-way (issue 22, item 11). The lock file's mtime is the time
// of the last consolidation (docs/design.md#the-consolidation-lock); a `memdir dream` ended by
// SIGTERM while its model call was still out left the new mtime behind, so the time gate held
// every later run back for 24 hours although nothing had been consolidated.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";

const HOUR_MS = 60 * 60 * 1000;

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
    const child = spawn(process.execPath, [...cliNodeArgs(), "dream", "--force", "--dir", memoryDir], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal })),
    );
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    try {
      await waitFor(() => server.requests.length > 0, { what: "the dream's model call" });
      assert.match(fs.readFileSync(lockPath, "utf8"), /^\d+$/, "the running dream holds the lock");
      child.kill("SIGTERM");
      const { code, signal } = await exited;
      assert.equal(signal, null, `the dream cleaned up and exited itself (output: ${output})`);
      assert.equal(code, 143, "exit code 128 + SIGTERM");
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
    } finally {
      clearTimeout(killer);
      child.kill("SIGKILL");
      await server.close();
    }
  });
});
