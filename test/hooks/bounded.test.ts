import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import { bounded, MAX_HOOK_INPUT_BYTES } from "../../src/hooks/bounded.ts";
import { makeMemdirPackage } from "../helpers/memdir-package.ts";
import { makeTempDir } from "../helpers/temp.ts";

describe("bounded", () => {
  it("returns the work's value when it finishes in time", async () => {
    assert.equal(await bounded(10_000, "fallback", async () => "done"), "done");
  });

  it("returns the fallback and aborts the work when it never finishes", async () => {
    let seen: AbortSignal | undefined;
    const reasons: string[] = [];
    const value = await bounded(
      20,
      "fallback",
      (signal) => {
        seen = signal;
        return new Promise<string>(() => {});
      },
      (reason) => reasons.push(reason),
    );
    assert.equal(value, "fallback");
    assert.equal(seen?.aborted, true, "the work is told to stop");
    assert.match(reasons[0], /timed out after 20 ms/);
  });

  it("returns the fallback when the work throws, never the error", async () => {
    const reasons: string[] = [];
    const value = await bounded(
      10_000,
      null,
      async () => {
        throw new Error("index unreadable");
      },
      (reason) => reasons.push(reason),
    );
    assert.equal(value, null);
    assert.deepEqual(reasons, ["index unreadable"]);
  });
});

/**
 * Runs `memdir hook user-prompt-submit` as a host does (bin/memdir.js, a fresh process) and feeds
 * it stdin without end, 1 MB at a time, until the hook stops reading; its exit code and output.
 */
function hookFedEndlessly(
  pkg: { bin: string },
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = makeTempDir("memdir-hook-stdin-");
  return new Promise((resolve) => {
    // A bound far beyond the cap's: without the cap, the hook would answer at this bound instead.
    const child = spawn(process.execPath, [pkg.bin, "hook", "user-prompt-submit", "--timeout-ms", "600000"], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const garbage = Buffer.alloc(1024 * 1024, "x{[");
    let open = true;
    const feed = () => {
      while (open && child.stdin.write(garbage));
    };
    child.stdin.on("drain", feed);
    child.stdin.on("error", () => {
      open = false; // the hook closed its stdin: it stopped reading
    });
    child.on("close", (code) => {
      open = false;
      resolve({ code, stdout, stderr });
    });
    feed();
  });
}

describe("a hook's stdin", () => {
  const pkg = makeMemdirPackage();
  const expected = {
    code: 0,
    stdout: "{}\n",
    stderr: `memdir: hook user-prompt-submit: stdin is over ${MAX_HOOK_INPUT_BYTES / (1024 * 1024)} MB, no hook's JSON; stopped reading; nothing to add\n`,
  };

  it("is read no further than its cap when it never ends, and the hook answers {} and exits 0 (helper off)", async () => {
    assert.deepEqual(await hookFedEndlessly(pkg, { MEMDIR_HELPER: "0" }), expected);
  });

  it("is read no further than its cap by the memory helper's client either", async () => {
    assert.deepEqual(await hookFedEndlessly(pkg, {}), expected);
  });
});
