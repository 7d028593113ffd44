// Faults: a host that starts a hook and never closes its stdin. The hook used
// to print `{}` at its bound and then live on, waiting for the rest of its input. Each event runs
// as a real child; one still running 30 s after its 300 ms bound is a hang (killed, counted).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOOK_EVENTS } from "../../src/hosts/shared/hook-events.ts";
import { startProcess } from "../helpers/cli.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { recordBoundedRun } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";

const HANG_BOUND_MS = 30_000;

function hookWithOpenStdin(home: string, event: string) {
  const started = startProcess(process.execPath, [...cliNodeArgs(), "hook", event, "--timeout-ms", "300"], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
    timeoutMs: HANG_BOUND_MS,
  });
  started.child.stdin.write(`{"session_id": "s-1", "cwd": ${JSON.stringify(home)}, "prompt": "still typing`);
  return started.result.finally(() => started.child.stdin.destroy());
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
