// Faults: a host that starts a hook and never closes its stdin (issue 22, item 11). The hook used
// to print `{}` at its bound and then live on, waiting for the rest of its input. Each event runs
// as a real child; one still running 30 s after its 300 ms bound is a hang (killed, counted).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import { HOOK_EVENTS } from "../../src/hooks/events.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { recordBoundedRun } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";

const HANG_BOUND_MS = 30_000;

function hookWithOpenStdin(home: string, event: string) {
  const child = spawn(process.execPath, [...cliNodeArgs(), "hook", event, "--timeout-ms", "300"], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.write(`{"session_id": "s-1", "cwd": ${JSON.stringify(home)}, "prompt": "still typing`);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, HANG_BOUND_MS);
  return new Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }>((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(killer);
      child.stdin.destroy();
      resolve({ code, stdout, stderr, timedOut });
    }),
  );
}

describe("a hook whose stdin never closes", () => {
  for (const event of HOOK_EVENTS) {
    it(`${event}: answers {} at its bound and exits 0`, async () => {
      const result = await hookWithOpenStdin(makeTempDir("memdir-hook-stdin-"), event);
      recordBoundedRun("faults", result);
      assert.equal(result.timedOut, false, `it lived on past its bound (stderr: ${result.stderr})`);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), {});
      assert.match(result.stderr, /300 ms/, "it says why");
    });
  }
});
