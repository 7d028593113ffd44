// The tiers of scripts/test-tiers.mjs: `npm run test:fast` runs only files that start none of
// memdir's processes, a browser, an agent or the package, so it stays fast; this keeps it so.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
// @ts-expect-error: a plain .mjs script without types
import { PROCESS_MARKERS, SLOW_FILES, tierOf } from "../../scripts/test-tiers.mjs";

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

  it("list only files that exist as slow", () => {
    assert.deepEqual(
      Object.keys(SLOW_FILES as Record<string, string>).filter((file) => !testFiles.includes(file)),
      [],
    );
  });
});
