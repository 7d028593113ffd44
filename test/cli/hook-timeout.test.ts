import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_HOOK_TIMEOUT_MS } from "../../src/cli/commands/hosts/hook.ts";
import { runCli, startProcess } from "../helpers/cli.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";

/** `memdir hook user-prompt-submit` fed a payload whose stdin never closes: how long it waits. */
function hookWithOpenStdin(home: string, env: Record<string, string>, args: string[] = []) {
  const started = startProcess(process.execPath, [...cliNodeArgs(), "hook", "user-prompt-submit", ...args], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
  });
  started.child.stdin.write('{"prompt": "still typing'); // and never ended
  return started.result;
}

describe("memdir hook: MEMDIR_HOOK_TIMEOUT_MS", () => {
  it("bounds a hook given no --timeout-ms, so one setting raises or lowers every hook", async () => {
    const home = makeTempDir("memdir-hook-timeout-");
    // 300 ms instead of the default 8 s: exiting by itself (not by the 30 s killer) shows it applied.
    const result = await hookWithOpenStdin(home, { MEMDIR_HOOK_TIMEOUT_MS: "300" });
    assert.equal(result.signal, null, "exited at its bound, not killed");
    assert.equal(result.code, 0);
    assert.deepEqual(JSON.parse(result.stdout), {});
    assert.match(result.stderr, /300 ms/);
  });

  it("lets --timeout-ms win over it", async () => {
    const home = makeTempDir("memdir-hook-timeout-");
    const result = await hookWithOpenStdin(home, { MEMDIR_HOOK_TIMEOUT_MS: "600000" }, [
      "--timeout-ms",
      "300",
    ]);
    assert.equal(result.signal, null, "exited at --timeout-ms, not at the environment's 10 minutes");
    assert.match(result.stderr, /300 ms/);
  });

  it("says why it ignores a value that is not a positive number, and still answers", async () => {
    const home = makeTempDir("memdir-hook-timeout-");
    const result = await runCli(["hook", "user-prompt-submit"], {
      home,
      env: { MEMDIR_HOOK_TIMEOUT_MS: "soon" },
      input: "{}",
    });
    assert.equal(result.code, 0);
    assert.deepEqual(JSON.parse(result.stdout), {});
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(
        `MEMDIR_HOOK_TIMEOUT_MS must be a positive number of milliseconds, got "soon"; using ${DEFAULT_HOOK_TIMEOUT_MS}\\b`,
      ),
    );
  });
});
