// The tiers of scripts/test-tiers.mjs: `npm run test:fast` runs only files that start none of
// memdir's processes, a browser, an agent or the package, so it stays fast; this keeps it so.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
// @ts-expect-error: a plain .mjs script without types
import { FAST_FILES, PROCESS_MARKERS, SLOW_FILES, tierOf } from "../../scripts/test-tiers.mjs";

const testRoot = path.resolve(import.meta.dirname, "..");
const testFiles = fs
  .readdirSync(testRoot, { recursive: true })
  .map((f) => String(f).split(path.sep).join("/"))
  .filter((f) => f.endsWith(".test.ts"))
  .sort();

describe("the test tiers", () => {
  it("keep every file that starts a process of memdir's, a browser, an agent or the package out of the fast tier", () => {
    const offenders = testFiles
      .filter((file) => tierOf(file) === "fast")
      .flatMap((file) => {
        const text = fs.readFileSync(path.join(testRoot, file), "utf8");
        return PROCESS_MARKERS.filter((marker: string) => text.includes(marker)).map(
          (marker: string) => `${file}: ${marker}`,
        );
      });
    assert.deepEqual(
      offenders,
      [],
      "list these in SLOW_FILES (scripts/test-tiers.mjs) or run the CLI in-process",
    );
  });

  it("keep the fast files fit to share a process: no process-wide state changed, no top-level await", () => {
    // scripts/run-tests.mjs runs the fast tier's files in two processes, each importing its share.
    const processState =
      /process\.chdir\(|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env|Object\.assign\(process\.env|process\.exitCode\s*=|process\.on\(|process\.umask\(|mock\.timers/;
    const topLevelAwait = /^\S.*\bawait\b/m;
    const offenders = testFiles
      .filter((file) => tierOf(file) === "fast")
      .flatMap((file) => {
        const text = fs.readFileSync(path.join(testRoot, file), "utf8");
        return [
          ...(processState.test(text) ? [`${file}: changes process-wide state`] : []),
          ...(topLevelAwait.test(text) ? [`${file}: awaits at the top level`] : []),
        ];
      });
    assert.deepEqual(
      offenders,
      [],
      "pass env and cwd in and await inside tests, or list the file in SLOW_FILES",
    );
  });

  it("list only files that exist as slow", () => {
    assert.deepEqual(
      Object.keys(SLOW_FILES as Record<string, string>).filter((file) => !testFiles.includes(file)),
      [],
    );
  });

  it("let a file out of a slow folder only when it exists and runs no git and no other program", () => {
    const listed = Object.keys(FAST_FILES as Record<string, string>);
    assert.deepEqual(
      listed.filter((file) => !testFiles.includes(file)),
      [],
    );
    // The process markers are checked above for every fast file; these are the other ways a test
    // starts a program (git through execFile or spawn), which keep the git-heavy suites slow.
    const starters = listed.filter((file) =>
      /["'`]git["'`]|execFile|spawn\(|spawnSync/.test(fs.readFileSync(path.join(testRoot, file), "utf8")),
    );
    assert.deepEqual(starters, []);
    for (const file of listed) assert.equal(tierOf(file), "fast", file);
  });
});
